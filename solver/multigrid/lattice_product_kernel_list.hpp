// Kernels of the lattice product (solver/multigrid/lattice_product_kernels.hpp).
// A kernel list (linalg/backend_kernels.hpp): no include guard, no includes.

/// points[g] = numbering's point of number g, packed (packed_point), for g < count.
GPUFEM_KERNEL_INLINE void amg_lattice_points(const Executor& exec, LatticeNumbering numbering, index_type count,
                                             std::uint64_t* points) GPUFEM_KERNEL_BODY

/// narrow[g] = narrow_point(points[g]) for g < count (every coordinate below
/// 2^narrow_axis_bits - 1).
GPUFEM_KERNEL_INLINE void amg_narrow_lattice_points(const Executor& exec, const std::uint64_t* points, index_type count,
                                                    std::uint32_t* narrow) GPUFEM_KERNEL_BODY

/// C = A B row by row in windows (window_row, write_window_row; columns sorted, structural
/// entries kept), B's columns being lattice points (points, packed; narrow: the same points
/// in 32 bits, which both implementations use instead when not null): c's row offsets
/// (a.rows + 1, allocated by the caller), columns and values. Returns false, c's columns and
/// values left empty, when a row's columns do not fit its window. Throws std::length_error
/// past 2^31 - 1 entries. A = [a | ghost] (a rank's owned columns, then its ghost columns
/// numbered after them; ghost null: a alone), read in place (WindowRows); a's row offsets of
/// type O (64 bits: a rank's rows past 2^31 - 1 entries). A's values of type VA are rounded to
/// V as they are read (VA = double, V = float: the product of a rounded copy of A, without the
/// copy).
template <typename VA, typename V, typename O>
bool amg_lattice_product(const Executor& exec, const Csr<VA, O>& a, const Csr<VA>* ghost, const Csr<V>& b,
                         const std::uint64_t* points, const std::uint32_t* narrow, int dim, WindowCentre centre,
                         index_type first, Csr<V>& c) GPUFEM_KERNEL_BODY
