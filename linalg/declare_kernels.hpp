// Declares one kernel list for both backends (linalg/backend_kernels.hpp explains lists).
// Included inside namespace gpufem, right after the list is named:
//
//   #define GPUFEM_KERNEL_LIST "linalg/ell_kernel_list.hpp"
//   #include "linalg/declare_kernels.hpp"
//
// it reads the list in kernels::cpu (every kernel declared) and in kernels::cuda (declared
// when CUDA is built; otherwise defined to throw "gpufem was built without CUDA"), then
// forgets GPUFEM_KERNEL_LIST. No include guard: a header includes it once per list.
#ifndef GPUFEM_KERNEL_LIST
#error "define GPUFEM_KERNEL_LIST (the list file's path, quoted) before including declare_kernels.hpp"
#endif
#ifndef GPUFEM_CUDA_BODY
#error "include linalg/backend_kernels.hpp (outside any namespace) before declare_kernels.hpp"
#endif

namespace kernels::cpu {
#define GPUFEM_KERNEL_INLINE
#define GPUFEM_KERNEL_BODY ;
#include GPUFEM_KERNEL_LIST
#undef GPUFEM_KERNEL_BODY
#undef GPUFEM_KERNEL_INLINE
}  // namespace kernels::cpu

namespace kernels::cuda {
#define GPUFEM_KERNEL_INLINE GPUFEM_CUDA_INLINE
#define GPUFEM_KERNEL_BODY GPUFEM_CUDA_BODY
#include GPUFEM_KERNEL_LIST
#undef GPUFEM_KERNEL_BODY
#undef GPUFEM_KERNEL_INLINE
}  // namespace kernels::cuda

#undef GPUFEM_KERNEL_LIST
