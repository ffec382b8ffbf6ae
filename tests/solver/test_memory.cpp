// The memory estimate against what runs really use (report.json "memory"), its exact matrix
// sizes for the generated shapes, the refusal of a case that cannot fit, and --dry-run.
#include <gtest/gtest.h>

#include <cstdio>

#include "linalg/host_memory.hpp"
#include "run_gpufem.hpp"

using namespace gpufem;

namespace {

const char* cube_case = R"yaml(
mesh:
  shape: unit_cube
  elements: hexahedron
  size: 0.015625
problem:
  kappa: "1 + x*y*z"
  f: "1 + sin(3*x)"
  exact: "x*y"
  dirichlet:
    left: 0
    right: "y"
  neumann:
    top: 1
solver:
  tolerance: 1e-8
  max_iterations: 30
backend: cpu
)yaml";

/// Runs the case with extra arguments (exit 0, or 2 when 30 iterations do not converge) and
/// returns report.json's "memory".
nlohmann::json run_memory(const test::TempDir& dir, const std::filesystem::path& file,
                          const std::string& args)
{
    const auto out = dir.path() / "out";
    std::filesystem::remove_all(out);
    const auto r = test::run_gpufem("run " + file.string() + " -q -o " + out.string() + " " + args);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.output;
    if (r.exit_code != 0 && r.exit_code != 2) return {};
    return test::read_json(out / "report.json");
}

}  // namespace

// 274,625 unknowns, 7.2M non-zeros (Q1), so that the run's arrays, not the process's
// libraries, make most of the peak.
TEST(MemoryEstimate, WithinTwentyPercentOfTheMeasuredHostPeakForEveryFormat)
{
    // AddressSanitizer's shadow memory and redzones change the resident set the estimate models.
    if (built_with_address_sanitizer()) GTEST_SKIP() << "AddressSanitizer changes the resident set";
    test::TempDir dir;
    const auto file = dir.write("cube.yaml", cube_case);
    for (const std::string args :
         {"--set format=csr", "--set format=csr-scalar", "--set format=ell", "--set format=ellr",
          "--set format=sellp", "--set format=staircase", "--set format=lma",
          "--set format=lma --set format_options.lma.symmetric=true",
          "--set solver.preconditioner=jacobi --set solver.method=bicgstab",
          "--set solver.preconditioner=amg", "--set format=lma --set solver.preconditioner=pmg",
          "--set precision=float --set solver.tolerance=1e-6",
          "--set degree=2 --set mesh.size=0.03125"}) {
        SCOPED_TRACE(args);
        const nlohmann::json report = run_memory(dir, file, args);
        if (report.is_null()) continue;
        const nlohmann::json& memory = report["memory"];
        const double estimate = memory["peak_estimate"]["host"];
        const double measured = memory["peak_measured"]["host"];
        const double baseline = memory["baseline_host"];
        std::printf("%-70s estimate %7.1f MB, measured %7.1f MB (%+5.1f%%), baseline %6.1f MB\n",
                    args.c_str(), estimate / 1e6, measured / 1e6, 100 * (estimate / measured - 1),
                    baseline / 1e6);
        EXPECT_GT(measured - baseline, 0.4 * measured) << "the problem is too small to test the estimate";
        EXPECT_GE(estimate, 0.8 * measured);
        EXPECT_LE(estimate, 1.2 * measured);
        for (const std::string phase : {"mesh", "assembly", "solve", "errors", "output"}) {
            EXPECT_TRUE(memory["phases"][phase].contains("estimate")) << phase;
            EXPECT_GT(memory["phases"][phase]["measured"]["host"].get<double>(), baseline) << phase;
        }
    }
}

