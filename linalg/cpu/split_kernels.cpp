// CPU reference for the split of owned rows into owned and ghost columns.
#include "linalg/split_kernels.hpp"

namespace gpufem::kernels::cpu {

template <typename V, typename O>
void split_row_offsets(const Executor&, const Csr<V, O>& a, index_type owned, O* local_ptr, index_type* nonlocal_ptr)
{
    const O* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    local_ptr[0] = 0;
    nonlocal_ptr[0] = 0;
    for (index_type i = 0; i < a.rows; ++i) {
        index_type here = 0;
        for (O k = ptr[i]; k < ptr[i + 1]; ++k) here += col[k] < owned;
        local_ptr[i + 1] = local_ptr[i] + here;
        nonlocal_ptr[i + 1] = nonlocal_ptr[i] + static_cast<index_type>(ptr[i + 1] - ptr[i] - here);
    }
}

template <typename V, typename O>
void split_rows(const Executor&, const Csr<V, O>& a, index_type owned, const O* local_ptr, index_type* local_col,
                V* local_val, const index_type* nonlocal_ptr, index_type* nonlocal_col, V* nonlocal_val)
{
    const O* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < a.rows; ++i) {
        O l = local_ptr[i];
        index_type g = nonlocal_ptr[i];
        for (O k = ptr[i]; k < ptr[i + 1]; ++k) {
            if (col[k] < owned) {
                local_col[l] = col[k], local_val[l++] = val[k];
            } else {
                nonlocal_col[g] = col[k] - owned, nonlocal_val[g++] = val[k];
            }
        }
    }
}

template <typename V>
index_type nonempty_rows(const Executor&, const Csr<V>& a, index_type* at, index_type* end)
{
    const index_type* ptr = a.row_ptr.data();
    index_type count = 0;
    for (index_type i = 0; i < a.rows; ++i)
        if (ptr[i + 1] > ptr[i]) {
            at[count] = i;
            end[count++] = ptr[i + 1];
        }
    return count;
}

template <typename V>
void add_compressed_rows(const Executor&, const Csr<V>& a, const index_type* rows, V alpha, const V* x, V* y)
{
    const index_type* ptr = a.row_ptr.data();
    const index_type* col = a.col_idx.data();
    const V* val = a.values.data();
#pragma omp parallel for schedule(static)
    for (index_type k = 0; k < a.rows; ++k) {
        V sum = 0;
        for (index_type e = ptr[k]; e < ptr[k + 1]; ++e) sum += val[e] * x[col[e]];
        y[rows[k]] += alpha * sum;
    }
}

template <typename V>
void mask_to_values(const Executor&, index_type n, const std::uint8_t* mask, V* out)
{
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < n; ++i) out[i] = mask[i] ? V(1) : V(0);
}

template <typename V>
void values_to_mask(const Executor&, index_type n, const V* in, std::uint8_t* mask)
{
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < n; ++i) mask[i] = in[i] != V(0);
}

template <typename V>
void stage_boundary_values(const Executor&, index_type n, const index_type* at, const V* from, index_type owned,
                           index_type ghost_count, const V* ghosts, V* to)
{
    for (index_type k = 0; k < n; ++k) to[at[k]] = from[at[k]];
    for (index_type g = 0; g < ghost_count; ++g) to[owned + g] = ghosts[g];
}

template <typename V>
void add_boundary_rows(const Executor&, index_type n, const index_type* at, V* staged, index_type owned,
                       index_type ghost_count, V* y)
{
    for (index_type k = 0; k < n; ++k) {
        y[at[k]] += staged[at[k]];
        staged[at[k]] = V(0);
    }
    for (index_type g = 0; g < ghost_count; ++g) staged[owned + g] = V(0);
}

GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(split_row_offsets, split_rows)
GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(nonempty_rows, add_compressed_rows, mask_to_values, values_to_mask,
                                   stage_boundary_values, add_boundary_rows)

}  // namespace gpufem::kernels::cpu
