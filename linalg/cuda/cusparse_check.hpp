#pragma once
// Error checking for cuSPARSE calls and the CUDA data type of a value type (CUDA sources only).
#include <stdexcept>
#include <string>

#include "linalg/cuda/cusparse_library.hpp"

namespace gpufem::cuda {

/// CUDA_R_32F or CUDA_R_64F for float / double.
template <typename V>
constexpr cudaDataType value_type_of()
{
    return sizeof(V) == 4 ? CUDA_R_32F : CUDA_R_64F;
}

}  // namespace gpufem::cuda

/// Throws std::runtime_error naming the cuSPARSE status and the call.
#define GPUFEM_CUSPARSE_CHECK(expr)                                                       \
    do {                                                                                  \
        const cusparseStatus_t gpufem_status_ = (expr);                                   \
        if (gpufem_status_ != CUSPARSE_STATUS_SUCCESS)                                    \
            throw std::runtime_error(std::string("cuSPARSE error '") +                    \
                                     gpufem::cuda::cusparse().error_string(gpufem_status_) + "' in " #expr); \
    } while (0)
