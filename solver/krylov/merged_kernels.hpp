#pragma once
// Kernels of the merged CG and BiCGSTAB (Anzt et al. 2015, §3.2–3.3): vector updates fused with
// the first stage of the dot products that follow them, one reduction finishing several dots at
// once, and the scalar step (merged_scalars.hpp) done where the reduction ends, so that alpha,
// beta, omega and the convergence test never leave the device. On several processes each
// reduction is split (MergedWorkspace::split): the kernel leaves this process's totals, the
// communicator adds them, and scalar_step runs on its own. Declared once, implemented in
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
    /// When set (a Lanczos run of CG): CG's alpha_k at [2k] and beta_k at [2k + 1] as each
    /// scalar step makes them, 2 * max_iterations entries; null in a solve.
    double* coefficients = nullptr;
};

/// Most dot products one fused reduction finishes.
inline constexpr int max_dots = 4;

/// The scalar step on the finished totals; with ws.coefficients set, CG's alpha or beta that
/// it made (only while the solve runs: a step that stops it makes none).
GPUFEM_HOST_DEVICE inline void step_and_record(const MergedWorkspace& ws, ScalarStep step, const double* sums)
{
    KrylovScalars& s = *ws.state;
    if (step == ScalarStep::cg_alpha_finish && ws.coefficients) {  // its two steps, each recorded
        step_and_record(ws, ScalarStep::cg_alpha, sums);
        if (s.status == state_running) step_and_record(ws, ScalarStep::cg_finish, sums + 1);
        return;
    }
    scalar_step(s, step, sums, ws.history);
    if (!ws.coefficients || s.status != state_running) return;
    if (step == ScalarStep::cg_alpha) ws.coefficients[2 * s.iteration] = s.alpha;
    if (step == ScalarStep::cg_finish) ws.coefficients[2 * s.iteration - 1] = s.beta;  // counted already
}

/// What a fused reduction does with its finished totals (sums, scalar_step_sums(step) of
/// them): the scalar step at once on one process, or, split, leave them in ws.sums for the
/// all-reduce. Shared by both backends' kernels.
GPUFEM_HOST_DEVICE inline void finish_reduction(const MergedWorkspace& ws, ScalarStep step, const double* sums)
{
    if (!ws.split) return step_and_record(ws, step, sums);
    for (int k = 0; k < scalar_step_sums(step); ++k) ws.sums[k] = sums[k];
}

#define GPUFEM_KERNEL_LIST "solver/krylov/merged_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

}  // namespace gpufem
