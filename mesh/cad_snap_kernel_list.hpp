// The kernel of refinement onto the CAD geometry (mesh/cad_boundary.hpp).
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// mesh/cad_snap_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// For every node n of the refined facets: the lattice point of its coarse facet nearest to
/// `from[3n..3n+2]`, if within that facet's tolerance, gives `to[3n..3n+2]` its CAD point.
/// `to` holds a copy of `from` before the call (nodes matched nowhere keep it). Returns the
/// facet nodes no lattice point was within tolerance of.
GPUFEM_KERNEL_INLINE long long snap_facet_nodes(const Executor& exec, const CadSnapView& view,
                                                const double* from, double* to) GPUFEM_KERNEL_BODY
