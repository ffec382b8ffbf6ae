// Kernels of p-multigrid's transfers by sum factorisation, see assembly/pa_transfer_kernels.hpp.
// A kernel list (linalg/backend_kernels.hpp). No include guard, no includes: it is read once
// per backend namespace. cuda: the same contracts, asynchronous on the executor's stream.

/// out[e n + t] = u = unknowns[e per_cell + of_lex[t]] for every cell e and position t < n,
/// stored as ~u where owner is given and owner[u] != e per_cell + of_lex[t] (another cell slot
/// owns u).
GPUFEM_KERNEL_INLINE void pa_transfer_unknowns(const Executor& exec, index_type cells, int per_cell,
                                               const index_type* unknowns, const int* of_lex, int n,
                                               const long long* owner, index_type* out) GPUFEM_KERNEL_BODY

/// y[u] += alpha (P_e x_e)_l for every cell e and fine position l whose unknown u the cell
/// owns, x_e the cell's coarse values: y += alpha P x. cpu: cells in parallel, one contraction
/// per direction; cuda: a block per few cells, the contractions through shared memory.
template <typename V>
void pa_prolongate(const Executor& exec, const PaTransferArgs<V>& a, V alpha, const V* x, V* y) GPUFEM_KERNEL_BODY

/// y[coarse unknown m of e] += alpha (P_e^T r_e)_m for every cell e, r_e the cell's values of x
/// at the fine unknowns it owns (zero at the others): y += alpha P^T x. cpu: sequential over
/// cells; cuda: a block per few cells, transposed contractions through shared memory, atomics.
template <typename V>
void pa_restrict(const Executor& exec, const PaTransferArgs<V>& a, V alpha, const V* x, V* y) GPUFEM_KERNEL_BODY
