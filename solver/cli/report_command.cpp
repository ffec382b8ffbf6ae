// `gpufem report DIR`: the plots and the one-page report of a run's, a sweep's or a study's
// output folder.
#include <filesystem>
#include <iostream>
#include <memory>

#include "solver/cli/command.hpp"
#include "solver/report/report_folder.hpp"
#include "solver/run/run_case.hpp"

namespace gpufem {
namespace {

/// What `gpufem report` was given.
struct ReportArguments {
    std::string folder;
    std::string output;
};

/// What `gpufem report --help` says the command does.
constexpr const char* report_help =
    "Plots of a run's, a sweep's or a study's output folder and a one-page report.md: the residual history "
    "(recursive and true), the time of each phase, the time of every SpMV, the memory of each phase "
    "(estimate and measured); a sweep's errors against h or the degree with their rates; a study's plots "
    "and study.md again. Drawn by scripts/gpufem_plots.py with python3-matplotlib";

}  // namespace

Command add_report_command(CLI::App& app)
{
    auto args = std::make_shared<ReportArguments>();
    CLI::App* sub = app.add_subcommand("report", report_help);
    sub->add_option("folder", args->folder, "The output folder of gpufem run or gpufem study")->required();
    sub->add_option("-o,--output", args->output,
                    "Where a run's or a sweep's report goes (default: FOLDER/report/, replaced whole)");
    return {sub,
            [args] {
                return run_reporting_errors([&] {
                    const std::filesystem::path page = write_folder_report(args->folder, args->output);
                    std::cout << "gpufem report: wrote " << page.string() << "\n";
                    return static_cast<int>(exit_ok);
                });
            },
            false};
}

}  // namespace gpufem
