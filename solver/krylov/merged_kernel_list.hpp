// The merged solvers' kernels (cpu: chunked loops; cuda: a fixed grid, the last block finishing
// each reduction). A kernel list (linalg/backend_kernels.hpp), declared for both backends by
// solver/krylov/merged_kernels.hpp. No include guard, no includes: it is read once per backend
// namespace.

/// result[k] = x[k] . y[k], k < count <= max_dots, into device (host for cpu) memory: this
/// process's sums (a caller on several processes all-reduces them).
template <typename V>
void multi_dot(const Executor& exec, const MergedWorkspace& ws, std::size_t n, int count, const V* const* x,
               const V* const* y, double* result) GPUFEM_KERNEL_BODY

/// inverse[i] = 1 / d[i]; returns the first row with a zero or non-finite d, else -1.
template <typename V>
long long invert_diagonal(const Executor& exec, std::size_t n, const V* d, V* inverse) GPUFEM_KERNEL_BODY

/// CG start: r = b - r (r holds A x0), p = dinv r; rho = r.p, state started.
template <typename V>
void cg_start(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* b, const V* dinv, V* r,
              V* p) GPUFEM_KERNEL_BODY

/// CG: alpha = rho / p.q (q = A p).
template <typename V>
void cg_alpha(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* p,
              const V* q) GPUFEM_KERNEL_BODY

/// CG: x += alpha p (x null: a Lanczos run, no x), r -= alpha q, rho = r.z, residual check,
/// beta.
template <typename V>
void cg_update_xr(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* p, const V* q,
                  const V* dinv, V* x, V* r) GPUFEM_KERNEL_BODY

/// CG with a general M (z = M^-1 r applied between kernels): x += alpha p, r -= alpha q, r.r
/// and the residual check; rho and beta follow in cg_rho.
template <typename V>
void cg_update_xr_residual(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* p,
                           const V* q, V* x, V* r) GPUFEM_KERNEL_BODY

/// CG with a general M: rho = r.z; beta = rho / rho_old (start: beta = 0).
template <typename V>
void cg_rho(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* r, const V* z,
            bool start) GPUFEM_KERNEL_BODY

/// CG: p = z + beta p (z = dinv r, or r itself without dinv).
template <typename V>
void cg_update_p(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* r, const V* dinv,
                 V* p) GPUFEM_KERNEL_BODY

/// Single-reduction CG start: r = b - r (r holds A x0); with dinv, z = dinv r (the product's
/// input). No reduction: cg1_dots finishes the start.
template <typename V>
void cg1_start(const Executor& exec, std::size_t n, const V* b, const V* dinv, V* r, V* z) GPUFEM_KERNEL_BODY

/// Single-reduction CG: r.r, r.z and z.s (s = A z; z null: z = r) in one reduction, with b.b
/// when b is given (the start: ScalarStep::cg1_start; else cg1_step).
template <typename V>
void cg1_dots(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* b, const V* r,
              const V* z, const V* s) GPUFEM_KERNEL_BODY

/// Single-reduction CG: p = z + beta p, q = s + beta q (q = A p without a product), x += alpha
/// p, r -= alpha q; z_in null: z = dinv r, or r without dinv; z_out (with dinv): dinv times the
/// new r. No reduction.
template <typename V>
void cg1_update(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* z_in, const V* dinv,
                const V* s, V* p, V* q, V* x, V* r, V* z_out) GPUFEM_KERNEL_BODY

/// BiCGSTAB start: r = b - r (r holds A x0), rhat = r, p = v = 0; state started.
template <typename V>
void bicgstab_start(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* b, V* r, V* rhat,
                    V* p, V* v) GPUFEM_KERNEL_BODY

/// BiCGSTAB: p = r + beta (p - omega v); phat = dinv p (phat unused without dinv).
template <typename V>
void bicgstab_update_p(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* r, const V* v,
                       const V* dinv, V* p, V* phat) GPUFEM_KERNEL_BODY

/// BiCGSTAB: alpha = rho / rhat.v.
template <typename V>
void bicgstab_alpha(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* rhat,
                    const V* v) GPUFEM_KERNEL_BODY

/// BiCGSTAB: s = r - alpha v; shat = dinv s (unused without dinv).
template <typename V>
void bicgstab_update_s(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* r, const V* v,
                       const V* dinv, V* s, V* shat) GPUFEM_KERNEL_BODY

/// BiCGSTAB: t.s, t.t, s.s in one pass; omega (or the half-step exit).
template <typename V>
void bicgstab_omega(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* s,
                    const V* t) GPUFEM_KERNEL_BODY

/// BiCGSTAB: x += alpha phat + omega shat, r = s - omega t; rhat.r, r.r; beta.
template <typename V>
void bicgstab_update_xr(const Executor& exec, const MergedWorkspace& ws, std::size_t n, const V* rhat,
                        const V* phat, const V* shat, const V* s, const V* t, V* x, V* r) GPUFEM_KERNEL_BODY

/// CG: alpha = rho / p.q, p.q the sum of the count partials that the operator's product fused
/// with the dot wrote (LinearOperator::apply_with_dot), added in a fixed order.
GPUFEM_KERNEL_INLINE void cg_alpha_partials(const Executor& exec, const MergedWorkspace& ws, std::size_t count,
                                            const double* partials) GPUFEM_KERNEL_BODY

/// CG after the product fused with the direction (LinearOperator::apply_cg_direction): p.q
/// the sum of the count partials in a fixed order, alpha = rho / p.q, x += alpha p, r -= alpha
/// q, z = dinv r (z null without dinv: the product reads r), then r.z, r.r, the residual check
/// and beta (ScalarStep::cg_alpha_finish). One process only (the partials are this process's).
template <typename V>
void cg_update_partials(const Executor& exec, const MergedWorkspace& ws, std::size_t n, std::size_t count,
                        const double* partials, const V* p, const V* q, const V* dinv, V* x, V* r,
                        V* z) GPUFEM_KERNEL_BODY

/// A new solve's start: the state zero but for tolerance and max_iterations, the reduction
/// counter zero (queued: no host round trip).
GPUFEM_KERNEL_INLINE void merged_init(const Executor& exec, const MergedWorkspace& ws, double tolerance,
                                      int max_iterations) GPUFEM_KERNEL_BODY

/// The scalar step on its own, on the totals in ws.sums (after the communicator added them
/// over the processes); a no-op once the solve has stopped, except for the start steps.
GPUFEM_KERNEL_INLINE void scalar_step(const Executor& exec, const MergedWorkspace& ws,
                                      ScalarStep step) GPUFEM_KERNEL_BODY
