// CG in one resident kernel on a bDIA matrix. A kernel list (linalg/backend_kernels.hpp),
// declared for both backends by solver/krylov/resident_cg.hpp. No include guard, no includes:
// it is read once per backend namespace.

/// Whether cg_resident_bdia<V> can run a matrix of this many slabs here. cpu: always; cuda:
/// when the slabs, at most resident_cg_max_slabs_per_block a block, fit the blocks the device
/// keeps resident at once (all of them must be, for the grid-wide barriers).
template <typename V>
bool cg_resident_fits(const Executor& exec, index_type slabs) GPUFEM_KERNEL_BODY

/// CG with a diagonal M (dinv, its inverse) or none (dinv null) from the state cg_start left
/// (ws.state started, r = b - A x0), on one process (ws not split), until the state stops:
/// convergence, the iteration limit, a breakdown or a non-finite value, each recorded in
/// ws.state and ws.history as the merged kernels record them. On return x and r hold the
/// final iterate and its recursive residual; z (a.rows values) is scratch. Each iteration:
/// w = A z, p = z + beta p, q = w + beta q (= A p), alpha = rho / p.q, x += alpha p,
/// r -= alpha q, z = dinv r, rho = r.z, beta. cpu: plain loops, the readable reference. cuda:
/// one cooperative kernel for the whole solve, every block owning whole slabs whose rows keep
/// x, r, p, q and z in registers; only z goes through memory (the product's input, read by
/// the neighbouring rows); two grid-wide barriers an iteration, after which every block adds
/// the same partial sums in the same order and takes the same scalar step.
template <typename V>
void cg_resident_bdia(const Executor& exec, const MergedWorkspace& ws, const Bdia<V>& a, const V* dinv, V* x,
                      V* r, V* z) GPUFEM_KERNEL_BODY
