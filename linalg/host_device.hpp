#pragma once
// Marks functions written once for both backends (element math shared by cpu/ and cuda/).
#if defined(__CUDACC__)
#define GPUFEM_HOST_DEVICE __host__ __device__
#else
#define GPUFEM_HOST_DEVICE
#endif
