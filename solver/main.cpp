// gpufem: the command line.
#include <iostream>
#include <filesystem>
#include <chrono>
#include <string>

#include <unistd.h>
#include <sstream>

#include <cmath>

#include <CLI/CLI.hpp>
#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>

#include "linalg/host_threads.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/mesh_worker.hpp"
#include "solver/bench_matrix_market.hpp"
#include "solver/bench_solver.hpp"
#include "solver/bench_spmv.hpp"
#include "solver/interrupt_cleanup.hpp"
#include "solver/pipeline.hpp"
#include "solver/progress_line.hpp"
#include "solver/case_file.hpp"
#include "solver/compare_results.hpp"
#include "solver/run_case.hpp"
#include "solver/run_sweep.hpp"

namespace {

/// "a,b,,c" -> {"a", "b", "c"}: a comma-separated command-line list.
std::vector<std::string> split_list(const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

/// The case file read and validated, then --backend applied (when given) over its backend.
gpufem::CaseSpec parse_with_backend(const std::string& file, const std::vector<std::string>& overrides,
                                    const std::string& backend)
{
    gpufem::CaseSpec spec = gpufem::parse_case_file(file, overrides);
    if (!backend.empty())
        gpufem::set_backend(spec, gpufem::parse_enum(gpufem::backend_choice_names, backend, "backend"));
    return spec;
}

/// The program that runs Gmsh: gpufem-mesh-worker next to this program when it is there (it
/// starts without gpufem's CUDA and VTK libraries), else this program (--mesh-worker).
std::string mesh_worker_program()
{
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
        const std::filesystem::path worker = self.parent_path() / "gpufem-mesh-worker";
        if (::access(worker.c_str(), X_OK) == 0) return worker.string();
    }
    return "/proc/self/exe";
}

/// Whether the case's kernels run on the CPU backend (auto: when no CUDA device is visible).
/// Only such runs re-execute gpufem for passively waiting OpenMP threads
/// (ensure_passive_thread_wait): a second load of the program's libraries costs 0.15-0.25 s,
/// a loss to a GPU run, whose host threads mostly wait for the device anyway.
bool solves_on_cpu(const gpufem::CaseSpec& spec)
{
    // A cuda backend without a device is an error later, not a CPU run.
    return spec.backend != gpufem::BackendChoice::cuda && !gpufem::uses_cuda(spec.backend);
}

}  // namespace

