// Reference staircase SELL kernels: plain loops over groups, slices and rows.
#include <stdexcept>

#include "linalg/staircase.hpp"

namespace gpufem::kernels::cpu {

template <typename V>
void staircase_fill(const Executor&, const Csr<V>& permuted, StaircaseMatrix<V>& a)
{
    const index_type* ptr = permuted.row_ptr.data();
    const index_type* col = permuted.col_idx.data();
    const V* val = permuted.values.data();
    const index_type sh = a.slice_height;
    bool too_long = false;
    // One parallel region, the groups' loops shared out without barriers between them.
#pragma omp parallel
    for (const StaircaseGroup& g : a.groups) {
#pragma omp for schedule(static) reduction(|| : too_long) nowait
        for (index_type j = 0; j < g.rows; ++j) {
            const index_type row = g.row_start + j;  // past a.rows: a padding row
            const index_type slice = j / sh, lane = j % sh;
            const index_type base = g.offset + slice * g.length * sh + lane;
            const index_type begin = row < a.rows ? ptr[row] : 0;
            const index_type len = row < a.rows ? ptr[row + 1] - begin : 0;
            if (len > g.length) too_long = true;
            for (index_type k = 0; k < g.length; ++k) {
                const bool real = k < len;
                a.col_idx.data()[base + k * sh] = real ? col[begin + k] : -1;
                a.values.data()[base + k * sh] = real ? val[begin + k] : V(0);
            }
        }
    }
    if (too_long) throw std::invalid_argument("staircase_fill: a row is longer than its group");
}

template <typename V>
void staircase_spmv(const Executor&, const StaircaseMatrix<V>& a, V alpha, const V* x, V beta, V* y,
                    const StaircaseStreams*)
{
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
    const index_type sh = a.slice_height;
#pragma omp parallel
    for (const StaircaseGroup& g : a.groups) {
#pragma omp for schedule(static) nowait
        for (index_type j = 0; j < g.rows; ++j) {
            const index_type row = g.row_start + j;
            if (row >= a.rows) continue;  // padding row: nothing to write
            const index_type base = g.offset + (j / sh) * g.length * sh + j % sh;
            V sum = 0;
            for (index_type k = 0; k < g.length; ++k) {
                const index_type c = col[base + k * sh];
                if (c >= 0) sum += val[base + k * sh] * x[c];
            }
            y[row] = beta == V(0) ? alpha * sum : alpha * sum + beta * y[row];
        }
    }
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(staircase_fill, staircase_spmv)

}  // namespace gpufem::kernels::cpu
