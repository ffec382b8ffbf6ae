// `gpufem compare`: a field of two results, .vtu or .pvtu (e.g. two backends' runs, or ranks and one process).
#include <cmath>
#include <iostream>
#include <memory>

#include "solver/cli/command.hpp"
#include "solver/run/compare_results.hpp"
#include "solver/run/run_case.hpp"

namespace gpufem {
namespace {

/// What `gpufem compare` was given.
struct CompareArguments {
    std::string result_a, result_b, field = "u";
    double tolerance = -1.0;
    bool tolerance_given = false;
};

int compare(const CompareArguments& args)
{
    if (args.tolerance_given && !(args.tolerance >= 0 && std::isfinite(args.tolerance))) {
        std::cerr << "gpufem: error: --tolerance must be a finite number >= 0 (got " << args.tolerance << ")\n";
        return exit_error;
    }
    const FieldComparison c = compare_results(args.result_a, args.result_b, args.field);
    const char* what = c.on_cells ? "cells" : "points";
    std::cout << "field '" << args.field << "' over " << c.points << " " << what << ": max |a-b| = " << c.max_abs
              << ", max |a-b| / max |a| = " << c.max_rel << ", rms(a-b) = " << c.rms
              << (c.by_position ? " (paired by position)" : "") << "\n";
    if (c.non_finite_mismatches > 0)
        std::cout << c.non_finite_mismatches << " " << what
                  << " are NaN or infinite in one result and not in the other (the first: "
                  << (c.on_cells ? "cell " : "point ") << c.first_non_finite_mismatch << ")\n";
    if (args.tolerance_given && !(c.max_rel <= args.tolerance)) {
        std::cerr << "gpufem: error: relative difference " << c.max_rel << " exceeds tolerance " << args.tolerance
                  << "\n";
        return exit_error;
    }
    return exit_ok;
}

}  // namespace

Command add_compare_command(CLI::App& app)
{
    auto args = std::make_shared<CompareArguments>();
    CLI::App* compare_app = app.add_subcommand(
        "compare", "Compare a field of two results (.vtu, or a run across ranks' .pvtu; e.g. two backends' runs): point data, or cell data (finite volumes)");
    compare_app->add_option("a", args->result_a, "First result (.vtu or .pvtu)")->required();
    compare_app->add_option("b", args->result_b, "Second result (.vtu or .pvtu)")->required();
    compare_app->add_option("-f,--field", args->field, "Field to compare, a point field or else a cell field (default: u)");
    compare_app->add_option("-t,--tolerance", args->tolerance, "Exit with 1 if the max relative difference exceeds this");
    return {compare_app, [args, compare_app] {
                args->tolerance_given = compare_app->count("--tolerance") > 0;
                return run_reporting_errors([&]() -> int { return compare(*args); });
            },
            false};
}

}  // namespace gpufem
