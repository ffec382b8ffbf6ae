// The Dirichlet elimination, for a matrix with 32-bit row offsets (Csr<V>, O = index_type) or
// with 64-bit ones (WideCsr<V>, O = wide_offset_type).
// A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// assembly/dirichlet.hpp. No include guard, no includes: it is read once per backend namespace.

/// For each row i: if mask[i], the row becomes a_ii e_i with rhs_i = a_ii g_i;
/// otherwise every a_ij with mask[j] moves to the right side (rhs_i -= a_ij g_j) and is
/// zeroed. The pattern is kept (eliminated entries stay as explicit zeros), the matrix
/// stays symmetric.
template <typename V, typename O>
void apply_dirichlet(const Executor& exec, Csr<V, O>& a, const std::uint8_t* mask, const V* g,
                     V* rhs) GPUFEM_KERNEL_BODY
