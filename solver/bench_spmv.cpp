#include "solver/bench_spmv.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "assembly/poisson_assembly.hpp"
#include "linalg/format_build.hpp"
#include "linalg/interval_timer.hpp"
#include "mesh/mesh_source.hpp"
#include "solver/output_files.hpp"
#include "solver/run_case.hpp"

namespace gpufem {
namespace {

double median(std::vector<double> v)
{
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

/// Copy bandwidth (bytes read + written per second), median of 20 copies of a buffer far
/// larger than the caches.
double measure_copy_bandwidth(const ExecPtr& exec)
{
    const std::size_t bytes = exec->is_cuda() ? (std::size_t(1) << 30) : (std::size_t(1) << 28);
    Array<char> a(exec, bytes), b(exec, bytes);
    copy_bytes(*exec, b.data(), *exec, a.data(), bytes);  // first touch / warm-up
    auto timer = make_interval_timer(exec);
    for (int i = 0; i < 20; ++i) {
        timer->start();
        copy_bytes(*exec, i % 2 ? a.data() : b.data(), *exec, i % 2 ? b.data() : a.data(), bytes);
        timer->stop();
    }
    return 2.0 * bytes / median(timer->seconds());
}

template <typename V>
std::vector<SpmvBenchRow> bench_typed(const CaseSpec& spec, const SpmvBenchOptions& options,
                                      const ExecPtr& exec, const Csr<V>& matrix, double copy_bw)
{
    std::vector<std::string> formats = options.formats;
    if (formats.empty())
        for (const auto& name : format_names())
            if (exec->is_cuda() || name.rfind("cusparse", 0) != 0) formats.push_back(name);
    // csr first: it is the reference for correctness and the break-even count.
    std::stable_partition(formats.begin(), formats.end(), [](const std::string& f) { return f == "csr"; });
    if (formats.empty() || formats.front() != "csr") formats.insert(formats.begin(), "csr");

    std::mt19937 rng(12345);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    const std::size_t n = matrix.cols;
    const std::size_t copies =
        std::clamp<std::size_t>((std::size_t(256) << 20) / std::max<std::size_t>(1, n * sizeof(V)), 2, 64);
    std::vector<Array<V>> xs;
    for (std::size_t c = 0; c < copies; ++c) {
        std::vector<V> h(n);
        for (auto& v : h) v = static_cast<V>(dist(rng));
        xs.push_back(Array<V>::from_host(exec, h));
    }
    Array<V> y(exec, matrix.rows);

    std::vector<SpmvBenchRow> rows;
    std::vector<V> reference;
    double csr_seconds = 0;
    for (const std::string& name : formats) {
        SpmvBenchRow row;
        row.format = name;
        spdlog::info("bench spmv: {}", name);
        try {
            const FormatBuild<V> f = build_format<V>(name, matrix.clone_to(exec), spec.format_options);
            row.convert_seconds = f.convert_seconds;
            row.host_steps = f.host_steps;
            row.bytes_stored = f.op->bytes_stored();
            row.min_bytes = f.op->spmv_min_bytes();
            apply_in_original_order(f, V(1), xs[0], V(0), y);
            const auto y_check = y.to_host();
            if (name == "csr") {
                reference = y_check;
            } else {
                double diff = 0, scale = 0;
                for (std::size_t i = 0; i < y_check.size(); ++i) {
                    diff = std::max(diff, std::abs(double(y_check[i]) - double(reference[i])));
                    scale = std::max(scale, std::abs(double(reference[i])));
                }
                row.max_rel_error = scale > 0 ? diff / scale : diff;
            }
            for (int i = 0; i < options.warmup; ++i) f.op->apply(xs[i % copies], y);
            auto timer = make_interval_timer(exec);
            for (int i = 0; i < options.repeats; ++i) {
                timer->start();
                f.op->apply(xs[i % copies], y);
                timer->stop();
            }
            row.median_seconds = median(timer->seconds());
            row.parameters = f.op->parameters();
            row.gflops = 2.0 * matrix.nnz() / row.median_seconds * 1e-9;
            row.effective_gbps = row.min_bytes / row.median_seconds * 1e-9;
            row.percent_of_copy = 100.0 * row.min_bytes / row.median_seconds / copy_bw;
            if (name == "csr") csr_seconds = row.median_seconds;
        } catch (const std::exception& e) {
            row.error = e.what();
            spdlog::warn("bench spmv: {}: {}", name, row.error);
        }
        rows.push_back(row);
    }
    double cusparse_seconds = 0;
    for (const auto& r : rows)
        if (r.format == "cusparse" && r.error.empty()) cusparse_seconds = r.median_seconds;
    for (auto& r : rows) {
        if (!r.error.empty()) continue;
        if (cusparse_seconds > 0) r.speedup_vs_cusparse = cusparse_seconds / r.median_seconds;
        if (r.format == "csr") r.break_even_spmvs = 0;
        else if (r.median_seconds < csr_seconds)
            r.break_even_spmvs = r.convert_seconds / (csr_seconds - r.median_seconds);
    }
    return rows;
}

std::string table(const std::vector<SpmvBenchRow>& rows)
{
    std::string t = fmt::format("{:<14} {:>10} {:>10} {:>11} {:>8} {:>8} {:>7} {:>8} {:>11} {:>9}\n",
                                "format", "MB stored", "convert s", "SpMV us", "GFLOP/s",
                                "GB/s", "% copy", "vs cuSP", "break-even", "rel.err");
    for (const auto& r : rows) {
        if (!r.error.empty()) {
            t += fmt::format("{:<14} {}\n", r.format, r.error);
            continue;
        }
        t += fmt::format("{:<14} {:>10.1f} {:>10.4f} {:>11.2f} {:>8.1f} {:>8.1f} {:>7.1f} {:>8} {:>11} {:>9.1e}\n",
                         r.format, r.bytes_stored / 1e6, r.convert_seconds, r.median_seconds * 1e6,
                         r.gflops, r.effective_gbps, r.percent_of_copy,
                         r.speedup_vs_cusparse > 0 ? fmt::format("{:.2f}x", r.speedup_vs_cusparse) : "-",
                         r.break_even_spmvs < 0 ? "never" : fmt::format("{:.0f}", std::ceil(r.break_even_spmvs)),
                         r.max_rel_error);
    }
    return t;
}

}  // namespace

std::vector<SpmvBenchRow> run_spmv_bench(const CaseSpec& spec, const SpmvBenchOptions& options)
{
    if (options.repeats < 50) throw std::invalid_argument("bench spmv: --repeats must be >= 50");
    const std::string backend = resolve_backend(spec.backend);
    const ExecPtr exec = backend == "cuda" ? Executor::create_cuda(0) : Executor::create_cpu();
    const Mesh mesh = load_mesh(spec.mesh);
    spdlog::info("bench spmv: {} cells, {} nodes; assembling on {}", mesh.num_cells(),
                 mesh.num_nodes(), exec->device_name());
    const double copy_bw = measure_copy_bandwidth(exec);

    std::vector<SpmvBenchRow> rows;
    index_type n = 0;
    std::size_t nnz = 0;
    if (spec.precision == "float") {
        auto system = assemble_poisson<float>(exec, mesh, spec.problem);
        n = system.matrix.rows, nnz = system.matrix.nnz();
        rows = bench_typed<float>(spec, options, exec, system.matrix, copy_bw);
    } else {
        auto system = assemble_poisson<double>(exec, mesh, spec.problem);
        n = system.matrix.rows, nnz = system.matrix.nnz();
        rows = bench_typed<double>(spec, options, exec, system.matrix, copy_bw);
    }

    const std::string header = fmt::format(
        "SpMV benchmark: {} ({}), {} rows, {} non-zeros ({:.1f} per row), {}, {} int32\n"
        "device {}; copy bandwidth (read + write) {:.1f} GB/s; median of {} SpMVs after {} "
        "warm-up, x rotated over copies\n",
        spec.name, mesh.source, n, nnz, double(nnz) / std::max<index_type>(n, 1), spec.precision,
        backend, exec->device_name(), copy_bw * 1e-9, options.repeats, options.warmup);
    fmt::print("{}{}", header, table(rows));
    for (const auto& r : rows)
        if (!r.parameters.empty() || !r.host_steps.empty())
            fmt::print("  {}: {}{}\n", r.format, r.parameters,
                       r.host_steps.empty() ? "" : " [host: " + r.host_steps + "]");

    nlohmann::json json = {{"case", spec.resolved},
                           {"device", exec->device_name()},
                           {"backend", backend},
                           {"precision", spec.precision},
                           {"rows", n},
                           {"nnz", nnz},
                           {"copy_bandwidth_GBps", copy_bw * 1e-9},
                           {"repeats", options.repeats},
                           {"formats", nlohmann::json::array()}};
    std::string csv = "format,bytes_stored,min_bytes,convert_s,spmv_median_s,gflops,effective_GBps,"
                      "percent_of_copy,speedup_vs_cusparse,break_even_spmvs,max_rel_error,parameters,error\n";
    for (const auto& r : rows) {
        json["formats"].push_back({{"format", r.format},
                                   {"parameters", r.parameters},
                                   {"host_steps", r.host_steps},
                                   {"bytes_stored", r.bytes_stored},
                                   {"min_bytes", r.min_bytes},
                                   {"convert_seconds", r.convert_seconds},
                                   {"spmv_median_seconds", r.median_seconds},
                                   {"gflops", r.gflops},
                                   {"effective_GBps", r.effective_gbps},
                                   {"percent_of_copy", r.percent_of_copy},
                                   {"speedup_vs_cusparse", r.speedup_vs_cusparse},
                                   {"break_even_spmvs", r.break_even_spmvs},
                                   {"max_rel_error", r.max_rel_error},
                                   {"error", r.error}});
        csv += fmt::format("{},{},{},{:.6e},{:.6e},{:.3f},{:.3f},{:.2f},{:.3f},{:.1f},{:.2e},\"{}\",\"{}\"\n",
                           r.format, r.bytes_stored, r.min_bytes, r.convert_seconds,
                           r.median_seconds, r.gflops, r.effective_gbps, r.percent_of_copy,
                           r.speedup_vs_cusparse, r.break_even_spmvs, r.max_rel_error, r.parameters,
                           r.error);
    }
    RunOptions run_options;
    run_options.output_dir = options.output_dir;
    StagedOutputs outputs(output_folder(spec, run_options));
    outputs.write_text("bench_spmv.csv", csv);
    outputs.write_text("bench_spmv.json", json.dump(2) + "\n");
    outputs.commit();
    spdlog::info("wrote bench_spmv.csv, bench_spmv.json to {}", outputs.dir().string());
    return rows;
}

}  // namespace gpufem
