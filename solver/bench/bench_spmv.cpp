#include "solver/bench/bench_spmv.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "assembly/operator_levels.hpp"
#include "linalg/bdia.hpp"
#include "linalg/blas1.hpp"
#include "linalg/format_build.hpp"
#include "linalg/interval_timer.hpp"
#include "solver/bench/bench_common.hpp"
#include "solver/bench/bench_csr_sweep.hpp"
#include "solver/bench/bench_staircase_sweep.hpp"
#include "solver/bench/bench_formats.hpp"
#include "solver/krylov/cg.hpp"
#include "solver/run/output_files.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/run/run_case.hpp"

namespace gpufem {
namespace {

/// Whether every format asked for is matrix-free: the benchmark then assembles no matrix (at
/// a high degree the matrix may not fit where the operator does) and has no csr reference.
bool matrix_free_only(const SpmvBenchOptions& options, const FormatOptions& base, const ExecPtr& exec)
{
    const std::vector<BenchFormat> entries = bench_formats(options.formats, base, exec->backend());
    return !options.csr_sweep && !options.staircase_sweep && !entries.empty() &&
           std::all_of(entries.begin(), entries.end(), [](const BenchFormat& f) { return f.choice.matrix_free(); });
}

/// The benchmark's entries, csr first: it is the reference for correctness and the
/// break-even count (none when every format is matrix-free: the first is then the reference).
std::vector<BenchFormat> bench_entries(const SpmvBenchOptions& options, const FormatOptions& base,
                                       const ExecPtr& exec)
{
    std::vector<BenchFormat> entries = bench_formats(options.formats, base, exec->backend());
    if (matrix_free_only(options, base, exec)) return entries;
    const FormatEntry& csr = baseline_format();
    std::stable_partition(entries.begin(), entries.end(),
                          [&](const BenchFormat& f) { return f.choice.format == &csr && f.label == csr.name; });
    if (entries.empty() || entries.front().choice.format != &csr)
        entries.insert(entries.begin(), BenchFormat{OperatorChoice{&csr, nullptr}, csr.name, base});
    return entries;
}

/// Merged CG iterations per second on op: a short warm-up solve (allocations, CUDA graph),
/// then `iterations` iterations towards an unreachable tolerance, synchronised wall time.
template <typename V>
double cg_rate(const LinearOperator<V>& op, const Array<V>& b, int iterations)
{
    const ExecPtr& exec = op.executor();
    Array<V> x(exec, b.size());
    SolveOptions solve;
    solve.tolerance = 1e-300;
    solve.max_iterations = 10;
    fill(x, V(0));
    cg(op, b, x, solve);
    fill(x, V(0));
    solve.max_iterations = iterations;
    exec->synchronize();
    const auto start = std::chrono::steady_clock::now();
    const SolveResult result = cg(op, b, x, solve);
    exec->synchronize();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return seconds > 0 ? result.iterations / seconds : 0.0;
}

/// max |y - reference| / max |reference|.
template <typename V>
double max_relative_error(const std::vector<V>& y, const std::vector<V>& reference)
{
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        diff = std::max(diff, std::abs(double(y[i]) - double(reference[i])));
        scale = std::max(scale, std::abs(double(reference[i])));
    }
    return scale > 0 ? diff / scale : diff;
}

/// Builds one entry and measures it into row. reference holds the first entry's y on xs[0]
/// (csr's, or without an assembled matrix the first matrix-free format's): that entry
/// (is_reference) sets it; without it (it failed) the error is NaN. matrix: the assembled
/// matrix, null when every entry is matrix-free.
template <typename V>
void measure_format(const BenchFormat& entry, const SpmvBenchOptions& options, const ExecPtr& exec,
                    const Discretisation<V>& disc, const Csr<V>* matrix,
                    const std::vector<Array<V>>& xs, double copy_bw, bool is_reference,
                    std::vector<V>& reference, SpmvBenchRow& row)
{
    if (!entry.choice.matrix_free() && !matrix) throw std::logic_error("bench spmv: an assembled format without a matrix");
    const FormatBuild<V> built =
        entry.choice.matrix_free()
            ? std::move(build_system(exec, disc, entry.choice, entry.options).op)
            : build_format<V>(*entry.choice.format, matrix->clone_to(exec), entry.options);
    const index_type rows = static_cast<index_type>(xs[0].size());
    const double nnz = matrix ? static_cast<double>(matrix->nnz()) : 0.0;
    const LinearOperator<V>& op = *built.op;
    row.convert_seconds = built.convert_seconds;
    row.host_steps = built.host_steps;
    row.bytes_stored = op.bytes_stored();
    row.min_bytes = op.spmv_min_bytes();
    Array<V> y(exec, rows);
    apply_in_original_order(built, V(1), xs[0], V(0), y);
    if (is_reference) {
        reference = y.to_host();
    } else {
        row.max_rel_error = reference.empty() ? std::numeric_limits<double>::quiet_NaN()
                                              : max_relative_error(y.to_host(), reference);
    }
    for (int i = 0; i < options.warmup; ++i) op.apply(xs[i % xs.size()], y);
    auto timer = make_interval_timer(exec);
    for (int i = 0; i < options.repeats; ++i) {
        timer->start();
        op.apply(xs[i % xs.size()], y);
        timer->stop();
    }
    row.median_seconds = median(timer->seconds());
    row.parameters = op.parameters();
    row.gdofs = double(rows) / row.median_seconds * 1e-9;
    row.gflops = 2.0 * nnz / row.median_seconds * 1e-9;
    row.band_gflops = 2.0 * double(bdia_band_entries(op)) / row.median_seconds * 1e-9;
    row.effective_gbps = row.min_bytes / row.median_seconds * 1e-9;
    row.percent_of_copy = 100.0 * row.min_bytes / row.median_seconds / copy_bw;
    if (options.cg_iterations > 0)
        row.cg_iterations_per_second = cg_rate(op, xs[1], options.cg_iterations);
}

/// Speedups against cuSPARSE and break-even SpMVs against csr (the first row).
void compare_rows(std::vector<SpmvBenchRow>& rows)
{
    double cusparse_seconds = 0;
    for (const auto& r : rows)
        if (r.vendor_baseline && r.error.empty()) cusparse_seconds = r.median_seconds;
    // No csr row when every format is matrix-free: no break-even counts then.
    const bool csr_first = !rows.empty() && !rows.front().matrix_free;
    const double csr_seconds = !csr_first || !rows.front().error.empty() ? 0 : rows.front().median_seconds;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        SpmvBenchRow& r = rows[k];
        if (!r.error.empty()) continue;
        if (cusparse_seconds > 0) r.speedup_vs_cusparse = cusparse_seconds / r.median_seconds;
        if (k == 0 && csr_first) r.break_even_spmvs = 0;
        else if (r.median_seconds < csr_seconds)
            r.break_even_spmvs = r.convert_seconds / (csr_seconds - r.median_seconds);
    }
}

