// `gpufem run`: a case file end to end, its sweep, or its dry run (the memory estimate).
#include <iostream>
#include <memory>

#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>

#include "linalg/host_threads.hpp"
#include "mesh/mesh_source.hpp"
#include "solver/cli/command.hpp"
#include "solver/cli/prompt_return.hpp"
#include "solver/run/file_reaper.hpp"
#include "solver/run/memory_estimate.hpp"
#include "solver/run/pipeline.hpp"
#include "solver/run/progress_line.hpp"
#include "solver/run/run_case.hpp"
#include "solver/run/run_sweep.hpp"

namespace gpufem {
namespace {

/// What `gpufem run` was given.
struct RunArguments {
    std::string case_file;
    std::string output_dir;
    std::vector<std::string> overrides;
    bool quiet = false;
    bool dry_run = false;
    bool no_memory_check = false;
    bool no_mesh_cache = false;
    std::string export_matrix;
};

/// --dry-run: the sizes and the memory estimate of every point, and whether it fits.
int dry_run(const CaseSpec& spec)
{
    for (const CaseSpec& point : is_sweep(spec) ? expand_sweep(spec) : std::vector<CaseSpec>{spec}) {
        const ExecPtr exec = make_executor(point.backend);
        const MemoryEstimate estimate = estimate_case_memory(point, exec);
        std::cout << "gpufem dry run: " << point.name;
        if (is_sweep(spec))
            std::cout << " (degree " << point.mesh.degree << ", refine " << point.mesh.refine
                      << (spec.kappas.size() > 1 ? ", kappa " + point.problem.kappa : std::string()) << ")";
        std::cout << ", " << exec->device_name() << ", " << precision_name(point.precision) << ", format "
                  << point.format << "\n"
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

/// The case keys the arguments set: --set's, then mesh.cache=false for --no-mesh-cache (last,
/// so that the flag wins).
std::vector<std::string> case_overrides(const RunArguments& args)
{
    std::vector<std::string> overrides = args.overrides;
    if (args.no_mesh_cache) overrides.push_back("mesh.cache=false");
    return overrides;
}

/// Runs the parsed case (or its sweep) as the arguments say.
int run_parsed(const CaseSpec& spec, const RunArguments& args, CommandContext& context)
{
    if (solves_on_cpu(spec)) prefer_passive_thread_wait(context);
    RunOptions options;
    options.output_dir = args.output_dir;
    options.check_memory = !args.no_memory_check;
    options.export_matrix_dir = args.export_matrix;
    options.started = context.started;
    check_export_matrix(spec, options);
    if (args.dry_run) return dry_run(spec);
    // The device's release after the last output goes on beside the prompt (one process
    // under mpirun: the launcher watches the process it started).
    if (!solves_on_cpu(spec) && !context.mpi_rank) detach_teardown();
    // Forked now, while the process is small and has no device context: the previous run's
    // result.vtu, replaced at the end, is freed beside the prompt instead of before it.
    start_file_reaper();
    if (is_sweep(spec)) {
        const std::vector<SweepRow> rows = run_sweep(spec, options);
        std::cout << "gpufem sweep: " << spec.name << " (" << rows.size() << " runs, "
                  << (rows.empty() ? "" : rows.front().record.backend) << ", " << precision_name(spec.precision)
                  << ", " << spec.format << ")\n"
                  << sweep_table(rows);
        for (const SweepRow& row : rows)
            if (!row.record.solve.converged()) return exit_not_converged;
        return exit_ok;
    }
    const RunRecord record = run_case(spec, options);
    std::cout << make_summary(spec, record);
    return record.solve.converged() ? exit_ok : exit_not_converged;
}

/// The case (or its sweep) run with the parsed arguments.
int run(const RunArguments& args, CommandContext& context)
{
    spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
    spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug: the debug lines too
    if (args.quiet) spdlog::set_level(spdlog::level::warn);
    set_progress_settings(terminal_progress_settings(args.quiet));
    const std::vector<std::string> overrides = case_overrides(args);
    if (several_ranks() && !args.dry_run)
        return run_as_rank({args.case_file, overrides, args.output_dir, args.export_matrix}, context);
    return run_reporting_errors([&]() -> int {
        const CaseSpec spec = parse_with_backend(args.case_file, overrides, context.backend);
        try {
            return run_parsed(spec, args, context);
        } catch (const std::runtime_error& e) {
            const std::string located = locate_case_error(spec, e.what());
            if (located == e.what()) throw;
            throw std::runtime_error(located);
        }
    });
}

}  // namespace

Command add_run_command(CLI::App& app, CommandContext& context)
{
    auto args = std::make_shared<RunArguments>();
    CLI::App* run_app = app.add_subcommand("run", "Run a case file end to end");
    run_app->add_option("case", args->case_file, "The YAML case file")->required();
    run_app->add_option("-o,--output", args->output_dir,
                        "Output folder (default: next to the case file, named after it)");
    run_app->add_option("-b,--backend", context.backend, "auto | cpu | cuda (overrides the case's backend)")
        ->check(CLI::IsMember(context.backend_names));
    run_app->add_option("-s,--set", args->overrides,
                        "Override a case key: --set mesh.refine=3 --set solver.tolerance=1e-10 "
                        "(dotted keys, YAML values; repeatable)");
    run_app->add_flag("-q,--quiet", args->quiet, "Print only warnings, errors and the summary");
    run_app->add_flag("--dry-run", args->dry_run,
                      "Print the mesh and matrix sizes and the memory estimate of every phase, and "
                      "stop (meshes from Gmsh are meshed; nothing is assembled or written)");
    run_app->add_option("--export-matrix", args->export_matrix,
                        "Also write the assembled system (A.mtx, b.mtx: after the boundary "
                        "conditions, in the original numbering) and the solution (x.mtx) as Matrix "
                        "Market into this folder");
    run_app->add_flag("--no-memory-check", args->no_memory_check,
                      "Run even when the memory estimate exceeds the free memory (warn only)");
    run_app->add_flag("--no-mesh-cache", args->no_mesh_cache,
                      "Neither read nor write the mesh cache (.gpufem-cache/ beside a .geo or .msh "
                      "file): Gmsh meshes again; as mesh.cache: false");
    run_app->footer("\nCase file reference:\n" + case_file_reference() + "\nBuilt-in shapes:\n" +
                    describe_shapes() +
                    "\nExit codes: 0 converged, 1 error (nothing written), 2 outputs written but the "
                    "solver did not converge.");
    return {run_app, [args, &context] { return run(*args, context); }};
}

}  // namespace gpufem
