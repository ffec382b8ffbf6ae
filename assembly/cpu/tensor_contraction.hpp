#pragma once
// Internal to the CPU kernels of assembly/: the one-dimensional contraction of sum
// factorisation, shared by the partial-assembly operator and p-multigrid's transfers.
#include <array>
#include <cstddef>
#include <vector>

namespace gpufem::kernels::cpu {

/// Contracts `in` along direction dir with a table T of rows x cols entries (row-major):
/// forward, an extent of cols becomes rows (out[.., r, ..] = sum_c T[r][c] in[.., c, ..]);
/// transposed, rows becomes cols (out[.., c, ..] = sum_r T[r][c] in[.., r, ..]). extent: the
/// input's extent per direction (x fastest, the unused ones 1); updated to the output's.
template <typename V>
std::vector<V> contract_1d(const V* table, int rows, int cols, bool transposed, int dir, std::array<int, 3>& extent,
                           const std::vector<V>& in)
{
    const int from = extent[dir], to = transposed ? cols : rows;
    int inner = 1, outer = 1;
    for (int c = 0; c < dir; ++c) inner *= extent[c];
    for (int c = dir + 1; c < 3; ++c) outer *= extent[c];
    std::vector<V> out(static_cast<std::size_t>(inner) * to * outer, V(0));
    for (int o = 0; o < outer; ++o)
        for (int t = 0; t < to; ++t)
            for (int k = 0; k < from; ++k) {
                const V w = transposed ? table[k * cols + t] : table[t * cols + k];
                for (int i = 0; i < inner; ++i)
                    out[(static_cast<std::size_t>(o) * to + t) * inner + i] +=
                        w * in[(static_cast<std::size_t>(o) * from + k) * inner + i];
            }
    extent[dir] = to;
    return out;
}

}  // namespace gpufem::kernels::cpu