template <typename V>
std::vector<SpmvBenchRow> bench_typed(const CaseSpec& spec, const SpmvBenchOptions& options,
                                      const ExecPtr& exec, const Discretisation<V>& disc,
                                      const Csr<V>* matrix, double copy_bw)
{
    const std::vector<BenchFormat> entries = bench_entries(options, spec.format_options, exec);
    const index_type n = matrix ? matrix->cols : disc.space().size();
    const std::vector<Array<V>> xs = bench_inputs<V>(exec, n);
    std::vector<SpmvBenchRow> rows;
    std::vector<V> reference;
    for (const BenchFormat& entry : entries) {
        const bool is_reference = &entry == &entries.front();
        SpmvBenchRow row;
        row.degree = spec.mesh.degree;
        row.refine = spec.mesh.refine;
        row.unknowns = n;
        row.format = entry.label;
        row.matrix_free = entry.choice.matrix_free();
        row.vendor_baseline = entry.choice.format && entry.choice.format->vendor_baseline;
        spdlog::info("bench spmv: {}", entry.label);
        try {
            measure_format(entry, options, exec, disc, matrix, xs, copy_bw, is_reference, reference, row);
        } catch (const std::exception& e) {
            row.error = e.what();
            spdlog::warn("bench spmv: {}: {}", entry.label, row.error);
        }
        rows.push_back(row);
    }
    compare_rows(rows);
    return rows;
}

