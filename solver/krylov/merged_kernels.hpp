#pragma once
// Kernels of the merged CG and BiCGSTAB (003_… §3.2–3.3): vector updates fused with the first
// stage of the dot products that follow them, one reduction finishing several dots at once,
// and the scalar step (merged_scalars.hpp) done where the reduction ends, so that alpha, beta,
// omega and the convergence test never leave the device. On several processes each reduction
// is split (MergedWorkspace::split): the kernel leaves this process's totals, the communicator
// adds them, and scalar_step runs on its own. Declared once, implemented in
// cpu/merged_kernels.cpp and cuda/merged_kernels.cu. Every iteration kernel returns at once
// when the state says the solve has stopped (the host finds out later).
//
// dinv: the inverse diagonal of a diagonal preconditioner (Jacobi: z = dinv .* r), or nullptr
// (none, or a general M applied between the kernels).
#include <cstddef>

#include "linalg/backend_kernels.hpp"
#include "linalg/executor.hpp"
#include "linalg/host_device.hpp"
#include "solver/krylov/merged_scalars.hpp"

namespace gpufem {

/// Device buffers of a merged solve.
struct MergedWorkspace {
    KrylovScalars* state = nullptr;  ///< one struct
    double* history = nullptr;       ///< ||r_k|| / ||b||, max_iterations + 1 entries
    double* partials = nullptr;      ///< per-block partial sums: max_dots * grid
    unsigned* counter = nullptr;     ///< blocks finished in the current reduction (0 between)
    /// This process's totals of the last reduction (max_dots entries), written instead of the
    /// scalar step when split: the communicator adds them over the processes, then the
    /// scalar_step kernel runs on them.
    double* sums = nullptr;
    /// Reductions end in sums, not in the scalar step (several processes); false on one
    /// process, where the last block runs the step itself at no extra cost.
    bool split = false;
    int grid = 1;                    ///< blocks of every reduction (fixed: deterministic sums)
};

/// Most dot products one fused reduction finishes.
inline constexpr int max_dots = 4;

/// What a fused reduction does with its finished totals (sums, scalar_step_sums(step) of
/// them): the scalar step at once on one process, or, split, leave them in ws.sums for the
/// all-reduce. Shared by both backends' kernels.
GPUFEM_HOST_DEVICE inline void finish_reduction(const MergedWorkspace& ws, ScalarStep step, const double* sums)
{
    if (!ws.split) return scalar_step(*ws.state, step, sums, ws.history);
    for (int k = 0; k < scalar_step_sums(step); ++k) ws.sums[k] = sums[k];
}

#define GPUFEM_MERGED_KERNELS(V, PREFIX, BODY)                                                  \
    /* result[k] = x[k] . y[k], k < count <= max_dots, into device (host for cpu) memory. */    \
    PREFIX void multi_dot(const Executor& exec, const MergedWorkspace& ws, std::size_t n,       \
                          int count, const V* const* x, const V* const* y, double* result) BODY \
    /* inverse[i] = 1 / d[i]; returns the first row with a zero or non-finite d, else -1. */    \
    PREFIX long long invert_diagonal(const Executor& exec, std::size_t n, const V* d,           \
                                     V* inverse) BODY                                           \
    /* CG start: r = b - r (r holds A x0), p = dinv r; rho = r.p, state started. */             \
    PREFIX void cg_start(const Executor& exec, const MergedWorkspace& ws, std::size_t n,        \
                         const V* b, const V* dinv, V* r, V* p) BODY                            \
    /* CG: alpha = rho / p.q (q = A p). */                                                      \
    PREFIX void cg_alpha(const Executor& exec, const MergedWorkspace& ws, std::size_t n,        \
                         const V* p, const V* q) BODY                                           \
    /* CG: x += alpha p, r -= alpha q, rho = r.z, residual check, beta. */                      \
    PREFIX void cg_update_xr(const Executor& exec, const MergedWorkspace& ws, std::size_t n,    \
                             const V* p, const V* q, const V* dinv, V* x, V* r) BODY            \
    /* CG with a general M (z = M^-1 r applied between kernels): x += alpha p, r -= alpha q,    \
       r.r and the residual check; rho and beta follow in cg_rho. */                            \
    PREFIX void cg_update_xr_residual(const Executor& exec, const MergedWorkspace& ws,          \
                                      std::size_t n, const V* p, const V* q, V* x, V* r) BODY   \
    /* CG with a general M: rho = r.z; beta = rho / rho_old (start: beta = 0). */               \
    PREFIX void cg_rho(const Executor& exec, const MergedWorkspace& ws, std::size_t n,          \
                       const V* r, const V* z, bool start) BODY                                 \
    /* CG: p = z + beta p (z = dinv r, or r itself without dinv). */                            \
    PREFIX void cg_update_p(const Executor& exec, const MergedWorkspace& ws, std::size_t n,     \
                            const V* r, const V* dinv, V* p) BODY                               \
    /* BiCGSTAB start: r = b - r (r holds A x0), rhat = r, p = v = 0; state started. */         \
    PREFIX void bicgstab_start(const Executor& exec, const MergedWorkspace& ws, std::size_t n,  \
                               const V* b, V* r, V* rhat, V* p, V* v) BODY                      \
    /* BiCGSTAB: p = r + beta (p - omega v); phat = dinv p (phat unused without dinv). */       \
    PREFIX void bicgstab_update_p(const Executor& exec, const MergedWorkspace& ws,              \
                                  std::size_t n, const V* r, const V* v, const V* dinv, V* p,   \
                                  V* phat) BODY                                                 \
    /* BiCGSTAB: alpha = rho / rhat.v. */                                                       \
    PREFIX void bicgstab_alpha(const Executor& exec, const MergedWorkspace& ws, std::size_t n,  \
                               const V* rhat, const V* v) BODY                                  \
    /* BiCGSTAB: s = r - alpha v; shat = dinv s (unused without dinv). */                       \
    PREFIX void bicgstab_update_s(const Executor& exec, const MergedWorkspace& ws,              \
                                  std::size_t n, const V* r, const V* v, const V* dinv, V* s,   \
                                  V* shat) BODY                                                 \
    /* BiCGSTAB: t.s, t.t, s.s in one pass; omega (or the half-step exit). */                   \
    PREFIX void bicgstab_omega(const Executor& exec, const MergedWorkspace& ws, std::size_t n,  \
                               const V* s, const V* t) BODY                                     \
    /* BiCGSTAB: x += alpha phat + omega shat, r = s - omega t; rhat.r, r.r; beta. */           \
    PREFIX void bicgstab_update_xr(const Executor& exec, const MergedWorkspace& ws,             \
                                   std::size_t n, const V* rhat, const V* phat, const V* shat,  \
                                   const V* s, const V* t, V* x, V* r) BODY

GPUFEM_DECLARE_KERNELS(GPUFEM_MERGED_KERNELS)

/// The scalar step on its own, on the totals in ws.sums (after the communicator added them
/// over the processes); a no-op once the solve has stopped, except for the start steps.
#define GPUFEM_SCALAR_STEP_KERNELS(PREFIX, BODY)                                                \
    PREFIX void scalar_step(const Executor& exec, const MergedWorkspace& ws, ScalarStep step) BODY

GPUFEM_DECLARE_PLAIN_KERNELS(GPUFEM_SCALAR_STEP_KERNELS)

}  // namespace gpufem