// Finite volumes: one unknown per cell (the matrix a row per cell with its face neighbours),
// the face adjacency and the correction's arrays; 1.57M Kuhn tetrahedra (the correction
// solved with the system, AMG) and 1M hexahedra (no correction).
TEST(MemoryEstimate, FiniteVolumesWithinTwentyPercentOfTheMeasuredHostPeak)
{
    if (built_with_address_sanitizer()) GTEST_SKIP() << "AddressSanitizer changes the resident set";
    test::TempDir dir;
    std::string text = cube_case;
    text.replace(text.find("  elements: hexahedron\n"), 22, "  elements: tetrahedron\n");
    text += "discretisation: fv\noutput: {write: false}\n";
    const auto file = dir.write("fv.yaml", text);
    for (const std::string args : {"--set solver.preconditioner=amg",
                                   "--set mesh.elements=hexahedron --set mesh.size=0.01"}) {
        SCOPED_TRACE(args);
        const nlohmann::json report = run_memory(dir, file, args);
        if (report.is_null()) continue;
        const nlohmann::json& memory = report["memory"];
        const double cells = report["unknowns"]["count"];
        EXPECT_EQ(memory["matrix_estimate"]["rows"].get<double>(), cells) << "a row per cell";
        const double per_row = memory["matrix_estimate"]["nnz"].get<double>() / cells;
        EXPECT_EQ(per_row, args.find("hexahedron") != std::string::npos ? 7.0 : 5.0) << "the cell and its faces";
        const double estimate = memory["peak_estimate"]["host"];
        const double measured = memory["peak_measured"]["host"];
        const double baseline = memory["baseline_host"];
        std::printf("%-60s %8.0f cells: estimate %7.1f MB, measured %7.1f MB (%+5.1f%%), baseline %6.1f MB\n",
                    args.c_str(), cells, estimate / 1e6, measured / 1e6, 100 * (estimate / measured - 1), baseline / 1e6);
        EXPECT_GT(measured - baseline, 0.3 * measured) << "the problem is too small to test the estimate";
        EXPECT_GE(estimate, 0.8 * measured);
        EXPECT_LE(estimate, 1.2 * measured);
    }
}

// bdia stores the band of the lattice order: a 2D strip keeps it small enough to build.
TEST(MemoryEstimate, WithinTwentyPercentForBdiaOnASquare)
{
    if (built_with_address_sanitizer()) GTEST_SKIP() << "AddressSanitizer changes the resident set";
    test::TempDir dir;
    const auto file = dir.write("square.yaml", R"yaml(
mesh:
  shape: unit_square
  size: 0.004
problem:
  f: 1
  dirichlet:
    boundary: 0
format: bdia
solver:
  max_iterations: 30
backend: cpu
)yaml");
    const nlohmann::json report = run_memory(dir, file, "");
    ASSERT_FALSE(report.is_null());
    const double estimate = report["memory"]["peak_estimate"]["host"];
    const double measured = report["memory"]["peak_measured"]["host"];
    std::printf("bdia: estimate %.1f MB, measured %.1f MB\n", estimate / 1e6, measured / 1e6);
    EXPECT_GE(estimate, 0.8 * measured);
    EXPECT_LE(estimate, 1.2 * measured);
}

// The non-zeros of the generated unit square and cube are exact for every cell type and degree.
TEST(MemoryEstimate, MatrixSizeOfGeneratedShapesIsExact)
{
    test::TempDir dir;
    const auto file = dir.write("small.yaml", R"yaml(
mesh:
  shape: unit_square
  size: 0.2
problem:
  f: 1
  dirichlet:
    boundary: 0
backend: cpu
)yaml");
    for (const std::string shape : {"--set mesh.elements=triangle", "--set mesh.elements=quadrilateral",
                                    "--set mesh.shape=unit_cube --set mesh.elements=tetrahedron",
                                    "--set mesh.shape=unit_cube --set mesh.elements=hexahedron"})
        for (int degree = 1; degree <= 4; ++degree) {
            const std::string args = shape + " --set degree=" + std::to_string(degree);
            SCOPED_TRACE(args);
            const nlohmann::json report = run_memory(dir, file, args);
            if (report.is_null()) continue;
            EXPECT_EQ(report["memory"]["matrix_estimate"]["nnz"].get<double>(),
                      report["matrix"]["nnz"].get<double>());
            EXPECT_EQ(report["memory"]["matrix_estimate"]["rows"].get<double>(),
                      report["matrix"]["rows"].get<double>());
            EXPECT_EQ(report["memory"]["matrix_estimate"]["longest_row"].get<double>(),
                      report["matrix"]["nnz_per_row"]["max"].get<double>());
        }
}

