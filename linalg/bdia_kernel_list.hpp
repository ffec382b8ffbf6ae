// bDIA kernels: the slab bands, the fill and the SpMV, and the memory the band may take.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by linalg/bdia.hpp. No
// include guard, no includes: it is read once per backend namespace.

// bDIA kernels templated on V (cpu: plain loops, pointers in host memory; cuda: the device
// versions noted, pointers in device memory).

/// Per slab: the diagonals its rows touch (offset, width; 0 / 0 for a slab of empty
/// rows), slab_ptr = exclusive prefix sum of width * bdia_slab (slabs + 1 entries, the
/// last one the total), stats[0] = half bandwidth, stats[1] = widest band. cuda: one
/// block per slab (block min/max reductions of each row's first and last column),
/// atomics for stats, CUB exclusive scan for slab_ptr.
template <typename V>
void bdia_slab_bands(const Executor& exec, const Csr<V>& a, index_type* offset, index_type* width,
                     std::int64_t* slab_ptr, index_type* stats) GPUFEM_KERNEL_BODY

/// Fills b.values (allocated, slab_ptr[slabs] entries): zeros, then every CSR entry of
/// a. cuda: memset to zero, then one thread per row scatters its entries.
template <typename V>
void bdia_fill(const Executor& exec, const Csr<V>& a, Bdia<V>& b) GPUFEM_KERNEL_BODY

/// y = alpha A x + beta y over the bands; beta == 0 ignores y's contents. cpu: x read
/// directly (the reference; max_shared_bytes ignored). cuda: one block of bdia_slab
/// threads per slab, one thread per row. A slab whose x window (bdia_slab + width - 1
/// values) fits in max_shared_bytes stages it in shared memory (coalesced loads, zeros
/// outside 0 .. rows-1) and reads x from there; a wider slab reads x from global memory
/// through the read-only cache instead (its window is still contiguous, so the block's
/// reuse is served by L1). max_shared_bytes = 0 forces the global path;
/// bdia_default_shared_bytes is the usual cap.
template <typename V>
void bdia_spmv(const Executor& exec, const Bdia<V>& a, V alpha, const V* x, V beta, V* y,
               std::size_t max_shared_bytes) GPUFEM_KERNEL_BODY

// bDIA kernels not templated on V.

/// Memory the band may take when no limit is given. cpu: half the physical RAM; cuda:
/// free device memory (cudaMemGetInfo).
GPUFEM_KERNEL_INLINE std::size_t bdia_available_bytes(
    const Executor& exec) GPUFEM_KERNEL_BODY
