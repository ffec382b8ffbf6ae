// Kernels of classical coarsening (solver/multigrid/classical_kernels.hpp).
// A kernel list (linalg/backend_kernels.hpp). No include guard, no includes: it is read once
// per backend namespace.

/// strong[k] for every stored entry of the n rows (classical_strength_row on each row).
template <typename V>
void classical_strength(const Executor& exec, index_type n, const index_type* row_ptr, const index_type* col_idx,
                        const V* values, double theta, std::uint8_t* strong) GPUFEM_KERNEL_BODY

/// The PMIS splitting of the strong pattern: coarse_of[i] = the coarse number of C point i (C
/// points numbered in index order), -1 for F points. Rounds as in classical_coarsening.hpp,
/// the same splitting on both backends. Synchronises.
GPUFEM_KERNEL_INLINE PmisCount pmis_split(const Executor& exec, index_type n, const index_type* row_ptr,
                                          const index_type* col_idx, const std::uint8_t* strong,
                                          index_type* coarse_of) GPUFEM_KERNEL_BODY

/// The extended+i interpolation from a's points to the coarse_count C points of coarse_of,
/// each F row truncated to max_entries (0: all), on a's executor. Synchronises.
template <typename V>
Csr<V> classical_interpolation(const Executor& exec, const Csr<V>& a, const std::uint8_t* strong,
                               const index_type* coarse_of, index_type coarse_count,
                               int max_entries) GPUFEM_KERNEL_BODY
