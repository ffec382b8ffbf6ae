// SELL-P kernels (cpu: plain loops; cuda: the device versions noted).
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by linalg/sellp.hpp. No
// include guard, no includes: it is read once per backend namespace.

/// perm[r] = row of a placed at position r: rows sorted by decreasing length within
/// windows of sigma rows, ties kept in their original order (a stable sort).
/// cuda: CUB stable segmented sort (descending) with the windows as segments.
template <typename V>
void sellp_sort_rows(const Executor& exec, const Csr<V>& a, index_type sigma, index_type* perm)
    GPUFEM_KERNEL_BODY

/// Fills s.slice_ptr (num_slices + 1 entries, allocated) for a (rows in perm order when
/// perm is not null) and returns the stored entries; throws std::overflow_error past
/// 32 bits. cuda: a slice-width kernel, CUB exclusive scan in 64 bits, the total read
/// back.
template <typename V>
std::int64_t sellp_slice_pointers(const Executor& exec, const Csr<V>& a, const index_type* perm,
                                  Sellp<V>& s) GPUFEM_KERNEL_BODY

/// Fills s.col_idx / s.values (allocated, s.entries) from a, padding included.
/// cuda: one thread per (padded) row writes its entries, coalesced across a slice.
template <typename V>
void sellp_fill(const Executor& exec, const Csr<V>& a, const index_type* perm, Sellp<V>& s,
                SellpPadding padding) GPUFEM_KERNEL_BODY

/// y = alpha A x + beta y over the SELL-P layout, y in the matrix's row order;
/// beta == 0 ignores y's contents. cuda: t threads per row (adjacent rows in adjacent
/// lanes, so each of the t column segments is read coalesced), a shuffle reduction,
/// 256-thread blocks.
template <typename V>
void sellp_spmv(const Executor& exec, const Sellp<V>& a, V alpha, const V* x, V beta, V* y)
    GPUFEM_KERNEL_BODY