std::string table(const std::vector<SpmvBenchRow>& rows)
{
    std::string t = fmt::format("{:<22} {:>7} {:>9} {:>9} {:>9} {:>7} {:>8} {:>9} {:>7} {:>6} {:>7} {:>10} {:>8} {:>8}\n",
                                "format", "B/row", "MB stored", "convert s", "SpMV us", "GDOF/s", "GFLOP/s",
                                "band GF/s", "GB/s", "% copy", "vs cuSP", "break-even", "CG it/s",
                                "rel.err");
    for (const auto& r : rows) {
        if (!r.error.empty()) {
            t += fmt::format("{:<22} {}\n", r.format, r.error);
            continue;
        }
        t += fmt::format("{:<22} {:>7.1f} {:>9.1f} {:>9.4f} {:>9.2f} {:>7.2f} {:>8.1f} {:>9} {:>7.1f} {:>6.1f} {:>7} {:>10} {:>8} {:>8.1e}\n",
                         r.format, double(r.bytes_stored) / std::max<long long>(r.unknowns, 1),
                         r.bytes_stored / 1e6, r.convert_seconds, r.median_seconds * 1e6, r.gdofs, r.gflops,
                         r.band_gflops > 0 ? fmt::format("{:.1f}", r.band_gflops) : "-", r.effective_gbps, r.percent_of_copy,
                         r.speedup_vs_cusparse > 0 ? fmt::format("{:.2f}x", r.speedup_vs_cusparse) : "-",
                         r.break_even_spmvs < 0 ? "never" : fmt::format("{:.0f}", std::ceil(r.break_even_spmvs)),
                         r.cg_iterations_per_second > 0 ? fmt::format("{:.0f}", r.cg_iterations_per_second) : "-",
                         r.max_rel_error);
    }
    return t;
}

nlohmann::json row_json(const SpmvBenchRow& r)
{
    return {{"degree", r.degree},
            {"refine", r.refine},
            {"unknowns", r.unknowns},
            {"format", r.format},
            {"matrix_free", r.matrix_free},
            {"parameters", r.parameters},
            {"host_steps", r.host_steps},
            {"bytes_stored", r.bytes_stored},
            {"min_bytes", r.min_bytes},
            {"convert_seconds", r.convert_seconds},
            {"spmv_median_seconds", r.median_seconds},
            {"gdofs", r.gdofs},
            {"gflops", r.gflops},
            {"band_gflops", r.band_gflops},
            {"effective_GBps", r.effective_gbps},
            {"percent_of_copy", r.percent_of_copy},
            {"speedup_vs_cusparse", r.speedup_vs_cusparse},
            {"break_even_spmvs", r.break_even_spmvs},
            {"cg_iterations_per_second", r.cg_iterations_per_second},
            {"max_rel_error", r.max_rel_error},
            {"error", r.error}};
}

std::string csv(const std::vector<SpmvBenchRow>& rows)
{
    std::string text = "degree,refine,unknowns,format,bytes_stored,min_bytes,convert_s,spmv_median_s,"
                       "gflops,band_gflops,effective_GBps,percent_of_copy,speedup_vs_cusparse,"
                       "break_even_spmvs,cg_iterations_per_s,max_rel_error,parameters,error\n";
    for (const auto& r : rows)
        text += fmt::format("{},{},{},{},{},{},{:.6e},{:.6e},{:.3f},{:.3f},{:.3f},{:.2f},{:.3f},{:.1f},{:.1f},{:.2e},\"{}\",\"{}\"\n",
                            r.degree, r.refine, r.unknowns, r.format, r.bytes_stored, r.min_bytes,
                            r.convert_seconds, r.median_seconds, r.gflops, r.band_gflops, r.effective_gbps,
                            r.percent_of_copy, r.speedup_vs_cusparse, r.break_even_spmvs,
                            r.cg_iterations_per_second, r.max_rel_error, r.parameters, r.error);
    return text;
}

