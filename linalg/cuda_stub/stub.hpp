#pragma once
// Kept only for solver/cuda_stub/merged_kernels.cpp until solver/ declares its kernels with
// linalg/backend_kernels.hpp (which now defines detail::no_cuda); delete it then.
#include "linalg/backend_kernels.hpp"