int main(int argc, char** argv)
{
    using namespace gpufem;
    const auto started = std::chrono::steady_clock::now();
    if (argc == 2 && std::string(argv[1]) == mesh_worker_argument) return run_mesh_worker();
    install_interrupt_cleanup();
    set_mesh_worker(mesh_worker_program());
    CLI::App app{"gpufem: finite-element Poisson solver for NVIDIA GPUs (CPU fallback).\n"
                 "Solves -div(kappa grad u) = f from a YAML case file and writes result.vtu,\n"
                 "report.json and spmv_timings.csv."};
    app.require_subcommand(1);
    std::vector<std::string> backend_names;  // auto, cpu, cuda: from the enum's one table
    for (const auto& entry : backend_choice_names) backend_names.emplace_back(entry.name);
    app.set_version_flag("--version", "gpufem 0.1.0");

    auto* run = app.add_subcommand("run", "Run a case file end to end");
    std::string case_file;
    std::string output_dir;
    std::string backend;
    std::vector<std::string> overrides;
    bool quiet = false;
    run->add_option("case", case_file, "The YAML case file")->required();
    run->add_option("-o,--output", output_dir,
                    "Output folder (default: next to the case file, named after it)");
    run->add_option("-b,--backend", backend, "auto | cpu | cuda (overrides the case's backend)")
        ->check(CLI::IsMember(backend_names));
    run->add_option("-s,--set", overrides,
                    "Override a case key: --set mesh.refine=3 --set solver.tolerance=1e-10 "
                    "(dotted keys, YAML values; repeatable)");
    run->add_flag("-q,--quiet", quiet, "Print only warnings, errors and the summary");
    bool dry_run = false;
    bool no_memory_check = false;
    run->add_flag("--dry-run", dry_run,
                  "Print the mesh and matrix sizes and the memory estimate of every phase, and "
                  "stop (meshes from Gmsh are meshed; nothing is assembled or written)");
    std::string export_matrix;
    run->add_option("--export-matrix", export_matrix,
                    "Also write the assembled system (A.mtx, b.mtx: after the boundary "
                    "conditions, in the original numbering) and the solution (x.mtx) as Matrix "
                    "Market into this folder");
    run->add_flag("--no-memory-check", no_memory_check,
                  "Run even when the memory estimate exceeds the free memory (warn only)");
    run->footer("\nCase file reference:\n" + case_file_reference() + "\nBuilt-in shapes:\n" +
                describe_shapes() +
                "\nExit codes: 0 converged, 1 error (nothing written), 2 outputs written but the "
                "solver did not converge.");

    auto* compare = app.add_subcommand(
        "compare", "Compare a field of two result.vtu files (e.g. two backends' runs): point data, or cell data (finite volumes)");
    std::string result_a, result_b, field = "u";
    double tolerance = -1.0;
    compare->add_option("a", result_a, "First result.vtu")->required();
    compare->add_option("b", result_b, "Second result.vtu")->required();
    compare->add_option("-f,--field", field, "Field to compare, a point field or else a cell field (default: u)");
    compare->add_option("-t,--tolerance", tolerance,
                        "Exit with 1 if the max relative difference exceeds this");

    auto* bench = app.add_subcommand("bench", "Benchmarks on a case's matrix");
    bench->require_subcommand(1);
    auto* bench_spmv = bench->add_subcommand(
        "spmv", "Every sparse format on the case's matrix: bytes, conversion time, SpMV time "
                "(median, CUDA events), GFLOP/s, GB/s, % of the measured copy bandwidth, speedup "
                "over cuSPARSE, break-even SpMVs; writes bench_spmv.csv and bench_spmv.json");
    SpmvBenchOptions bench_options;
    std::string bench_case, bench_output, bench_formats;
    std::vector<std::string> bench_overrides;
    bench_spmv->add_option("case", bench_case, "The YAML case file")->required();
    bench_spmv->add_option("-f,--formats", bench_formats,
                           "Comma-separated formats (default: all the backend offers)");
    bench_spmv->add_option("-n,--repeats", bench_options.repeats, "Timed SpMVs per format (>= 50)")
        ->check(CLI::Range(50, 1000000));
    bench_spmv->add_option("-w,--warmup", bench_options.warmup, "Untimed SpMVs before timing")
        ->check(CLI::Range(0, 1000000));
    bench_spmv->add_option("--cg-iterations", bench_options.cg_iterations,
                           "Iterations of the merged-CG column (CG it/s); 0 leaves it out")
        ->check(CLI::Range(0, 1000000));
    bench_spmv->add_option("-o,--output", bench_output, "Output folder (default: next to the case)");
    bench_spmv->add_option("-b,--backend", backend, "auto | cpu | cuda")
        ->check(CLI::IsMember(backend_names));
    bench_spmv->add_option("-s,--set", bench_overrides, "Override a case key (as for run)");
    bench_spmv->add_flag("--csr-sweep", bench_options.csr_sweep,
                         "Instead of the formats: time every csr coop x repeat x block combination "
                         "and compare the fixed rule and the tuner with the best (000_…); cuda "
                         "backend only; writes csr_sweep.csv and csr_sweep.json");
    bench_spmv->add_flag("--staircase-sweep", bench_options.staircase_sweep,
                         "Instead of the formats: 004_…'s experiments on the case's matrix: staircase over "
                         "alpha x slice height (32-1024, blocks of slice-height threads) with and without "
                         "Cuthill-McKee order, cuSPARSE SELL on the same row order, the row-length histogram; "
                         "cuda backend only; writes staircase_sweep.csv, .json and .txt");

    auto* bench_solver = bench->add_subcommand(
        "solver", "CG and BiCGSTAB, reference and merged, on the case's system: time per "
                  "iteration and its split (SpMV, vector updates, reductions), bytes per iteration "
                  "(traffic model), GB/s, % of the measured copy bandwidth, speedup of merged over "
                  "reference, cost of per-SpMV timing; writes bench_solver.csv and .json");
    SolverBenchOptions solver_bench;
    std::string solver_case, solver_output, solver_formats, solver_methods, solver_pres;
    std::vector<std::string> solver_overrides;
    bench_solver->add_option("case", solver_case, "The YAML case file")->required();
    bench_solver->add_option("-f,--formats", solver_formats,
                             "Comma-separated formats (default: the case's format)");
    bench_solver->add_option("-m,--methods", solver_methods,
                             "Comma-separated methods: cg,bicgstab (default: both; bicgstab only "
                             "with convection)");
    bench_solver->add_option("-p,--preconditioners", solver_pres,
                             "Comma-separated: none,jacobi (default: the case's)");
    bench_solver->add_option("-i,--iterations", solver_bench.iterations,
                             "Iterations of the longer timed solve (>= 20, default 200)")
        ->check(CLI::Range(20, 100000000));
    bench_solver->add_option("-n,--repeats", solver_bench.repeats,
                             "Timed solves per length (median, default 5)")
        ->check(CLI::Range(1, 100000));
    bench_solver->add_option("-o,--output", solver_output, "Output folder (default: next to the case)");
    bench_solver->add_option("-b,--backend", backend, "auto | cpu | cuda")
        ->check(CLI::IsMember(backend_names));
    bench_solver->add_option("-s,--set", solver_overrides, "Override a case key (as for run)");

    auto* bench_mtx = bench->add_subcommand(
        "mtx", "Matrix Market reading and writing speed (MB/s of text) with 1 thread and all "
               "threads, on a file or on a generated 7-point matrix");
    MatrixMarketBenchOptions mtx_bench;
    bench_mtx->add_option("--file", mtx_bench.file, "A Matrix Market file to read (default: generate one)");
    bench_mtx->add_option("--rows", mtx_bench.rows, "Rows of the generated matrix (default 2,000,000)")
        ->check(CLI::Range(1LL, 2000000000LL));
    bench_mtx->add_option("-n,--repeats", mtx_bench.repeats, "Timed reads per thread count (median, default 5)")
        ->check(CLI::Range(1, 1000));
    bench_mtx->add_option("-o,--output", mtx_bench.work_dir, "Where the written file goes (default: the temp folder)");

    int threads = 0;
    const std::string threads_help =
        "Threads of the CPU backend (default: the CPUs of the process's affinity mask, or "
        "OMP_NUM_THREADS)";
    for (CLI::App* sub : {run, bench_spmv, bench_solver, bench_mtx})
        sub->add_option("-j,--threads", threads, threads_help)->check(CLI::Range(1, 4096));

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version exit 0; a bad command line is an error like any bad input.
        return app.exit(e) == 0 ? exit_ok : exit_error;
    }
    if (threads > 0) set_host_threads(threads);
    if (bench_solver->parsed()) {
        spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
        try {
            const CaseSpec spec = parse_with_backend(solver_case, solver_overrides, backend);
            if (solves_on_cpu(spec)) ensure_passive_thread_wait(argv);
            solver_bench.formats = split_list(solver_formats);
            solver_bench.methods = split_list(solver_methods);
            solver_bench.preconditioners = split_list(solver_pres);
            solver_bench.output_dir = solver_output;
            run_solver_bench(spec, solver_bench);
            return exit_ok;
        } catch (const std::exception& e) {
            std::cerr << "gpufem: error: " << e.what() << "\n";
            return exit_error;
        }
    }
    if (bench_mtx->parsed()) {
        spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
        ensure_passive_thread_wait(argv);
        try {
            run_matrix_market_bench(mtx_bench);  // prints its table
            return exit_ok;
        } catch (const std::exception& e) {
            std::cerr << "gpufem: error: " << e.what() << "\n";
            return exit_error;
        }
    }
    if (bench_spmv->parsed()) {
        spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
        try {
            const CaseSpec spec = parse_with_backend(bench_case, bench_overrides, backend);
            if (solves_on_cpu(spec)) ensure_passive_thread_wait(argv);
            bench_options.formats = split_list(bench_formats);
            bench_options.output_dir = bench_output;
            run_spmv_bench(spec, bench_options);
            return exit_ok;
        } catch (const std::exception& e) {
            std::cerr << "gpufem: error: " << e.what() << "\n";
            return exit_error;
        }
    }
    if (compare->parsed()) {
        try {
            if (compare->count("--tolerance") > 0 && !(tolerance >= 0 && std::isfinite(tolerance))) {
                std::cerr << "gpufem: error: --tolerance must be a finite number >= 0 (got "
                          << tolerance << ")\n";
                return exit_error;
            }
            const FieldComparison c = compare_results(result_a, result_b, field);
            const char* what = c.on_cells ? "cells" : "points";
            std::cout << "field '" << field << "' over " << c.points << " " << what << ": max |a-b| = "
                      << c.max_abs << ", max |a-b| / max |a| = " << c.max_rel
                      << ", rms(a-b) = " << c.rms << "\n";
            if (c.non_finite_mismatches > 0)
                std::cout << c.non_finite_mismatches << " " << what
                          << " are NaN or infinite in one result and not in the other (the first: "
                          << (c.on_cells ? "cell " : "point ") << c.first_non_finite_mismatch << ")\n";
            if (compare->count("--tolerance") > 0 && !(c.max_rel <= tolerance)) {
                std::cerr << "gpufem: error: relative difference " << c.max_rel
                          << " exceeds tolerance " << tolerance << "\n";
                return exit_error;
            }
            return exit_ok;
        } catch (const std::exception& e) {
            std::cerr << "gpufem: error: " << e.what() << "\n";
            return exit_error;
        }
    }
    spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
    spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug: the debug lines too
    if (quiet) spdlog::set_level(spdlog::level::warn);
    if (run->parsed()) set_progress_settings(terminal_progress_settings(quiet));

    try {
        const CaseSpec spec = parse_with_backend(case_file, overrides, backend);
        if (solves_on_cpu(spec)) ensure_passive_thread_wait(argv);
        RunOptions options;
        options.output_dir = output_dir;
        options.check_memory = !no_memory_check;
        options.export_matrix_dir = export_matrix;
        options.started = started;
        if (!export_matrix.empty() && is_sweep(spec))
            throw std::invalid_argument("--export-matrix writes one system: run the sweep's points one "
                                        "at a time (--set degree=N --set mesh.refine=N --set problem.kappa=...)");
        if (dry_run) {
            for (const CaseSpec& point : is_sweep(spec) ? expand_sweep(spec) : std::vector<CaseSpec>{spec}) {
                const ExecPtr exec = make_executor(point.backend);
                const MemoryEstimate estimate = estimate_case_memory(point, exec);
                std::cout << "gpufem dry run: " << point.name;
                if (is_sweep(spec))
                    std::cout << " (degree " << point.mesh.degree << ", refine " << point.mesh.refine
                              << (spec.kappas.size() > 1 ? ", kappa " + point.problem.kappa : std::string()) << ")";
                std::cout << ", " << exec->device_name() << ", " << precision_name(point.precision)
                          << ", format " << point.format << "\n"
                          << memory_estimate_table(estimate);
                try {
                    check_csr_limit(estimate);
                    check_memory_fits(estimate, *exec);
                    std::cout << "  fits the free memory\n";
                } catch (const std::runtime_error& e) {
                    std::cout << "  does not fit: " << e.what() << "\n";
                }
            }
            return exit_ok;
        }
        if (is_sweep(spec)) {
            const std::vector<SweepRow> rows = run_sweep(spec, options);
            std::cout << "gpufem sweep: " << spec.name << " (" << rows.size() << " runs, "
                      << (rows.empty() ? "" : rows.front().record.backend) << ", "
                      << precision_name(spec.precision)
                      << ", " << spec.format << ")\n"
                      << sweep_table(rows);
            for (const SweepRow& row : rows)
                if (!row.record.solve.converged()) return exit_not_converged;
            return exit_ok;
        }
        const RunRecord record = run_case(spec, options);
        std::cout << make_summary(spec, record);
        return record.solve.converged() ? exit_ok : exit_not_converged;
    } catch (const std::exception& e) {
        std::cerr << "gpufem: error: " << e.what() << "\n";
        return exit_error;
    }
}