/// What one case's benchmark measured: the format rows, or a sweep's results, and the matrix's size.
struct PointResults {
    std::vector<SpmvBenchRow> rows;
    CsrSweepResult sweep;
    StaircaseSweepResult staircase;
    index_type n = 0;
    std::size_t nnz = 0;
};

/// Assembles the case's matrix in its precision and runs the benchmark or the sweep asked for.
PointResults measure_point(const CaseSpec& spec, const SpmvBenchOptions& options, const ExecPtr& exec,
                           const CaseMesh& loaded, double copy_bw)
{
    PointResults out;
    const auto bench = [&]<typename V>(V) {
        const auto disc = make_discretisation<V>(spec, loaded);
        if (matrix_free_only(options, spec.format_options, exec)) {
            out.n = disc->space().size();
            out.rows = bench_typed<V>(spec, options, exec, *disc, nullptr, copy_bw);
            return;
        }
        const LinearSystem<V> system = disc->assemble(exec);
        if (system.wide_matrix)
            throw std::runtime_error(fmt::format(
                "the matrix has {} non-zeros, past 2,147,483,647: the SpMV benchmark compares formats built "
                "from 32-bit row offsets; use a smaller case (gpufem run times csr with 64-bit offsets)",
                system.wide_matrix->nnz()));
        out.n = system.matrix.rows, out.nnz = system.matrix.nnz();
        if (options.csr_sweep)
            out.sweep = run_csr_sweep<V>(system.matrix, options);
        else if (options.staircase_sweep)
            out.staircase = run_staircase_sweep<V>(system.matrix, options, copy_bw);
        else
            out.rows = bench_typed<V>(spec, options, exec, *disc, &system.matrix, copy_bw);
    };
    if (spec.precision == Precision::float32) {
        bench(float{});
    } else {
        bench(double{});
    }
    return out;
}

/// The run's settings every output of the point records.
nlohmann::json point_settings(const CaseSpec& spec, const ExecPtr& exec, const std::string& backend)
{
    return {{"case", spec.resolved},
            {"device", exec->device_name()},
            {"backend", backend},
            {"precision", precision_name(spec.precision)}};
}

/// Prints the format table and writes bench_spmv.csv and bench_spmv.json into folder.
void write_format_rows(const SpmvBenchOptions& options, const PointResults& point,
                       nlohmann::json json, const std::string& matrix_line, double copy_bw,
                       const std::filesystem::path& folder)
{
    const std::vector<SpmvBenchRow>& rows = point.rows;
    const std::string header = fmt::format(
        "SpMV benchmark: {}; median of {} SpMVs after {} warm-up, x rotated over copies; CG it/s: "
        "merged CG, {} iterations\n",
        matrix_line, options.repeats, options.warmup, options.cg_iterations);
    fmt::print("{}{}", header, table(rows));
    for (const auto& r : rows)
        if (!r.parameters.empty() || !r.host_steps.empty())
            fmt::print("  {}: {}{}\n", r.format, r.parameters,
                       r.host_steps.empty() ? "" : " [host: " + r.host_steps + "]");
    std::fflush(stdout);
    json["rows"] = point.n;
    json["nnz"] = point.nnz;
    json["copy_bandwidth_GBps"] = copy_bw * 1e-9;
    json["repeats"] = options.repeats;
    json["cg_iterations"] = options.cg_iterations;
    json["formats"] = nlohmann::json::array();
    for (const auto& r : rows) json["formats"].push_back(row_json(r));
    StagedOutputs outputs(folder);
    outputs.write_text("bench_spmv.csv", csv(rows));
    outputs.write_text("bench_spmv.json", json.dump(2) + "\n");
    outputs.commit();
    spdlog::info("wrote bench_spmv.csv, bench_spmv.json to {}", outputs.dir().string());
}

