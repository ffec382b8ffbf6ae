#include "solver/study/study_metrics.hpp"

#include "solver/krylov/krylov.hpp"
#include "solver/preconditioners/preconditioner_registry.hpp"

namespace gpufem {
namespace {

/// Seconds of one SpMV (the median of the run's timings), 0 when none were timed.
double spmv_seconds(const RunRecord& r) { return r.median_spmv_seconds(); }

/// What the preconditioner adds to the traffic model; nullopt when the model has no figure for
/// it (a multigrid cycle).
std::optional<PreconditionerTraffic> model_traffic(const CaseSpec& spec, std::size_t n, std::size_t value_size)
{
    const PreconditionerEntry& entry = *spec.solver.preconditioner;
    if (entry.identity) return PreconditionerTraffic{};
    if (entry.diagonal) return PreconditionerTraffic{true, true, 3 * n * value_size};
    return std::nullopt;
}

/// The traffic model's seconds per iteration: the SpMVs' minimal bytes and the vector updates'
/// (Anzt et al. 2015, Table 1) at the copy bandwidth measured in the same study.
double model_seconds_per_iteration(const CaseSpec& spec, const RunRecord& r, double copy_bandwidth)
{
    const std::size_t value_size = spec.precision == Precision::float32 ? 4 : 8;
    const auto traffic = model_traffic(spec, static_cast<std::size_t>(r.rows), value_size);
    if (!traffic || copy_bandwidth <= 0) return 0;
    const std::size_t bytes =
        r.spmv_min_bytes * spmvs_per_iteration(spec.solver.method) +
        vector_bytes_per_iteration(spec.solver.method, spec.solver.variant, *traffic, r.rows, value_size,
                                   r.solve.fused_dot);
    return static_cast<double>(bytes) / copy_bandwidth;
}

/// The metrics of the solve as a whole.
void add_solve_metrics(NamedRegistry<StudyMetric>& registry)
{
    registry.add({"iterations_per_second", "Krylov iterations per second of the solve (setup excluded)", "it/s", true,
                  [](const CaseSpec&, const RunRecord& r, double) {
                      const double s = r.seconds_per_iteration();
                      return s > 0 ? 1.0 / s : 0.0;
                  }});
    registry.add({"seconds_per_iteration", "seconds per Krylov iteration (setup excluded)", "s", false,
                  [](const CaseSpec&, const RunRecord& r, double) { return r.seconds_per_iteration(); }});
    registry.add({"model_seconds_per_iteration",
                  "the traffic model's seconds per iteration: SpMV and vector bytes at the measured copy bandwidth",
                  "s", false, model_seconds_per_iteration});
    registry.add({"solve_seconds", "the solve's wall time, the preconditioner's setup included", "s", false,
                  [](const CaseSpec&, const RunRecord& r, double) { return r.time_solve; }});
    registry.add({"time_to_solution", "assembly, format conversion and solve: what the user waits for", "s", false,
                  [](const CaseSpec&, const RunRecord& r, double) {
                      return r.time_assembly.total() + r.time_operator + r.time_solve;
                  }});
    registry.add({"conversion_seconds", "building the operator in its format from the assembled matrix", "s", false,
                  [](const CaseSpec&, const RunRecord& r, double) { return r.time_operator; }});
}

/// The metrics of one operator application.
void add_spmv_metrics(NamedRegistry<StudyMetric>& registry)
{
    registry.add({"spmv_seconds", "the median time of one operator application", "s", false,
                  [](const CaseSpec&, const RunRecord& r, double) { return spmv_seconds(r); }});
    registry.add({"spmv_GFLOPs", "2 nnz / the median SpMV time", "GFLOP/s", true,
                  [](const CaseSpec&, const RunRecord& r, double) {
                      const double s = spmv_seconds(r);
                      return s > 0 ? 2.0 * static_cast<double>(r.nnz) / s * 1e-9 : 0.0;
                  }});
    registry.add({"spmv_GBps", "the SpMV's minimal bytes / its median time", "GB/s", true,
                  [](const CaseSpec&, const RunRecord& r, double) {
                      const double s = spmv_seconds(r);
                      return s > 0 ? static_cast<double>(r.spmv_min_bytes) / s * 1e-9 : 0.0;
                  }});
    registry.add({"spmv_percent_of_copy", "the SpMV's effective bandwidth in percent of the measured copy bandwidth",
                  "%", true, [](const CaseSpec&, const RunRecord& r, double copy_bandwidth) {
                      const double s = spmv_seconds(r);
                      return s > 0 && copy_bandwidth > 0 ? 100.0 * r.spmv_min_bytes / s / copy_bandwidth : 0.0;
                  }});
}

/// The registry's entries.
NamedRegistry<StudyMetric> make_metrics()
{
    NamedRegistry<StudyMetric> registry("study metric");
    add_solve_metrics(registry);
    add_spmv_metrics(registry);
    return registry;
}

}  // namespace

const NamedRegistry<StudyMetric>& study_metrics()
{
    static const NamedRegistry<StudyMetric> registry = make_metrics();
    return registry;
}

bool metric_better(const StudyMetric& metric, double a, double b)
{
    if (a <= 0) return false;
    if (b <= 0) return true;
    return metric.higher_is_better ? a > b : a < b;
}

}  // namespace gpufem
