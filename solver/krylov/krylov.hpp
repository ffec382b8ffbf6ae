#pragma once
// Krylov solvers: CG and BiCGSTAB, each as a `reference` (one library call per vector
// operation, Anzt et al. 2015, Figure 1) and a `merged` variant (fused updates, multi-dot
// reductions, scalars kept on the device, the host reading the residual every check_every
// iterations).
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "linalg/communicator.hpp"
#include "linalg/interval_timer.hpp"
#include "linalg/linear_operator.hpp"
#include "linalg/named_enum.hpp"
#include "solver/krylov/preconditioner.hpp"

namespace gpufem {

/// Why a Krylov solve stopped.
/// stagnated: the recursive residual met the tolerance but the true one of the solution does
/// not (set by the pipeline after checking ||b - A x||; the Krylov loops never set it).
enum class SolveStatus { converged, max_iterations, breakdown, not_finite, stagnated };
/// "converged", "max_iterations", "breakdown", "not_finite", "stagnated"
const char* solve_status_name(SolveStatus status);

/// The Krylov method.
enum class KrylovMethod { cg, bicgstab };
/// How the method's vector operations are written.
enum class KrylovVariant {
    reference,         ///< one library call per vector operation, every dot read by the host
    merged,            ///< fused updates and dots, the scalars on the device
    single_reduction,  ///< CG only: the merged kernels rearranged (Chronopoulos and Gear) so
                       ///< that one reduction per iteration finishes every dot product
};
/// Whether the merged variant replays its iterations as a CUDA graph.
enum class GraphMode { automatic, on, off };
/// Whether merged CG runs the whole solve as one resident kernel (bdia, a diagonal M or none,
/// one process; automatic: on CUDA for systems below resident_cg_auto_rows rows that fit; on:
/// wherever it can run, the CPU backend too).
enum class ResidentMode { automatic, on, off };

/// The names of the methods, as in the case file.
inline constexpr std::array<EnumName<KrylovMethod>, 2> krylov_method_names{
    {{KrylovMethod::cg, "cg"}, {KrylovMethod::bicgstab, "bicgstab"}}};
/// The names of the variants.
inline constexpr std::array<EnumName<KrylovVariant>, 3> krylov_variant_names{
    {{KrylovVariant::reference, "reference"},
     {KrylovVariant::merged, "merged"},
     {KrylovVariant::single_reduction, "single_reduction"}}};
/// The names of the graph modes.
inline constexpr std::array<EnumName<GraphMode>, 3> graph_mode_names{
    {{GraphMode::automatic, "auto"}, {GraphMode::on, "on"}, {GraphMode::off, "off"}}};
/// The names of the resident modes.
inline constexpr std::array<EnumName<ResidentMode>, 3> resident_mode_names{
    {{ResidentMode::automatic, "auto"}, {ResidentMode::on, "on"}, {ResidentMode::off, "off"}}};

/// "cg", "bicgstab"
inline const char* method_name(KrylovMethod method)
{
    return enum_name(krylov_method_names, method).data();
}
/// "reference", "merged", "single_reduction"
inline const char* variant_name(KrylovVariant variant)
{
    return enum_name(krylov_variant_names, variant).data();
}
/// "auto", "on", "off"
inline const char* graph_mode_name(GraphMode mode)
{
    return enum_name(graph_mode_names, mode).data();
}
/// The inverses of the *_name functions; throw std::invalid_argument naming the choices.
inline KrylovMethod parse_method(const std::string& name)
{
    return parse_enum(krylov_method_names, name, "solver method");
}
/// The variant named name.
inline KrylovVariant parse_variant(const std::string& name)
{
    return parse_enum(krylov_variant_names, name, "solver variant");
}
/// The graph mode named name.
inline GraphMode parse_graph_mode(const std::string& name)
{
    return parse_enum(graph_mode_names, name, "graph mode");
}
/// "auto", "on", "off"
inline const char* resident_mode_name(ResidentMode mode)
{
    return enum_name(resident_mode_names, mode).data();
}
/// The resident mode named name.
inline ResidentMode parse_resident_mode(const std::string& name)
{
    return parse_enum(resident_mode_names, name, "resident mode");
}

/// Timers for the split of an iteration (benchmarks): every SpMV, every vector update and
/// every reduction is bracketed by its phase's timer. Forces the graph off.
struct SolverPhaseTimers {
    IntervalTimer* spmv = nullptr;
    IntervalTimer* vector = nullptr;     ///< updates (merged: updates with fused partial dots)
    IntervalTimer* reduction = nullptr;  ///< dots (merged: kernels that only reduce)
};

/// Stopping rule and execution settings: ||b - A x_k|| <= tolerance ||b|| (the recursive
/// residual of the unpreconditioned system), at most max_iterations iterations.
struct SolveOptions {
    double tolerance = 1e-8;
    int max_iterations = 10000;
    /// merged: iterations between the host's reads of the residual (CUDA; 1 on the CPU).
    int check_every = 10;
    /// merged on CUDA: capture a batch of check_every iterations in a CUDA graph and replay it
    /// (automatic: for systems below graph_auto_rows rows, where launch gaps dominate).
    GraphMode graph = GraphMode::automatic;
    /// Record every SpMV between CUDA events (read once after the solve).
    bool time_spmv = true;
    /// merged CG: compute p.Ap in the product's own pass when the operator's format offers
    /// it (LinearOperator::apply_with_dot), instead of a second pass over p and q.
    bool fused_dot = true;
    /// merged CG with a diagonal M or none on one process, with fused_dot: the product also
    /// makes the new direction and one kernel does the rest (two kernels an iteration). Off by
    /// default: it reads more in the product than it saves in launches on an H100.
    bool fused_direction = false;
    /// merged CG: the whole solve in one resident kernel (see ResidentMode). Forced off by
    /// phase timers; where it cannot run (another format, a general M, several processes, too
    /// many rows for the device) the solve takes the usual kernels and, asked for with on,
    /// says why in the log. Off by default until its GPU timings are in.
    ResidentMode resident = ResidentMode::off;
    /// Benchmarks only: time each phase of every iteration (see SolverPhaseTimers).
    const SolverPhaseTimers* phases = nullptr;
    /// Called on the solving thread whenever the host learns the residual (merged: at each
    /// read of the device state, every check_every iterations on CUDA; reference: every
    /// iteration) with the completed iterations and ||r|| / ||b||. For progress display.
    std::function<void(int iteration, double relative_residual)> on_residual;
};

/// Rows below which GraphMode::automatic uses a CUDA graph.
inline constexpr long long graph_auto_rows = 1 << 21;
/// Rows below which ResidentMode::automatic runs CG in one resident kernel (where it fits).
inline constexpr long long resident_cg_auto_rows = 1 << 21;

/// Outcome of a solve.
struct SolveResult {
    SolveStatus status = SolveStatus::max_iterations;
    int iterations = 0;
    double initial_residual = 0;            ///< ||b - A x0||
    double rhs_norm = 0;                    ///< ||b||
    double relative_residual = 0;           ///< final ||r|| / ||b|| (recursive residual)
    /// ||b - A x|| / ||b|| of the returned x, computed after the solve (negative: not computed)
    double true_relative_residual = -1;
    std::vector<double> residual_history;   ///< ||r_k|| / ||b||, k = 0..iterations
    std::string message;                    ///< human-readable account (what went wrong, a hint)
    std::vector<double> spmv_seconds;       ///< every SpMV of the iterations (BiCGSTAB: 2 each)
    std::string spmv_clock;                 ///< "CUDA events", "steady clock", or why none
    bool graph_used = false;                ///< iterations replayed from a CUDA graph
    bool fused_dot = false;                 ///< CG's p.Ap computed in the product's pass
    bool fused_direction = false;           ///< CG's direction made in the product's pass too
    bool resident = false;                  ///< the whole CG solve ran as one resident kernel
    int host_reads = 0;                     ///< times the host waited for a device scalar
    bool converged() const { return status == SolveStatus::converged; }
};

/// Bytes one iteration moves outside the SpMV (vectors read and written, the traffic model of
/// Anzt et al. 2015, Table 1) for n unknowns of value_size bytes: e.g. merged BiCGSTAB 18n (14n
/// read + 4n written), its reference 33n; CG merged 11n, reference 15n. A preconditioner adds
/// its applies (a diagonal one fused into the merged kernels: its reads there) and the vectors
/// around them.
/// fused_dot: merged CG's p.Ap computed in the product's pass (2n less: p and q not read again).
std::size_t vector_bytes_per_iteration(KrylovMethod method, KrylovVariant variant,
                                       const PreconditionerTraffic& preconditioner, std::size_t n,
                                       std::size_t value_size, bool fused_dot = false);
/// Operator applications per iteration (CG 1, BiCGSTAB 2).
inline int spmvs_per_iteration(KrylovMethod method) { return method == KrylovMethod::cg ? 1 : 2; }

/// Solves A x = b, x holding the initial guess on entry and the solution on return, with the
/// preconditioner m (null: none; CG: left, M symmetric positive definite; BiCGSTAB: right,
/// x = M^-1 y). CG needs a symmetric positive definite A; BiCGSTAB any non-singular A.
/// Breakdowns (CG: p.Ap <= 0; BiCGSTAB: rho = 0, rhat.v = 0, omega = 0) and NaN/Inf are
/// reported with the iteration number and a hint. comm: the processes a distributed system
/// spans (a, b, x and m hold this process's rows); every dot product and norm is summed over
/// them, and the merged variant splits its fused reductions at the all-reduce. On one process
/// (serial_communicator) nothing changes.
template <typename V>
SolveResult solve(KrylovMethod method, KrylovVariant variant, const LinearOperator<V>& a,
                  const Array<V>& b, Array<V>& x, const SolveOptions& options,
                  const Preconditioner<V>* m = nullptr, const Communicator& comm = serial_communicator());

}  // namespace gpufem
