#pragma once
// One band of one bDIA row (linalg/bdia.hpp), shared by the bDIA SpMV and the kernels that
// walk the bands themselves (CG in one resident kernel).
#include <cstdint>

#include "linalg/bdia.hpp"

namespace gpufem::kernels::cuda {

/// Sum over one band of row r0 + t: its width w stored diagonals (bdia_slab apart) times x
/// from global memory, columns first .. first + w - 1 clipped to 0 .. rows-1. x through the
/// read-only cache when it does not change during the kernel (read_only_x), else with ordinary
/// loads (a kernel that writes x itself between grid-wide barriers).
template <bool read_only_x, typename V>
__device__ V band_sum(const V* __restrict__ stored, const V* x, std::int64_t first, index_type w, index_type rows)
{
    const int k_begin = static_cast<int>(first < 0 ? -first : 0);
    const int k_end = static_cast<int>(first + w > rows ? rows - first : w);
    V sum = 0;
#pragma unroll 4
    for (int k = k_begin; k < k_end; ++k) {
        const V xk = read_only_x ? __ldg(x + first + k) : x[first + k];
        sum += stored[static_cast<std::int64_t>(k) * bdia_slab] * xk;
    }
    return sum;
}

}  // namespace gpufem::kernels::cuda
