// Coefficient kernels: one region's expression evaluated at its cells' points, the check
// that tensors are positive definite, and which regions the cells hold.
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/coefficient_kernels.hpp. No include guard, no includes: it is read once per
// backend namespace.

/// For every cell c of the region `tag` (at.region[c] == tag; every cell when tag < 0 or
/// at.region is null) and each of its points q: out[(c * per_cell + q) * components +
/// component] = program at the point (in double, rounded to V). Returns the lowest
/// c * per_cell + q whose value fails check, or -1. cpu: cells in parallel; cuda: one
/// thread per point.
template <typename V>
long long evaluate_coefficient_piece(const Executor& exec, const ExprInstruction* program,
                                     const CoefficientPoints& at, int tag, int components,
                                     int component, ValueCheck check, V* out)
    GPUFEM_KERNEL_BODY

/// For every cell c of the region `tag` (as evaluate_coefficient_piece) and each of its points
/// q: out[(c * per_cell + q) * components + k] = values[c] (a coefficient given per cell,
/// constant on it) for k the scalar's one component or a packed tensor's diagonal (xx, yy,
/// zz: cell_value_component), 0 for a tensor's others. cpu: cells in parallel; cuda: one
/// thread per point.
template <typename V>
void spread_cell_values(const Executor& exec, const double* values, const CoefficientPoints& at, int tag,
                        int components, V* out)
    GPUFEM_KERNEL_BODY

/// The lowest k < points whose packed symmetric dim x dim tensor (values[k * (dim (dim +
/// 1) / 2) ..]: xx xy yy, or xx xy xz yy yz zz) is not finite and positive definite, or -1.
template <typename V>
long long first_indefinite_tensor(const Executor& exec, const V* values, long long points, int dim)
    GPUFEM_KERNEL_BODY

/// Which of the m increasing `tags` the n cells hold: present[k] = 1 when some cell c has
/// region[c] == tags[k], present[m] = 1 when some cell's tag is none of them (present: m + 1
/// bytes, zero on entry). cpu: cells in parallel; cuda: one thread per cell.
GPUFEM_KERNEL_INLINE void mark_present_tags(const Executor& exec, long long n, const int* region, const int* tags,
                                            int m, std::uint8_t* present) GPUFEM_KERNEL_BODY
