// gpufem: the command line.
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "mesh/mesh_source.hpp"
#include "solver/case_file.hpp"
#include "solver/compare_results.hpp"
#include "solver/run_case.hpp"

int main(int argc, char** argv)
{
    using namespace gpufem;
    CLI::App app{"gpufem: finite-element Poisson solver for NVIDIA GPUs (CPU fallback).\n"
                 "Solves -div(kappa grad u) = f from a YAML case file and writes result.vtu,\n"
                 "report.json and spmv_timings.csv."};
    app.require_subcommand(1);
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
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    run->add_option("-s,--set", overrides,
                    "Override a case key: --set mesh.refine=3 --set solver.tolerance=1e-10 "
                    "(dotted keys, YAML values; repeatable)");
    run->add_flag("-q,--quiet", quiet, "Print only warnings, errors and the summary");
    run->footer("\nCase file reference:\n" + case_file_reference() + "\nBuilt-in shapes:\n" +
                describe_shapes() +
                "\nExit codes: 0 converged, 1 error (nothing written), 2 outputs written but the "
                "solver did not converge.");

    auto* compare = app.add_subcommand(
        "compare", "Compare a point field of two result.vtu files (e.g. two backends' runs)");
    std::string result_a, result_b, field = "u";
    double tolerance = -1.0;
    compare->add_option("a", result_a, "First result.vtu")->required();
    compare->add_option("b", result_b, "Second result.vtu")->required();
    compare->add_option("-f,--field", field, "Point field to compare (default: u)");
    compare->add_option("-t,--tolerance", tolerance,
                        "Exit with 1 if the max relative difference exceeds this");

    CLI11_PARSE(app, argc, argv);
    if (compare->parsed()) {
        try {
            const FieldComparison c = compare_results(result_a, result_b, field);
            std::cout << "field '" << field << "' over " << c.points << " points: max |a-b| = "
                      << c.max_abs << ", max |a-b| / max |a| = " << c.max_rel
                      << ", rms(a-b) = " << c.rms << "\n";
            if (tolerance >= 0 && !(c.max_rel <= tolerance)) {
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
    if (quiet) spdlog::set_level(spdlog::level::warn);

    try {
        if (!backend.empty()) overrides.push_back("backend=" + backend);
        const CaseSpec spec = parse_case_file(case_file, overrides);
        RunOptions options;
        options.output_dir = output_dir;
        const RunRecord record = run_case(spec, options);
        std::cout << make_summary(spec, record);
        return record.solve.converged() ? exit_ok : exit_not_converged;
    } catch (const std::exception& e) {
        std::cerr << "gpufem: error: " << e.what() << "\n";
        return exit_error;
    }
}
