// `gpufem study STUDY.yaml`: every point of a study on one device, resumable, with its table,
// plots and study.md.
#include <iostream>
#include <memory>

#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>

#include "linalg/host_threads.hpp"
#include "solver/cli/command.hpp"
#include "solver/run/progress_line.hpp"
#include "solver/run/run_case.hpp"
#include "solver/study/study_runner.hpp"

namespace gpufem {
namespace {

/// What `gpufem study` was given.
struct StudyArguments {
    std::string study_file;
    std::vector<std::string> overrides;
    StudyOptions options;
    std::string output;
    bool verbose = false;
    bool no_memory_check = false;
    bool no_plots = false;
};

/// Runs the study as the arguments say.
int run(const StudyArguments& args, CommandContext& context)
{
    spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
    // One line per point: a point's own problems are in its row (study.json, study.md).
    spdlog::set_level(args.verbose ? spdlog::level::info : spdlog::level::critical);
    spdlog::cfg::load_env_levels();
    set_progress_settings(terminal_progress_settings(!args.verbose));
    return run_reporting_errors([&] {
        const StudySpec spec = parse_study_file(args.study_file, args.overrides);
        StudyOptions options = args.options;
        options.output_dir = args.output;
        options.backend = context.backend;
        options.check_memory = !args.no_memory_check;
        options.plots = !args.no_plots;
        const nlohmann::json study = run_study(spec, options);
        std::cout << "gpufem study: wrote " << (study_folder(spec, options) / "study.md").string() << "\n";
        return static_cast<int>(exit_ok);
    });
}

}  // namespace

Command add_study_command(CLI::App& app, CommandContext& context)
{
    auto args = std::make_shared<StudyArguments>();
    CLI::App* sub = app.add_subcommand(
        "study", "Run a study: a base case and axes of case keys, every combination a point, on one device; "
                 "resumes after an interruption, skips points that do not fit; writes study.json, "
                 "study.csv, plots and study.md (the device, the copy bandwidth, the fastest choice per point)");
    sub->add_option("study", args->study_file, "The study's YAML file")->required();
    sub->add_option("-o,--output", args->output, "Output folder (default: next to the study file, named after it)");
    sub->add_option("-b,--backend", context.backend, "auto | cpu | cuda (overrides the base case's backend)")
        ->check(CLI::IsMember(context.backend_names));
    sub->add_option("-s,--set", args->overrides,
                    "Override a case key of every point, after the study's own keys (as for run; repeatable)");
    sub->add_flag("-v,--verbose", args->verbose,
                  "Log every point's phases (default: one line per point; a point's errors are in study.md)");
    sub->add_flag("--no-memory-check", args->no_memory_check, "Run every point, even one whose estimate does not fit");
    sub->add_flag("--no-plots", args->no_plots, "Write study.md without plots (gpufem report draws them later)");
    sub->footer("\n" + study_file_reference());
    return {sub, [args, &context] {
                if (context.backend != "cuda") prefer_passive_thread_wait(context);
                return run(*args, context);
            }};
}

}  // namespace gpufem