TEST(MemoryEstimate, AFloatCycleCountsTheMatrixFreeOperatorsFloatCopy)
{
    // pmg in float on pa or lma keeps a float copy of the operator beside it: the solve's
    // estimate grows by 0.55 of the operator's stored bytes (its values in half the bytes, its
    // indices copied).
    test::TempDir dir;
    const auto file = dir.write("cube.yaml", R"yaml(
mesh: {shape: unit_cube, elements: hexahedron, size: 0.125}
degree: 3
problem: {f: 1, dirichlet: {boundary: 0}}
solver: {preconditioner: pmg, tolerance: 1e-8}
backend: cpu
)yaml");
    for (const std::string format : {"pa", "lma"}) {
        SCOPED_TRACE(format);
        const nlohmann::json in_double = run_memory(dir, file, "--set format=" + format);
        const nlohmann::json in_float = run_memory(dir, file, "--set format=" + format + " --set solver.amg.precision=float");
        ASSERT_FALSE(in_double.is_null() || in_float.is_null());
        EXPECT_EQ(in_float["solver"]["preconditioner_details"]["precision"], "float");
        const double stored = in_double["memory"]["format_estimate"]["stored"].get<double>();
        const auto solve = [](const nlohmann::json& r) {  // beside the process's own baseline
            return r["memory"]["phases"]["solve"]["estimate"]["host"].get<double>() -
                   r["memory"]["baseline_host"].get<double>();
        };
        EXPECT_GT(stored, 0);
        EXPECT_NEAR(solve(in_float) - solve(in_double), 0.55 * stored, 0.05 * stored);
    }
}

// A case far beyond the machine stops before anything is allocated or written, and says why.
TEST(MemoryEstimate, ACaseThatCannotFitIsRefusedFirst)
{
    test::TempDir dir;
    const auto file = dir.write("huge.yaml", R"yaml(
mesh:
  shape: unit_cube
  size: 0.002
problem:
  f: 1
  dirichlet:
    boundary: 0
backend: cpu
)yaml");
    const auto out = dir.path() / "out";
    const auto r = test::run_gpufem("run " + file.string() + " -o " + out.string());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    for (const std::string part : {"not enough host memory", "GB at its peak", "available",
                                   "--dry-run", "coarser mesh.size"})
        EXPECT_NE(r.output.find(part), std::string::npos) << part << " in:\n" << r.output;
    EXPECT_EQ(r.output.find("loading mesh"), std::string::npos) << "the mesh was built:\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(out));

    // --dry-run says the same without failing, and writes nothing.
    const auto dry = test::run_gpufem("run " + file.string() + " -o " + out.string() + " --dry-run");
    EXPECT_EQ(dry.exit_code, 0) << dry.output;
    for (const std::string part : {"125751501 nodes", "peak memory (GB)", "assembly", "does not fit"})
        EXPECT_NE(dry.output.find(part), std::string::npos) << part << " in:\n" << dry.output;
    EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(MemoryEstimate, DryRunPrintsTheEstimateOfEverySweepPoint)
{
    test::TempDir dir;
    const auto file = dir.write("sweep.yaml", R"yaml(
mesh:
  shape: unit_square
  size: 0.1
degree: [1, 2]
problem:
  f: 1
  dirichlet:
    boundary: 0
backend: cpu
)yaml");
    const auto r = test::run_gpufem("run " + file.string() + " --dry-run");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const std::string part : {"(degree 1, refine 0)", "(degree 2, refine 0)", "121 nodes",
                                   "441 nodes", "fits the free memory"})
        EXPECT_NE(r.output.find(part), std::string::npos) << part << " in:\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "sweep"));
}
