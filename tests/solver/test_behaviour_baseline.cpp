// Behaviour unchanged: every shipped case (at a CPU size) and the cross product of formats,
// methods, variants, preconditioners and precisions on two small cases give the same iteration
// counts and the same solution (u within 1e-12 relative) as the recording in
// tests/solver/data/behaviour_baseline.json, made before the architecture was redesigned.
//
// Re-record (only when a change of results is intended, and say why in the commit):
//   GPUFEM_RECORD_BASELINE=1 build/test_behaviour_baseline
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "run_gpufem.hpp"

using namespace gpufem;
namespace fs = std::filesystem;

namespace {

/// One `gpufem run` invocation: a case file (relative to the source tree) and its --set list.
struct BaselineRun {
    std::string name;
    std::string case_file;
    std::vector<std::string> sets;
};

void PrintTo(const BaselineRun& run, std::ostream* os) { *os << run.name; }

/// Every shipped case, made small enough for the CPU. Gmsh meshes on one thread, as when the
/// baseline was recorded (on several, a fresh mesh of several surfaces or of a volume may differ).
std::vector<BaselineRun> shipped_runs()
{
    return {
        {"ball_curved", "cases/examples/07_curved_ball.yaml", {"mesh.size=0.5", "mesh.gmsh_threads=1"}},
        {"bdia_channel", "cases/benchmarks/bdia_channel.yaml", {"mesh.size=0.5", "degree=1", "mesh.gmsh_threads=1"}},
        {"bench_cube_262k", "cases/benchmarks/bench_cube_262k.yaml", {"mesh.size=0.25"}},
        {"bench_cube_4m", "cases/benchmarks/bench_cube_4m.yaml", {"mesh.size=0.2"}},
        {"bench_square_q2_4m", "cases/benchmarks/bench_square_q2_4m.yaml", {"mesh.size=0.1"}},
        {"convection_diffusion", "cases/examples/03_convection_diffusion.yaml", {"mesh.size=0.1"}},
        {"convection_diffusion_4m", "cases/benchmarks/convection_diffusion_4m.yaml", {"mesh.size=0.05"}},
        {"degree_sweep_quads", "cases/examples/04_degree_sweep.yaml", {"mesh.refine=[0,1]"}},
        {"degree_sweep_quads_4m", "cases/benchmarks/degree_sweep_quads_4m.yaml", {"mesh.size=0.05"}},
        {"lma_sweep_hexes_1m", "cases/benchmarks/lma_sweep_hexes_1m.yaml", {"mesh.size=0.25", "format=lma"}},
        {"lma_sweep_quads_1m", "cases/benchmarks/lma_sweep_quads_1m.yaml", {"mesh.size=0.1", "format=lma"}},
        {"lshape", "cases/examples/02_lshape.yaml", {"mesh.size=0.1"}},
        {"plate_with_hole", "cases/examples/05_plate_with_hole.yaml", {"mesh.size=0.1", "mesh.gmsh_threads=1"}},
        {"poisson_cube", "cases/benchmarks/poisson_cube.yaml", {"mesh.size=0.2"}},
        {"poisson_square", "cases/examples/01_poisson_square.yaml", {"mesh.size=0.1"}},
    };
}

/// Formats of the CPU backend (cusparse and cusparse-sell are cuda only).
const std::vector<std::string> cpu_formats{"csr",   "csr-scalar", "ell",       "ellr",
                                           "sellp", "bdia",       "staircase", "lma"};

/// formats x methods x variants x preconditioners x precisions on a Q2 Poisson problem (SPD:
/// both methods apply), and every format with BiCGSTAB on the convection case.
std::vector<BaselineRun> cross_runs()
{
    std::vector<BaselineRun> runs;
    for (const auto& format : cpu_formats)
        for (const char* method : {"cg", "bicgstab"})
            for (const char* variant : {"reference", "merged"})
                for (const char* pre : {"none", "jacobi"})
                    for (const char* precision : {"double", "float"}) {
                        std::string name = "square_" + format + "_" + method + "_" + variant + "_" +
                                           pre + "_" + precision;
                        std::replace(name.begin(), name.end(), '-', '_');
                        runs.push_back({name, "cases/examples/01_poisson_square.yaml",
                                        {"mesh.size=0.125", "degree=2", "format=" + format,
                                         std::string("solver.method=") + method,
                                         std::string("solver.variant=") + variant,
                                         std::string("solver.preconditioner=") + pre,
                                         std::string("precision=") + precision,
                                         "solver.tolerance=1e-6", "solver.max_iterations=3000"}});
                    }
    for (const auto& format : cpu_formats)
        for (const char* variant : {"reference", "merged"})
            for (const char* precision : {"double", "float"}) {
                std::string name = "convection_" + format + "_" + variant + "_" + precision;
                std::replace(name.begin(), name.end(), '-', '_');
                runs.push_back({name, "cases/examples/03_convection_diffusion.yaml",
                                {"mesh.size=0.125", "format=" + format,
                                 std::string("solver.variant=") + variant,
                                 "solver.preconditioner=jacobi", std::string("precision=") + precision,
                                 "solver.tolerance=1e-6", "solver.max_iterations=3000"}});
            }
    // The format options that change the arithmetic.
    runs.push_back({"square_lma_symmetric_colour", "cases/examples/01_poisson_square.yaml",
                    {"mesh.size=0.125", "degree=3", "format=lma", "format_options.symmetric=true",
                     "format_options.scatter=colour"}});
    runs.push_back({"square_sellp_sigma", "cases/examples/01_poisson_square.yaml",
                    {"mesh.size=0.125", "degree=3", "format=sellp", "format_options.sigma=8",
                     "format_options.threads_per_row=4", "format_options.slice=16"}});
    runs.push_back({"square_staircase_alpha", "cases/examples/01_poisson_square.yaml",
                    {"mesh.size=0.125", "degree=3", "format=staircase", "format_options.alpha=0.2",
                     "format_options.slice_height=8"}});
    runs.push_back({"square_csr_fixed", "cases/examples/01_poisson_square.yaml",
                    {"mesh.size=0.125", "degree=3", "format=csr", "format_options.coop=4",
                     "format_options.repeat=2", "format_options.block=64"}});
    return runs;
}

/// What one result folder holds: iterations and the solution.
struct RunResult {
    int iterations = 0;
    std::vector<double> u;
};

/// Runs the case on the CPU backend; returns every result folder's outcome by its path
/// relative to the output folder ("." for a single run, "d2_r1" in a sweep).
std::map<std::string, RunResult> run_case(const BaselineRun& run, std::string& log)
{
    test::TempDir dir;
    const fs::path out = dir.path() / "out";
    std::string args = "run " + (fs::path(GPUFEM_SOURCE_DIR) / run.case_file).string() +
                       " --backend cpu -q -o " + out.string();
    for (const auto& set : run.sets) args += " --set " + set;
    const auto r = test::run_gpufem(args);
    log = "gpufem " + args + "\n" + r.output;
    std::map<std::string, RunResult> results;
    if (r.exit_code != 0 && r.exit_code != 2) return results;
    for (const auto& entry : fs::recursive_directory_iterator(out)) {
        if (entry.path().filename() != "result.vtu") continue;
        const fs::path folder = entry.path().parent_path();
        RunResult result;
        result.iterations = test::read_json(folder / "report.json")["solver"]["iterations"];
        const auto grid = test::read_vtu(entry.path());
        auto* u = grid->GetPointData()->GetArray("u");
        for (vtkIdType i = 0; u && i < grid->GetNumberOfPoints(); ++i) result.u.push_back(u->GetTuple1(i));
        results[fs::relative(folder, out).string()] = std::move(result);
    }
    return results;
}

const fs::path baseline_path = fs::path(GPUFEM_SOURCE_DIR) / "tests/solver/data/behaviour_baseline.json";

bool recording() { return std::getenv("GPUFEM_RECORD_BASELINE") != nullptr; }

nlohmann::json& baseline()
{
    static nlohmann::json data = fs::exists(baseline_path) ? test::read_json(baseline_path)
                                                           : nlohmann::json::object();
    return data;
}

class BehaviourBaseline : public ::testing::TestWithParam<BaselineRun> {
public:
    static void TearDownTestSuite()
    {
        if (!recording()) return;
        fs::create_directories(baseline_path.parent_path());
        std::ofstream(baseline_path) << baseline().dump() << "\n";
    }
};

TEST_P(BehaviourBaseline, SameIterationsAndSolution)
{
    const BaselineRun& run = GetParam();
    std::string log;
    const auto results = run_case(run, log);
    ASSERT_FALSE(results.empty()) << "no result.vtu written\n" << log;
    if (recording()) {
        nlohmann::json entry = nlohmann::json::object();
        for (const auto& [folder, result] : results)
            entry[folder] = {{"iterations", result.iterations}, {"u", result.u}};
        baseline()[run.name] = entry;
        return;
    }
    ASSERT_TRUE(baseline().contains(run.name)) << "no recording for " << run.name;
    const nlohmann::json& expected = baseline()[run.name];
    ASSERT_EQ(expected.size(), results.size()) << log;
    for (const auto& [folder, result] : results) {
        SCOPED_TRACE(run.name + " " + folder);
        ASSERT_TRUE(expected.contains(folder)) << log;
        EXPECT_EQ(result.iterations, expected[folder]["iterations"].get<int>()) << log;
        const std::vector<double> u0 = expected[folder]["u"].get<std::vector<double>>();
        ASSERT_EQ(result.u.size(), u0.size());
        double scale = 0, diff = 0;
        for (std::size_t i = 0; i < u0.size(); ++i) {
            scale = std::max(scale, std::abs(u0[i]));
            diff = std::max(diff, std::abs(result.u[i] - u0[i]));
        }
        EXPECT_LE(diff, 1e-12 * std::max(scale, 1e-300)) << "max |u - u_recorded| = " << diff
                                                         << " (max |u| " << scale << ")";
    }
}

std::string run_name(const ::testing::TestParamInfo<BaselineRun>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(ShippedCases, BehaviourBaseline, ::testing::ValuesIn(shipped_runs()), run_name);
INSTANTIATE_TEST_SUITE_P(Cross, BehaviourBaseline, ::testing::ValuesIn(cross_runs()), run_name);

}  // namespace