/// One case (no sweep): assemble, benchmark (or, with options.csr_sweep, sweep the csr
/// kernel's parameters: no rows), print, write into folder.
std::vector<SpmvBenchRow> bench_point(const CaseSpec& spec, const SpmvBenchOptions& options,
                                      const ExecPtr& exec, const std::string& backend,
                                      double copy_bw, const std::filesystem::path& folder)
{
    const CaseMesh loaded = load_case_mesh(spec);
    const PointResults point = measure_point(spec, options, exec, loaded, copy_bw);
    const index_type n = point.n;
    const std::size_t nnz = point.nnz;
    const std::string entries = nnz == 0 ? std::string("matrix-free formats only, no matrix assembled")
                                         : fmt::format("{} non-zeros ({:.1f} per row)", nnz,
                                                       double(nnz) / std::max<index_type>(n, 1));
    const std::string matrix_line = fmt::format(
        "{} ({}), {}, {} rows, {}, {}, {} int32\n"
        "device {}; copy bandwidth (read + write) {:.1f} GB/s",
        spec.name, loaded.mesh.source, spec.matrix ? "external system" : fmt::format("degree {}", spec.mesh.degree), n,
        entries, precision_name(spec.precision), backend, exec->device_name(), copy_bw * 1e-9);
    if (options.staircase_sweep) {
        write_staircase_sweep(point.staircase, "Staircase SELL experiments (Wikberg 2025): " + matrix_line + "\n",
                              point_settings(spec, exec, backend), folder);
        return point.rows;
    }
    if (options.csr_sweep) {
        write_csr_sweep(point.sweep, "CSR parameter sweep (Reguly & Giles 2012, sections 5-6): " + matrix_line + "\n",
                        point_settings(spec, exec, backend), copy_bw, folder);
        return point.rows;
    }
    write_format_rows(options, point, point_settings(spec, exec, backend), matrix_line, copy_bw, folder);
    return point.rows;
}

}  // namespace

std::string spmv_sweep_table(const std::vector<SpmvBenchRow>& rows)
{
    std::string t = fmt::format("{:>6} {:>6} {:>9} {:<22} {:>7} {:>9} {:>6} {:>8} {:>9} {:>9}\n",
                                "degree", "refine", "unknowns", "format", "B/row", "SpMV us",
                                "% copy", "CG it/s", "SpMV gain", "CG gain");
    for (std::size_t first = 0; first < rows.size();) {
        std::size_t last = first;
        while (last < rows.size() && rows[last].degree == rows[first].degree &&
               rows[last].refine == rows[first].refine)
            ++last;
        // The best assembled format of this point: highest CG it/s, else fastest SpMV.
        const SpmvBenchRow* best = nullptr;
        for (std::size_t k = first; k < last; ++k) {
            const SpmvBenchRow& r = rows[k];
            if (r.matrix_free || !r.error.empty()) continue;
            const bool better = !best || (r.cg_iterations_per_second > 0
                                              ? r.cg_iterations_per_second > best->cg_iterations_per_second
                                              : r.median_seconds < best->median_seconds);
            if (better) best = &r;
        }
        for (std::size_t k = first; k < last; ++k) {
            const SpmvBenchRow& r = rows[k];
            if (!r.error.empty()) continue;
            const std::string spmv_gain =
                best ? fmt::format("{:.2f}x", best->median_seconds / r.median_seconds) : "-";
            const std::string cg_gain =
                best && best->cg_iterations_per_second > 0 && r.cg_iterations_per_second > 0
                    ? fmt::format("{:.2f}x", r.cg_iterations_per_second / best->cg_iterations_per_second)
                    : "-";
            t += fmt::format("{:>6} {:>6} {:>9} {:<22} {:>7.1f} {:>9.2f} {:>6.1f} {:>8} {:>9} {:>9}{}\n",
                             r.degree, r.refine, r.unknowns, r.format,
                             double(r.bytes_stored) / std::max<long long>(r.unknowns, 1),
                             r.median_seconds * 1e6, r.percent_of_copy,
                             r.cg_iterations_per_second > 0 ? fmt::format("{:.0f}", r.cg_iterations_per_second) : "-",
                             spmv_gain, cg_gain, &r == best ? "  <- best assembled" : "");
        }
        first = last;
    }
    return t;
}

