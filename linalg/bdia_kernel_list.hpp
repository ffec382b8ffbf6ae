// bDIA kernels: the slabs' bands, the fill and the SpMV, and the memory the bands may take.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by linalg/bdia.hpp. No
// include guard, no includes: it is read once per backend namespace.

// bDIA kernels templated on V (cpu: plain loops, pointers in host memory; cuda: the device
// versions noted, pointers in device memory).

/// Per slab: the distinct diagonals (j - i) its rows touch, grouped into bands (consecutive
/// diagonals of the list join a band when at most gap empty diagonals lie between them); a
/// slab touching more than bdia_listed_diagonals stores its whole range as one band, a slab
/// of empty rows none. band_ptr (slabs + 1) = exclusive prefix sum of the bands per slab,
/// slab_ptr (slabs + 1) = exclusive prefix sum of the stored diagonals times bdia_slab (the
/// last entries the totals); stats[0] = half bandwidth, stats[1] = most diagonals a slab
/// stores, stats[2] = most bands a slab has, stats[3] = most x values a slab's windows span
/// (bands x (bdia_slab - 1) + stored diagonals), stats[4] = the longest row. cuda: one block per slab, the diagonals in a
/// shared-memory hash set, block reductions, CUB exclusive scans.
template <typename V>
void bdia_slab_bands(const Executor& exec, const Csr<V>& a, index_type gap, index_type* band_ptr,
                     std::int64_t* slab_ptr, index_type* stats) GPUFEM_KERNEL_BODY

/// Writes each slab's bands (band_offset, band_width at band_ptr[s] ..) in increasing order,
/// the same bands bdia_slab_bands counted. cuda: one block per slab, as in the count.
template <typename V>
void bdia_band_list(const Executor& exec, const Csr<V>& a, index_type gap, const index_type* band_ptr,
                    index_type* band_offset, index_type* band_width) GPUFEM_KERNEL_BODY

/// Fills b.values (allocated, slab_ptr[slabs] entries): zeros, then every CSR entry of
/// a at its band's diagonal. cuda: memset to zero, then one block per slab, one thread per
/// row scattering its entries while it walks the slab's bands.
template <typename V>
void bdia_fill(const Executor& exec, const Csr<V>& a, Bdia<V>& b) GPUFEM_KERNEL_BODY

/// y = alpha A x + beta y over the bands; beta == 0 ignores y's contents. cpu: x read
/// directly (the reference; max_shared_bytes ignored). cuda: one block of bdia_slab
/// threads per slab, one thread per row. A slab whose x windows (bdia_slab + width - 1
/// values a band) fit in max_shared_bytes (at most what a block may opt in to on the device)
/// and whose bands are at least bdia_staged_band_width
/// diagonals wide on average stages them in shared memory (coalesced loads, zeros outside 0 ..
/// rows-1) and reads x from there; another reads x from global memory
/// through the read-only cache instead (each window is still contiguous, so the block's
/// reuse is served by L1). max_shared_bytes = 0 forces the global path;
/// bdia_default_shared_bytes is the usual cap.
template <typename V>
void bdia_spmv(const Executor& exec, const Bdia<V>& a, V alpha, const V* x, V beta, V* y,
               std::size_t max_shared_bytes) GPUFEM_KERNEL_BODY

/// y = A x and partials[s] = the sum of x_i y_i over slab s's rows (double, in row order on
/// the cpu; a block reduction on cuda), slabs() values: the product fused with a CG's p.Ap.
/// As bdia_spmv otherwise (the same y, the same paths).
template <typename V>
void bdia_spmv_dot(const Executor& exec, const Bdia<V>& a, const V* x, V* y, double* partials,
                   std::size_t max_shared_bytes) GPUFEM_KERNEL_BODY

/// CG's direction fused with the product (LinearOperator::apply_cg_direction): with b = *beta,
/// p = z + b p, q = A z + b q (b == 0: p = z, q = A z, their contents ignored) and partials[s]
/// = the sum of p_i q_i over slab s's rows, as bdia_spmv_dot otherwise.
template <typename V>
void bdia_spmv_direction(const Executor& exec, const Bdia<V>& a, const V* z, const double* beta, V* p, V* q,
                         double* partials, std::size_t max_shared_bytes) GPUFEM_KERNEL_BODY

// bDIA kernels not templated on V.

/// Memory the bands may take when no limit is given. cpu: half the physical RAM; cuda:
/// free device memory (cudaMemGetInfo).
GPUFEM_KERNEL_INLINE std::size_t bdia_available_bytes(
    const Executor& exec) GPUFEM_KERNEL_BODY