std::vector<SpmvBenchRow> run_spmv_bench(const CaseSpec& spec, const SpmvBenchOptions& options)
{
    if (options.repeats < 50) throw std::invalid_argument("bench spmv: --repeats must be >= 50");
    if (options.cg_iterations < 0) throw std::invalid_argument("bench spmv: CG iterations must be >= 0");
    const ExecPtr exec = make_executor(spec.backend);
    const std::string backend = backend_name(exec->backend());
    if (options.csr_sweep) {
        // Refused before any mesh is built: on the CPU the parameters change nothing.
        require_csr_sweep_backend(*exec);
        if (!options.formats.empty())
            throw std::invalid_argument("bench spmv --csr-sweep times the csr kernel only; leave out --formats");
    }
    if (options.staircase_sweep) {
        if (options.csr_sweep) throw std::invalid_argument("bench spmv: --csr-sweep or --staircase-sweep, not both");
        if (!exec->is_cuda())
            throw std::invalid_argument("bench spmv --staircase-sweep runs on the cuda backend (streams, "
                                        "block sizes and cuSPARSE are what it measures)");
        if (!options.formats.empty())
            throw std::invalid_argument("bench spmv --staircase-sweep times staircase and cusparse-sell only; "
                                        "leave out --formats");
    }
    // The format list is checked before any mesh is built.
    bench_entries(options, spec.format_options, exec);
    const double copy_bw = measure_copy_bandwidth(exec);
    RunOptions run_options;
    run_options.output_dir = options.output_dir;
    const std::filesystem::path folder = output_folder(spec, run_options);
    if (!is_sweep(spec)) return bench_point(spec, options, exec, backend, copy_bw, folder);
    if (spec.kappas.size() > 1)
        throw std::invalid_argument("bench spmv: the case lists several kappas (the matrix's pattern and the "
                                    "SpMV do not change with them); pick one with --set problem.kappa=...");

    std::vector<SpmvBenchRow> rows;
    for (const CaseSpec& point : expand_sweep(spec)) {
        const auto sub = folder / fmt::format("d{}_r{}", point.mesh.degree, point.mesh.refine);
        const auto point_rows = bench_point(point, options, exec, backend, copy_bw, sub);
        rows.insert(rows.end(), point_rows.begin(), point_rows.end());
    }
    if (options.csr_sweep || options.staircase_sweep) return rows;  // each point wrote its own files
    const std::string summary = spmv_sweep_table(rows);
    fmt::print("\nSweep summary: {}, {}, {}; gains against the best assembled format of each "
               "point (CG it/s: merged CG)\n{}",
               spec.name, precision_name(spec.precision), exec->device_name(), summary);
    nlohmann::json json = {{"case", spec.resolved},
                           {"device", exec->device_name()},
                           {"backend", backend},
                           {"precision", precision_name(spec.precision)},
                           {"copy_bandwidth_GBps", copy_bw * 1e-9},
                           {"repeats", options.repeats},
                           {"cg_iterations", options.cg_iterations},
                           {"rows", nlohmann::json::array()}};
    for (const auto& r : rows) json["rows"].push_back(row_json(r));
    StagedOutputs outputs(folder);
    outputs.write_text("bench_sweep.csv", csv(rows));
    outputs.write_text("bench_sweep.json", json.dump(2) + "\n");
    outputs.write_text("bench_sweep.txt", summary);
    outputs.commit();
    spdlog::info("wrote bench_sweep.csv, bench_sweep.json, bench_sweep.txt to {}", outputs.dir().string());
    return rows;
}

}  // namespace gpufem
