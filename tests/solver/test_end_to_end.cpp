// The gpufem program end to end on the CPU backend: outputs read back with VTK, bad input
// rejected with a clear message, a non-zero exit and no files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <sys/wait.h>
#include <csignal>

#include <vtkCell.h>

#include "mesh/vtk_writer.hpp"
#include "run_gpufem.hpp"

using namespace gpufem;

namespace {

const char* sine_case = R"yaml(# manufactured solution on the unit square
mesh:
  shape: unit_square
  elements: quadrilateral
  size: 0.05
degree: 1
problem:
  kappa: 1
  f: "(pi^2 - 1)*exp(x)*sin(pi*y)"
  exact: "exp(x)*sin(pi*y)"
  dirichlet:
    boundary: "exp(x)*sin(pi*y)"
format: csr
solver:
  method: cg
  tolerance: 1e-10
  max_iterations: 2000
precision: double
backend: cpu
)yaml";

/// Runs a case expected to fail; checks exit code 1, the message and that nothing was written.
void expect_rejected(const std::string& yaml, const std::vector<std::string>& message_parts,
                     const std::string& extra_args = "")
{
    test::TempDir dir;
    const auto file = dir.write("bad.yaml", yaml);
    const auto out = dir.path() / "out";
    const auto r = test::run_gpufem("run " + file.string() + " --output " + out.string() + " " + extra_args);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    for (const auto& part : message_parts)
        EXPECT_NE(r.output.find(part), std::string::npos) << "missing '" << part << "' in:\n" << r.output;
    if (std::filesystem::exists(out)) EXPECT_TRUE(std::filesystem::is_empty(out)) << "files left behind";
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "bad")) << "default output folder created";
}

}  // namespace

TEST(EndToEnd, SineCaseWritesReadableOutputs)
{
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    const auto r = test::run_gpufem("run " + file.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("gpufem summary"), std::string::npos) << r.output;

    const auto out = dir.path() / "sine";  // default: next to the case, named after it
    const auto report = test::read_json(out / "report.json");
    EXPECT_EQ(report["backend"], "cpu");
    EXPECT_EQ(report["precision"], "double");
    EXPECT_EQ(report["mesh"]["cell_type"], "quadrilateral");
    EXPECT_EQ(report["mesh"]["cells"], 400);
    EXPECT_EQ(report["mesh"]["nodes"], 441);
    EXPECT_EQ(report["matrix"]["rows"], 441);
    EXPECT_EQ(report["matrix"]["nnz_per_row"]["max"], 9);
    EXPECT_TRUE(report["solver"]["converged"].get<bool>());
    const int iterations = report["solver"]["iterations"];
    EXPECT_GT(iterations, 5);
    EXPECT_EQ(report["solver"]["residual_history"].size(), static_cast<std::size_t>(iterations + 1));
    EXPECT_LT(report["solver"]["final_relative_residual"].get<double>(), 1e-10);
    for (const char* phase : {"mesh", "solve", "output"}) EXPECT_GT(report["times"][phase].get<double>(), 0.0) << phase;
    EXPECT_GT(report["times"]["assembly"]["total"].get<double>(), 0.0);
    const double l2 = report["errors"]["l2"];
    EXPECT_GT(l2, 1e-5);   // h = 0.05 Q1: about 1e-3 relative
    EXPECT_LT(l2, 5e-3);
    EXPECT_EQ(report["case"]["mesh"]["size"], 0.05);

    const auto grid = test::read_vtu(out / "result.vtu");
    ASSERT_EQ(grid->GetNumberOfPoints(), 441);
    ASSERT_EQ(grid->GetNumberOfCells(), 400);
    EXPECT_EQ(grid->GetCellType(0), 9);  // VTK_QUAD
    auto* u = grid->GetPointData()->GetArray("u");
    auto* exact = grid->GetPointData()->GetArray("u_exact");
    auto* error = grid->GetPointData()->GetArray("error");
    ASSERT_TRUE(u && exact && error);
    ASSERT_NE(grid->GetCellData()->GetArray("group"), nullptr);
    double max_err = 0;
    for (vtkIdType i = 0; i < grid->GetNumberOfPoints(); ++i) {
        double p[3];
        grid->GetPoint(i, p);
        EXPECT_NEAR(exact->GetTuple1(i), std::exp(p[0]) * std::sin(M_PI * p[1]), 1e-12);
        EXPECT_NEAR(error->GetTuple1(i), u->GetTuple1(i) - exact->GetTuple1(i), 1e-14);
        max_err = std::max(max_err, std::abs(error->GetTuple1(i)));
    }
    EXPECT_LT(max_err, 5e-3);
    EXPECT_NEAR(report["errors"]["max_nodal"].get<double>(), max_err, 1e-12);

    std::ifstream csv(out / "spmv_timings.csv");
    std::string line;
    int lines = 0;
    std::getline(csv, line);
    EXPECT_EQ(line, "iteration,spmv,format,seconds");
    while (std::getline(csv, line)) ++lines;
    EXPECT_EQ(lines, iterations);

    // No temporary files left next to the results.
    for (const auto& entry : std::filesystem::directory_iterator(out))
        EXPECT_EQ(entry.path().filename().string().find(".partial"), std::string::npos);
}

TEST(EndToEnd, FiniteVolumeCaseWritesCellDataAndItsReport)
{
    // u = 1 + 2x - 3y on the unit square's triangles: the exact flux through every face is recovered
    // by the corrected two-point flux (linear u: the least-squares gradients are exact).
    test::TempDir dir;
    const auto file = dir.write("fv.yaml", "mesh: {shape: unit_square, elements: triangle, size: 0.1}\n"
                                           "discretisation: fv\nproblem:\n  exact: \"1 + 2*x - 3*y\"\n"
                                           "  dirichlet: {boundary: \"1 + 2*x - 3*y\"}\nsolver: {tolerance: 1e-12, preconditioner: amg}\n");
    const auto out = dir.path() / "fv";
    const auto r = test::run_gpufem("run " + file.string() + " --backend cpu --output " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto report = test::read_json(out / "report.json");
    EXPECT_EQ(report["unknowns"]["on"], "cells");
    EXPECT_EQ(report["unknowns"]["count"], 200);
    EXPECT_EQ(report["matrix"]["rows"], 200);
    EXPECT_EQ(report["matrix"]["nnz_per_row"]["max"], 4);
    EXPECT_TRUE(report["errors"]["h1_semi"].is_null());
    EXPECT_LT(report["errors"]["l2"].get<double>(), 1e-9) << "linear u is reproduced";
    EXPECT_EQ(report["solver"]["correction"], "implicit");
    EXPECT_EQ(report["solver"]["pass_iterations"].size(), 1u);
    EXPECT_EQ(report["discretisation"]["correction"], "implicit");
    EXPECT_NEAR(report["discretisation"]["max_nonorthogonality_degrees"].get<double>(), 26.565, 0.01);
    const auto grid = test::read_vtu(out / "result.vtu");
    ASSERT_EQ(grid->GetNumberOfCells(), 200);
    auto* u = grid->GetCellData()->GetArray("u");
    auto* exact = grid->GetCellData()->GetArray("u_exact");
    ASSERT_TRUE(u && exact && grid->GetCellData()->GetArray("error"));
    EXPECT_EQ(grid->GetPointData()->GetArray("u"), nullptr);
    for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) EXPECT_NEAR(u->GetTuple1(c), exact->GetTuple1(c), 1e-9);
}

TEST(EndToEnd, OutputWriteFalseSkipsTheVtuAndKeepsTheReport)
{
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    const auto out = dir.path() / "out";
    const auto r = test::run_gpufem("run " + file.string() + " -q -o " + out.string() +
                                    " --set output.write=false");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_FALSE(std::filesystem::exists(out / "result.vtu"));
    const auto report = test::read_json(out / "report.json");
    EXPECT_FALSE(report["output"]["result_vtu"].get<bool>());
    EXPECT_EQ(report["output"]["result_vtu_bytes"], 0);
    EXPECT_TRUE(std::filesystem::exists(out / "spmv_timings.csv"));
}

TEST(EndToEnd, ProgressLinesOnlyOnATerminal)
{
    // GPUFEM_PROGRESS_DELAY=0 draws a line for every phase at once; `script` gives gpufem a
    // terminal. The lines (erased with ESC [K) appear there, never when piped or quiet.
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    const std::string run = "GPUFEM_PROGRESS_DELAY=0 " + test::gpufem_command() + " run " +
                            file.string() + " -o " + (dir.path() / "out").string();
    auto r = test::run_command(run);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("\033[K"), std::string::npos) << "piped: no progress line";
    const auto on_terminal = [](const std::string& command) {
        return test::run_command("script -qec '" + command + "' /dev/null");
    };
    r = on_terminal(run);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // A phase shorter than the progress thread's first look draws no line (this mesh takes a
    // millisecond): some phase's line, erased, with its elapsed time.
    EXPECT_NE(r.output.find("\033[K"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("elapsed "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("solver"), std::string::npos) << "the summary lines stay";
    r = on_terminal(run + " --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("\033[K"), std::string::npos) << "quiet: no progress line";
}

TEST(EndToEnd, InterruptDuringTheWriteLeavesNoPartialFiles)
{
    // A run whose output (zlib, 1M nodes) takes about a second: SIGINT as soon as the staged
    // result.vtu appears; the handler removes the staged files and the folder it created.
    test::TempDir dir;
    const auto out = dir.path() / "out";
    const std::string command =
        "exec " + test::gpufem_command() + " run " + std::string(GPUFEM_SOURCE_DIR) +
        "/cases/examples/01_poisson_square.yaml --backend cpu -q -o " + out.string() +
        " --set mesh.size=0.001 --set output.compression=zlib --set solver.max_iterations=1"
        " > /dev/null 2>&1";
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        setpgid(0, 0);
        execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    setpgid(child, child);
    const auto staged = [&] {
        std::error_code ec;
        if (!std::filesystem::is_directory(out, ec)) return false;
        for (const auto& entry : std::filesystem::directory_iterator(out, ec))
            if (entry.path().filename().string().find(".partial-") != std::string::npos) return true;
        return false;
    };
    bool seen = false;
    for (int i = 0; i < 12000 && !seen; ++i) {
        seen = staged();
        if (!seen) usleep(5000);
    }
    ASSERT_TRUE(seen) << "no staged output appeared within 60 s";
    kill(-child, SIGINT);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << "status " << status;
    std::error_code ec;
    std::vector<std::string> left;
    if (std::filesystem::exists(out, ec))
        for (const auto& entry : std::filesystem::directory_iterator(out, ec))
            left.push_back(entry.path().filename().string());
    EXPECT_TRUE(left.empty()) << "left behind: " << (left.empty() ? "" : left.front());
    EXPECT_FALSE(std::filesystem::exists(out, ec)) << "the folder the run created stays";
}

TEST(BenchSpmv, BadFormatsAndCountsExitWithOne)
{
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    auto r = test::run_gpufem("bench spmv " + file.string() + " --backend cpu -f csr,nosuch -o " +
                              (dir.path() / "b").string());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("unknown format 'nosuch'"), std::string::npos) << r.output;
    r = test::run_gpufem("bench spmv " + file.string() + " --backend cpu -f csr --warmup -1");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("--warmup"), std::string::npos) << r.output;
}

TEST(EndToEnd, BadCommandLineExitsWithOne)
{
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    auto r = test::run_gpufem("run " + file.string() + " --backend gpu");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("auto,cpu,cuda"), std::string::npos) << r.output;
    r = test::run_gpufem("run " + file.string() + " --no-such-option");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "sine"));
    r = test::run_gpufem("run --help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(EndToEnd, OverridesAndOutputFolderApply)
{
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    const auto out = dir.path() / "elsewhere";
    const auto r = test::run_gpufem("run " + file.string() + " -o " + out.string() +
                                    " --set mesh.size=0.1 --set mesh.elements=triangle --set precision=float"
                                    " --set solver.tolerance=1e-5 -q");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto report = test::read_json(out / "report.json");
    EXPECT_EQ(report["mesh"]["cell_type"], "triangle");
    EXPECT_EQ(report["precision"], "float");
    EXPECT_EQ(report["case"]["solver"]["tolerance"], 1e-5);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "sine"));
}

TEST(EndToEnd, ResidentCgIsReportedAndSolvesAsTheUsualKernels)
{
    // The sine case with bdia and Jacobi: the case key reaches the solver, report.json says
    // which path ran, both give the same iterations and errors.
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    nlohmann::json reports[2];
    for (int on = 0; on < 2; ++on) {
        const auto out = dir.path() / (on ? "on" : "off");
        const auto r = test::run_gpufem("run " + file.string() + " -o " + out.string() +
                                        " --set format=bdia --set solver.preconditioner=jacobi -q" +
                                        " --set solver.resident_cg=" + (on ? "on" : "off"));
        ASSERT_EQ(r.exit_code, 0) << r.output;
        reports[on] = test::read_json(out / "report.json");
        EXPECT_EQ(reports[on]["solver"]["resident_cg"].get<bool>(), on == 1);
        EXPECT_EQ(reports[on]["case"]["solver"]["resident_cg"], on ? "on" : "off");
    }
    const int iterations = reports[0]["solver"]["iterations"];
    EXPECT_GT(iterations, 10);
    EXPECT_LE(std::abs(reports[1]["solver"]["iterations"].get<int>() - iterations), 1);
    const double l2 = reports[0]["errors"]["l2"];
    EXPECT_NEAR(reports[1]["errors"]["l2"].get<double>(), l2, 1e-6 * l2);
}

TEST(EndToEnd, NonConvergenceWritesOutputsAndExitsWithTwo)
{
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    const auto r = test::run_gpufem("run " + file.string() + " --set solver.max_iterations=3");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("max_iterations"), std::string::npos) << r.output;
    const auto report = test::read_json(dir.path() / "sine" / "report.json");
    EXPECT_FALSE(report["solver"]["converged"].get<bool>());
    EXPECT_EQ(report["solver"]["status"], "max_iterations");
}

TEST(EndToEnd, TrueResidualIsReportedAndAMissedToleranceIsStagnation)
{
    // poisson_square in float with tolerance 2e-7: CG's recursive residual gets there
    // (1.5e-7), the true residual of the float solution stays near 2e-6.
    test::TempDir dir;
    const std::string file = std::string(GPUFEM_SOURCE_DIR) + "/cases/examples/01_poisson_square.yaml";
    const auto out = dir.path() / "out";
    auto r = test::run_gpufem("run " + file + " --backend cpu -o " + out.string() +
                              " --set precision=float --set solver.tolerance=2e-7");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("stagnated"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("true residual ||b - A u|| / ||b|| of the solution is"), std::string::npos)
        << r.output;
    auto report = test::read_json(out / "report.json");
    EXPECT_EQ(report["solver"]["status"], "stagnated");
    EXPECT_FALSE(report["solver"]["converged"].get<bool>());
    EXPECT_LE(report["solver"]["final_relative_residual"].get<double>(), 2e-7);
    EXPECT_GT(report["solver"]["true_relative_residual"].get<double>(), 2e-6);
    // The float solution is also measured against the system assembled in double: also well
    // above the tolerance, and not the float figure itself (another system, exact arithmetic).
    const double in_double = report["solver"]["true_relative_residual_double"].get<double>();
    EXPECT_GT(in_double, 2e-6);
    EXPECT_LT(in_double, 1e-4);
    EXPECT_NE(in_double, report["solver"]["true_relative_residual"].get<double>());
    EXPECT_NE(r.output.find("true against the double system"), std::string::npos) << r.output;
    EXPECT_TRUE(std::filesystem::exists(out / "result.vtu")) << "the outputs are still written";
    // In double the same tolerance is met by both residuals.
    r = test::run_gpufem("run " + file + " --backend cpu -o " + out.string() +
                         " --set solver.tolerance=2e-7");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    report = test::read_json(out / "report.json");
    EXPECT_EQ(report["solver"]["status"], "converged");
    EXPECT_LE(report["solver"]["true_relative_residual"].get<double>(), 2e-6);
    EXPECT_TRUE(report["solver"]["true_relative_residual_double"].is_null());  // no second system
}

TEST(EndToEnd, FloatMatrixFreeRunsMeasureTheDoubleResidualMatrixFree)
{
    // The float solution's residual against the double system: with lma the system in
    // double is lma too (no CSR, which past 2^31 non-zeros does not exist); it agrees with
    // the csr run's figure (the same discrete problem, solutions within the tolerance).
    test::TempDir dir;
    const std::string file = std::string(GPUFEM_SOURCE_DIR) + "/cases/examples/01_poisson_square.yaml";
    double in_double[2] = {0, 0};
    int k = 0;
    for (const std::string format : {"csr", "lma"}) {
        const auto out = dir.path() / format;
        const auto r = test::run_gpufem("run " + file + " --backend cpu -o " + out.string() +
                                        " --set precision=float --set solver.tolerance=1e-5 --set format=" + format);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const auto report = test::read_json(out / "report.json");
        in_double[k++] = report["solver"]["true_relative_residual_double"].get<double>();
        EXPECT_GT(in_double[k - 1], 0.0) << format;
        EXPECT_LT(in_double[k - 1], 1e-4) << format;
    }
    EXPECT_NEAR(in_double[1], in_double[0], 0.5 * in_double[0]);
}

TEST(BadInput, CsrPastTwoToThe31NonZerosIsRefusedBeforeTheMesh)
{
    // scale_cube_100m's 2.7e9 non-zeros (an exact count: a generated cube) in a format that
    // reads 32-bit row offsets, or with csr's 64-bit ones for amg's setup, or assembled for
    // amg beside lma, are refused before anything is generated, even without the memory
    // check, naming what assembles and the ways out.
    test::TempDir dir;
    const std::string file = std::string(GPUFEM_SOURCE_DIR) + "/cases/benchmarks/scale_cube_100m.yaml";
    const std::string past = "non-zeros (1.005e+08 rows), past ";
    for (const auto& [extra, message] :
         {std::pair<std::string, std::string>{"--set format=sellp --set solver.preconditioner=jacobi",
                                              "past the 2,147,483,647 that 32-bit row offsets hold; use format: csr "
                                              "(64-bit row offsets past that) or lma"},
          {"--set solver.preconditioner=amg", "past the 2,147,483,647 that 32-bit row offsets hold; use format: csr"},
          {"--set format=csr --set solver.preconditioner=amg",
           "past 2,147,483,647: csr holds it with 64-bit row offsets, but preconditioner amg reads the matrix with "
           "32-bit row offsets; use jacobi, none, or pmg"},
          {"--set format=auto --set solver.preconditioner=amg", "csr holds it with 64-bit row offsets, but"}}) {
        const auto out = dir.path() / "out";
        const auto r = test::run_gpufem("run " + file + " --backend cpu --no-memory-check -o " + out.string() + " " +
                                        extra);
        EXPECT_EQ(r.exit_code, 1) << extra << ": " << r.output;
        EXPECT_NE(r.output.find(past), std::string::npos) << extra << ": " << r.output;
        EXPECT_NE(r.output.find(message), std::string::npos) << extra << ": " << r.output;
        EXPECT_EQ(r.output.find("loading mesh"), std::string::npos) << extra << ": nothing is generated";
        EXPECT_FALSE(std::filesystem::exists(out / "report.json")) << extra;
    }
    // The dry run says so too; csr with pmg (coarse operators from the element matrices) or
    // jacobi takes the matrix with 64-bit row offsets.
    const auto dry = test::run_gpufem("run " + file + " --backend cpu --dry-run --set format=sellp");
    EXPECT_EQ(dry.exit_code, 0) << dry.output;
    EXPECT_NE(dry.output.find("does not fit: format sellp: the matrix has 2.7"), std::string::npos) << dry.output;
    for (const std::string preconditioner : {"pmg", "jacobi"}) {
        const auto wide = test::run_gpufem("run " + file + " --backend cpu --dry-run --set format=csr "
                                           "--set solver.preconditioner=" + preconditioner);
        EXPECT_EQ(wide.exit_code, 0) << wide.output;
        EXPECT_NE(wide.output.find("; 64-bit row offsets"), std::string::npos) << wide.output;
        EXPECT_EQ(wide.output.find(past), std::string::npos) << wide.output;
    }
}

TEST(EndToEnd, SixtyFourBitRowOffsetsSolveAsThirtyTwo)
{
    // format_options.csr.offsets: 64 (what a matrix past 2^31 - 1 entries gets; asked for on a
    // small case): the same solution in as many iterations with jacobi and with pmg (degree 2:
    // its coarse operators from the element matrices instead of the CSR's Galerkin product),
    // report.json saying 64; amg, which reads 32-bit offsets, refused naming what works.
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    for (const std::string preconditioner : {"jacobi", "pmg"}) {
        const std::string common = " -q --set degree=2 --set solver.preconditioner=" + preconditioner;
        const auto narrow = dir.path() / ("narrow_" + preconditioner), wide = dir.path() / ("wide_" + preconditioner);
        ASSERT_EQ(test::run_gpufem("run " + file.string() + common + " -o " + narrow.string()).exit_code, 0);
        const auto r = test::run_gpufem("run " + file.string() + common + " --set format_options.csr.offsets=64 -o " +
                                        wide.string());
        ASSERT_EQ(r.exit_code, 0) << preconditioner << ": " << r.output;
        const auto a = test::read_json(narrow / "report.json"), b = test::read_json(wide / "report.json");
        EXPECT_EQ(a["matrix"]["row_offset_bits"], 32);
        EXPECT_EQ(b["matrix"]["row_offset_bits"], 64);
        EXPECT_EQ(a["matrix"]["nnz"], b["matrix"]["nnz"]);
        EXPECT_EQ(b["matrix"]["bytes_stored"].get<long long>(),
                  a["matrix"]["bytes_stored"].get<long long>() + 4 * (a["matrix"]["rows"].get<long long>() + 1));
        EXPECT_LE(std::abs(a["solver"]["iterations"].get<int>() - b["solver"]["iterations"].get<int>()), 1)
            << preconditioner;
        const auto cmp = test::run_gpufem("compare " + (narrow / "result.vtu").string() + " " +
                                          (wide / "result.vtu").string() + " --tolerance 1e-8");
        EXPECT_EQ(cmp.exit_code, 0) << preconditioner << ": " << cmp.output;
    }
    expect_rejected(std::string(sine_case) + "format_options:\n  csr:\n    offsets: 64\n",
                    {"preconditioner amg: the matrix has", "64-bit row offsets",
                     "use preconditioner jacobi, none, or pmg"},
                    "--set solver.preconditioner=amg");
}

TEST(BadInput, ToleranceBelowTheUnitRoundoff)
{
    expect_rejected("mesh:\n  shape: unit_square\nprecision: float\nsolver:\n  tolerance: 1e-14\n",
                    {"solver.tolerance 1.0e-14 is below the unit roundoff of float arithmetic (1.19e-07)",
                     "precision: double"});
    expect_rejected("mesh:\n  shape: unit_square\nsolver:\n  tolerance: 1e-30\n",
                    {"below the unit roundoff of double arithmetic (2.22e-16)"});
}

TEST(EndToEnd, HelpDescribesTheCaseFile)
{
    const auto top = test::run_gpufem("--help");
    EXPECT_EQ(top.exit_code, 0);
    EXPECT_NE(top.output.find("run"), std::string::npos);
    const auto run = test::run_gpufem("run --help");
    EXPECT_EQ(run.exit_code, 0);
    for (const char* key : {"--set", "--backend", "--output", "tolerance", "dirichlet", "unit_square"})
        EXPECT_NE(run.output.find(key), std::string::npos) << key;
}

TEST(BadInput, MalformedYaml)
{
    expect_rejected("mesh:\n  shape: unit_square\n  size: [0.1\n", {"bad.yaml:", "invalid YAML"});
}

TEST(BadInput, UnknownKeyNamedWithLine)
{
    expect_rejected("mesh:\n  shape: unit_square\nsolvr:\n  method: cg\n", {"bad.yaml", "solvr", ":3"});
}

TEST(BadInput, WrongTypeNamedWithLine)
{
    expect_rejected("mesh:\n  shape: unit_square\n  refine: abc\n", {"mesh.refine", ":3"});
}

TEST(BadInput, MissingMeshFile)
{
    expect_rejected("mesh:\n  file: no_such_mesh.msh\n", {"no_such_mesh.msh"});
}

TEST(BadInput, MeshFileThatIsAScriptIsNotRun)
{
    test::TempDir scratch;
    const auto marker = scratch.path() / "marker";
    const auto mesh = scratch.write("evil.msh", "System \"touch " + marker.string() + "\";\n");
    expect_rejected("mesh:\n  file: " + mesh.string() + "\n",
                    {"evil.msh", "is not a Gmsh mesh: its first line must be $MeshFormat"});
    EXPECT_FALSE(std::filesystem::exists(marker)) << "a command in a mesh file ran";
}

TEST(BadInput, GeoCommandsAreRefusedUnlessAllowed)
{
    test::TempDir scratch;
    const auto geo = scratch.write("exit.geo", "Point(1) = {0, 0, 0};\nExit;\n");
    expect_rejected("mesh:\n  geo: " + geo.string() + "\n", {"exit.geo", "line 2: 'Exit' is refused"});
    expect_rejected("mesh:\n  shape: unit_square\n  allow_commands: true\n",
                    {"allow_commands", "only valid with mesh.geo"});
}

TEST(BadInput, TangledMeshIsRefusedNamingTheCell)
{
    // The unit square in 8 triangles, its centre node moved to x = 1.2 (past its neighbours
    // on x = 1): the triangles on the right are inverted. Without the check it "converged".
    test::TempDir scratch;
    const auto mesh = scratch.write("tangled.msh", R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
2
1 1 "boundary"
2 2 "domain"
$EndPhysicalNames
$Nodes
9
1 0 0 0
2 0.5 0 0
3 1 0 0
4 0 0.5 0
5 1.2 0.5 0
6 1 0.5 0
7 0 1 0
8 0.5 1 0
9 1 1 0
$EndNodes
$Elements
16
1 1 2 1 1 1 2
2 1 2 1 1 2 3
3 1 2 1 1 3 6
4 1 2 1 1 6 9
5 1 2 1 1 9 8
6 1 2 1 1 8 7
7 1 2 1 1 7 4
8 1 2 1 1 4 1
9 2 2 2 1 1 2 5
10 2 2 2 1 1 5 4
11 2 2 2 1 2 3 6
12 2 2 2 1 2 6 5
13 2 2 2 1 4 5 8
14 2 2 2 1 4 8 7
15 2 2 2 1 5 6 9
16 2 2 2 1 5 9 8
$EndElements
)");
    expect_rejected("mesh:\n  file: " + mesh.string() + "\nproblem:\n  dirichlet:\n    boundary: 0\n",
                    {"tangled.msh", "is tangled", "inverted", "nodes at (0.5, 0, 0), (1, 0.5, 0), (1.2, 0.5, 0)"});
}

TEST(BadInput, ExactSolutionThatIsNotFiniteIsNamed)
{
    // sqrt(x - 0.5) is NaN on half the square: the norms used to read "l2": null,
    // "relative_l2": 0 with exit 0.
    expect_rejected("mesh:\n  shape: unit_square\nproblem:\n  f: 1\n  exact: \"sqrt(x - 0.5)\"\n"
                    "  dirichlet:\n    boundary: 0\n",
                    {"problem.exact = 'sqrt(x - 0.5)' is NaN at (0, 0, 0) (node 0)",
                     "finite everywhere"});
}

TEST(BadInput, NeumannGroupOnDirichletNodesIsRefused)
{
    expect_rejected("mesh:\n  shape: unit_square\nproblem:\n  f: 1\n  dirichlet:\n    boundary: 0\n"
                    "  neumann:\n    top: 1\n",
                    {"problem.neumann.top: every facet of group 'top' lies on nodes that Dirichlet "
                     "conditions fix (problem.dirichlet: boundary)"});
}

TEST(BadInput, RefinementBeyondTheMachineIsRefusedBeforeItStarts)
{
    // 8 hexahedra refined 10 times would be 8.6e9 cells: refused at once (it used to hang or
    // crash in Gmsh), naming the estimate and the largest refinement that fits.
    expect_rejected("mesh:\n  shape: unit_cube\n  size: 0.5\n  refine: 10\n",
                    {"refine 10 would make about 8.59e+09 cells from the 8 of the unrefined mesh",
                     "GB on the host", "is the most that fits"});
}

TEST(EndToEnd, UnusableBoundaryGroupIsIgnoredUnlessUsed)
{
    // Two triangles with a boundary group and an 'orphan' line on a node no cell uses: the
    // mesh used to be refused; now the group is ignored with a warning, refused if named.
    test::TempDir scratch;
    const auto mesh = scratch.write("orphan.msh", R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
3
1 1 "boundary"
1 3 "orphan"
2 2 "domain"
$EndPhysicalNames
$Nodes
5
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
5 2 2 0
$EndNodes
$Elements
7
1 1 2 1 1 1 2
2 1 2 1 1 2 3
3 1 2 1 1 3 4
4 1 2 1 1 4 1
5 1 2 3 2 3 5
6 2 2 2 1 1 2 3
7 2 2 2 1 1 3 4
$EndElements
)");
    const auto run_with = [&](const std::string& group) {
        const auto file = scratch.write("case.yaml", "mesh:\n  file: " + mesh.string() +
                                                         "\nproblem:\n  f: 1\n  dirichlet:\n    " +
                                                         group + ": 0\n");
        return test::run_gpufem("run " + file.string() + " -o " + (scratch.path() / "out").string());
    };
    auto r = run_with("boundary");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("boundary group 'orphan' is ignored"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("which no cell uses"), std::string::npos) << r.output;
    r = run_with("orphan");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("problem.dirichlet.orphan: boundary group 'orphan'"), std::string::npos)
        << r.output;
}

TEST(BadInput, UnknownPhysicalGroup)
{
    expect_rejected(
        "mesh:\n  shape: unit_square\n  size: 0.25\nproblem:\n  f: 1\n  dirichlet:\n    lefty: 0\n",
        {"lefty", "left", "boundary"});
}

TEST(BadInput, BadExpression)
{
    expect_rejected("mesh:\n  shape: unit_square\nproblem:\n  f: \"sin(x\"\n", {"problem.f", ":4"});
}

TEST(BadInput, BadOverride)
{
    expect_rejected(sine_case, {"mesh.refine"}, "--set mesh.refine=minus");
}

TEST(BadInput, MissingCaseFile)
{
    const auto r = test::run_gpufem("run /nonexistent/case.yaml");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("/nonexistent/case.yaml"), std::string::npos) << r.output;
}

TEST(Compare, SameSolutionFromTwoFormatsAndMismatchedMeshes)
{
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    ASSERT_EQ(test::run_gpufem("run " + file.string() + " -q -o " + (dir.path() / "a").string()).exit_code, 0);
    ASSERT_EQ(test::run_gpufem("run " + file.string() + " -q --set format=csr-scalar -o " +
                               (dir.path() / "b").string()).exit_code, 0);
    ASSERT_EQ(test::run_gpufem("run " + file.string() + " -q --set mesh.size=0.1 -o " +
                               (dir.path() / "c").string()).exit_code, 0);
    const auto a = (dir.path() / "a" / "result.vtu").string(), b = (dir.path() / "b" / "result.vtu").string(),
               c = (dir.path() / "c" / "result.vtu").string();
    const auto same = test::run_gpufem("compare " + a + " " + b + " --tolerance 1e-12");
    EXPECT_EQ(same.exit_code, 0) << same.output;
    EXPECT_NE(same.output.find("max |a-b|"), std::string::npos) << same.output;
    ASSERT_EQ(test::run_gpufem("run " + file.string() + " -q --set solver.tolerance=1e-2 -o " +
                               (dir.path() / "d").string()).exit_code, 0);
    const auto loose = test::run_gpufem("compare " + a + " " + (dir.path() / "d" / "result.vtu").string() +
                                        " --tolerance 1e-12");
    EXPECT_EQ(loose.exit_code, 1) << loose.output;
    EXPECT_NE(loose.output.find("exceeds tolerance"), std::string::npos) << loose.output;
    const auto exact = test::run_gpufem("compare " + a + " " + a + " --field nosuchfield");
    EXPECT_EQ(exact.exit_code, 1);
    EXPECT_NE(exact.output.find("nosuchfield"), std::string::npos) << exact.output;
    const auto other = test::run_gpufem("compare " + a + " " + c);
    EXPECT_EQ(other.exit_code, 1);
    EXPECT_NE(other.output.find("not the same mesh"), std::string::npos) << other.output;
}

TEST(Compare, CellFieldsOfFiniteVolumeResults)
{
    test::TempDir dir;
    const std::string text = "mesh: {shape: unit_square, elements: triangle, size: 0.1}\ndiscretisation: fv\n"
                             "problem:\n  f: \"1 + x\"\n  dirichlet: {boundary: 0}\nsolver: {tolerance: 1e-12}\n";
    const auto file = dir.write("fv.yaml", text);
    ASSERT_EQ(test::run_gpufem("run " + file.string() + " -q -o " + (dir.path() / "a").string()).exit_code, 0);
    ASSERT_EQ(test::run_gpufem("run " + file.string() + " -q --set solver.preconditioner=amg -o " +
                               (dir.path() / "b").string()).exit_code, 0);
    ASSERT_EQ(test::run_gpufem("run " + file.string() + " -q --set solver.tolerance=1e-3 -o " +
                               (dir.path() / "c").string()).exit_code, 0);
    const auto a = (dir.path() / "a" / "result.vtu").string(), b = (dir.path() / "b" / "result.vtu").string(),
               c = (dir.path() / "c" / "result.vtu").string();
    // deferred (no preconditioner) against implicit (amg): the same corrected solution.
    const auto same = test::run_gpufem("compare " + a + " " + b + " --tolerance 1e-9");
    EXPECT_EQ(same.exit_code, 0) << same.output;
    EXPECT_NE(same.output.find("over 200 cells"), std::string::npos) << same.output;
    const auto loose = test::run_gpufem("compare " + a + " " + c + " --tolerance 1e-9");
    EXPECT_EQ(loose.exit_code, 1) << loose.output;
    EXPECT_NE(loose.output.find("exceeds tolerance"), std::string::npos) << loose.output;
    const auto missing = test::run_gpufem("compare " + a + " " + b + " --field nosuchfield");
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.output.find("no point or cell field 'nosuchfield'"), std::string::npos) << missing.output;
}

TEST(Compare, NanAgainstFiniteIsADifferenceAndBadTolerancesAreRefused)
{
    test::TempDir dir;
    Mesh mesh;
    mesh.dim = 2;
    mesh.cell_type = ElementType::triangle;
    mesh.nodes_per_cell = 3;
    mesh.coordinates = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    mesh.cells = {0, 1, 2, 0, 2, 3};
    mesh.source = "two triangles";
    const auto a = dir.path() / "a.vtu", b = dir.path() / "b.vtu";
    write_vtu(a, mesh, {{"u", {1.0, 2.0, std::nan(""), 4.0}}}, {});
    write_vtu(b, mesh, {{"u", {1.0, 2.0, 3.0, 4.0}}}, {});
    auto r = test::run_gpufem("compare " + a.string() + " " + b.string() + " --tolerance 1");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("max |a-b| = inf"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("1 points are NaN or infinite in one result and not in the other (the first: point 2)"),
              std::string::npos)
        << r.output;
    r = test::run_gpufem("compare " + a.string() + " " + a.string() + " --tolerance 0");
    EXPECT_EQ(r.exit_code, 0) << "NaN against NaN is no difference\n" << r.output;
    for (const std::string bad : {"-1", "nan", "inf"}) {
        r = test::run_gpufem("compare " + b.string() + " " + b.string() + " --tolerance " + bad);
        EXPECT_EQ(r.exit_code, 1) << bad << "\n" << r.output;
        EXPECT_NE(r.output.find("--tolerance must be a finite number >= 0"), std::string::npos)
            << r.output;
    }
}

/// The header comment of a shipped case: its lines starting with '#', without the '#'.
std::vector<std::string> case_header(const std::filesystem::path& file)
{
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line) && line.starts_with("#");) lines.push_back(line.substr(1));
    return lines;
}

TEST(ShippedCases, EveryCaseRunsOnTheCpuAndIsInTheGallery)
{
    // Every case under cases/ states its purpose (first line), the memory it needs and what it
    // gives, appears in the gallery's table (docs/gallery.md), and runs on the CPU backend: as
    // shipped, or at the size its "Try on a CPU:" line sets (the GPU-sized benchmarks).
    const std::filesystem::path root(GPUFEM_SOURCE_DIR);
    std::ifstream gallery_file(root / "docs/gallery.md");
    std::stringstream gallery;
    gallery << gallery_file.rdbuf();
    test::TempDir dir;
    int count = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "cases")) {
        // cases/studies/ holds study files (ShippedStudies in test_study.cpp runs them).
        if (entry.path().extension() != ".yaml" || entry.path().parent_path().filename() == "studies") continue;
        const std::string relative = std::filesystem::relative(entry.path(), root).string();
        const std::string name = entry.path().stem().string();
        SCOPED_TRACE(relative);
        EXPECT_NE(gallery.str().find("](../" + relative + ")"), std::string::npos)
            << relative << " is not linked from the gallery's table in docs/gallery.md";
        const std::vector<std::string> header = case_header(entry.path());
        ASSERT_GE(header.size(), 3u) << "a purpose line, a Memory: line and an Expected line";
        const auto has = [&](const std::string& start) {
            return std::any_of(header.begin(), header.end(), [&](const std::string& l) { return l.starts_with(start); });
        };
        EXPECT_TRUE(has(" Memory:")) << "no '# Memory:' line";
        EXPECT_TRUE(has(" Expected")) << "no '# Expected' line";
        std::string extra;
        for (const std::string& line : header)
            if (line.starts_with(" Try on a CPU:")) extra = " " + line.substr(std::string(" Try on a CPU:").size());
        const auto r = test::run_gpufem("run " + entry.path().string() + " -q --backend cpu -o " +
                                        (dir.path() / name).string() + extra);
        EXPECT_EQ(r.exit_code, 0) << name << extra << ":\n" << r.output;
        if (r.exit_code != 0) continue;
        const auto report = test::read_json(dir.path() / name / "report.json");
        if (report.contains("sweep")) {
            for (const auto& row : report["sweep"]) EXPECT_TRUE(row["converged"].get<bool>()) << name;
        } else {
            EXPECT_TRUE(report["solver"]["converged"].get<bool>()) << name;
            if (report.contains("errors"))
                EXPECT_LT(report["errors"]["relative_l2"].get<double>(), 0.05) << name;
        }
        ++count;
    }
    EXPECT_GE(count, 30);
}

TEST(EndToEnd, EveryFormatGivesTheCsrSolution)
{
    // CG through each format's operator (bdia and staircase renumber the unknowns: the
    // pipeline permutes the system and the solution back) reaches csr's solution.
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    const auto ref = dir.path() / "csr";
    ASSERT_EQ(test::run_gpufem("run " + file.string() + " -q --set mesh.elements=triangle -o " + ref.string()).exit_code, 0);
    for (const std::string format : {"csr-scalar", "ell", "ellr", "sellp", "bdia", "staircase"}) {
        const auto out = dir.path() / format;
        const auto r = test::run_gpufem("run " + file.string() + " -q --set mesh.elements=triangle --set format=" +
                                        format + " -o " + out.string());
        ASSERT_EQ(r.exit_code, 0) << format << ":\n" << r.output;
        const auto cmp = test::run_gpufem("compare " + (ref / "result.vtu").string() + " " +
                                          (out / "result.vtu").string() + " --tolerance 1e-8");
        EXPECT_EQ(cmp.exit_code, 0) << format << ": " << cmp.output;
        EXPECT_EQ(test::read_json(out / "report.json")["format"], format);
    }
}

TEST(EndToEnd, PartialAssemblyGivesTheCsrSolutionAndRefusesTriangles)
{
    // format: pa through the whole run (its system, Jacobi and pmg, the output) on Q3
    // quadrilaterals reaches csr's solution, also with a Robin side (pmg's coarse operators
    // then from element matrices); a mesh of triangles exits 1 naming the format.
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    const auto robin = dir.write("robin.yaml", "mesh: {shape: unit_square, size: 0.1}\nproblem:\n  kappa: \"1 + x*y\"\n"
                                               "  f: 1\n  dirichlet: {left: y}\n  robin: {top: {h: \"2 + x\", u_inf: 3}}\n"
                                               "solver: {tolerance: 1e-10}\n");
    for (const auto& [preconditioner, case_file] :
         std::vector<std::pair<std::string, std::filesystem::path>>{{"jacobi", file}, {"pmg", file}, {"pmg", robin}}) {
        const std::string set = " -q --set degree=3 --set mesh.size=0.1 --set solver.preconditioner=" + preconditioner;
        const std::string name = case_file.stem().string() + "_" + preconditioner;
        const auto ref = dir.path() / ("csr_" + name);
        const auto out = dir.path() / ("pa_" + name);
        ASSERT_EQ(test::run_gpufem("run " + case_file.string() + set + " -o " + ref.string()).exit_code, 0);
        const auto r = test::run_gpufem("run " + case_file.string() + set + " --set format=pa -o " + out.string());
        ASSERT_EQ(r.exit_code, 0) << preconditioner << ":\n" << r.output;
        const auto cmp = test::run_gpufem("compare " + (ref / "result.vtu").string() + " " +
                                          (out / "result.vtu").string() + " --tolerance 1e-8");
        EXPECT_EQ(cmp.exit_code, 0) << preconditioner << ": " << cmp.output;
        const auto report = test::read_json(out / "report.json");
        EXPECT_EQ(report["format"], "pa");
        EXPECT_EQ(report["solver"]["iterations"], test::read_json(ref / "report.json")["solver"]["iterations"])
            << preconditioner;
    }
    const auto refused = dir.path() / "triangles";
    const auto r = test::run_gpufem("run " + file.string() + " -q --set mesh.elements=triangle --set format=pa -o " +
                                    refused.string());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("format pa"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(refused / "result.vtu"));
}

TEST(EndToEnd, DegreesFiveToEightRunMatrixFreeWithPmgAndWriteLagrangeCells)
{
    // Quadrilaterals of degree 5 to 8 (GLL nodes) through the whole run with format pa and
    // pmg: the csr solution, an error at the degree's level, a readable result.vtu of the
    // degree's Lagrange cells; hexahedra of degree 6 likewise.
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    double previous_error = 1.0;
    for (const std::string& extra : {std::string("--set degree=5"), std::string("--set degree=6"),
                                     std::string("--set degree=7"), std::string("--set degree=8"),
                                     std::string("--set degree=6 --set mesh.shape=unit_cube --set mesh.elements=hexahedron")}) {
        const std::string set = " -q --set mesh.size=0.25 --set solver.preconditioner=pmg --set solver.tolerance=1e-12 " + extra;
        const std::string name = std::to_string(std::hash<std::string>{}(extra));
        const auto ref = dir.path() / ("csr_" + name);
        const auto out = dir.path() / ("pa_" + name);
        ASSERT_EQ(test::run_gpufem("run " + file.string() + set + " -o " + ref.string()).exit_code, 0) << extra;
        const auto r = test::run_gpufem("run " + file.string() + set + " --set format=pa -o " + out.string());
        ASSERT_EQ(r.exit_code, 0) << extra << ":\n" << r.output;
        const auto cmp = test::run_gpufem("compare " + (ref / "result.vtu").string() + " " +
                                          (out / "result.vtu").string() + " --tolerance 1e-9");
        EXPECT_EQ(cmp.exit_code, 0) << extra << ": " << cmp.output;
        const auto report = test::read_json(out / "report.json");
        EXPECT_TRUE(report["solver"]["converged"].get<bool>()) << extra;
        EXPECT_LE(report["solver"]["iterations"].get<int>(), 40) << extra;
        const double error = report["errors"]["relative_l2"].get<double>();
        EXPECT_LT(error, 1e-5) << extra;
        if (extra.find("cube") == std::string::npos) {  // each degree more accurate than the last
            EXPECT_LT(error, previous_error) << extra;
            previous_error = error;
        }
    }
}

TEST(BenchSpmv, PrintsTheTableAndWritesCsvAndJson)
{
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    const auto out = dir.path() / "bench";
    const auto r = test::run_gpufem("bench spmv " + file.string() + " --backend cpu --set mesh.size=0.1 -n 50 -o " +
                                    out.string() + " --formats csr,ell,sellp");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("copy bandwidth"), std::string::npos) << r.output;
    const auto json = test::read_json(out / "bench_spmv.json");
    ASSERT_EQ(json["formats"].size(), 3u);
    for (const auto& f : json["formats"]) {
        EXPECT_EQ(f["error"], "") << f["format"];
        EXPECT_GT(f["spmv_median_seconds"].get<double>(), 0.0);
        EXPECT_LT(f["max_rel_error"].get<double>(), 1e-13);
    }
    EXPECT_TRUE(std::filesystem::exists(out / "bench_spmv.csv"));
    const auto bad = test::run_gpufem("bench spmv " + file.string() + " -n 50 --backend cpu -o " + out.string() +
                                      " --formats csr,nosuchformat");
    EXPECT_NE(bad.output.find("nosuchformat"), std::string::npos) << bad.output;
}

TEST(BenchSolver, TimesTheFloatCycleLevelByLevel)
{
    // pmg in float inside the double CG: the table of the float hierarchy's V-cycle, as for
    // a hierarchy in the system's precision.
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    const auto out = dir.path() / "bench";
    const auto r = test::run_gpufem("bench solver " + file.string() + " --backend cpu --set mesh.size=0.025 -f csr -m cg "
                                    "-p pmg -i 20 -n 1 --set solver.amg.precision=float -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("pmg V-cycle"), std::string::npos) << r.output;
    const auto json = test::read_json(out / "bench_solver.json");
    bool timed = false;
    for (const auto& row : json["rows"]) {
        if (row["variant"] != "merged") continue;
        ASSERT_GE(row["amg_cycle"].size(), 5u) << row.dump();
        EXPECT_EQ(row["amg_cycle"][0]["level"], 0);
        for (const auto& phase : row["amg_cycle"]) EXPECT_GT(phase["seconds"].get<double>(), 0.0) << phase.dump();
        timed = true;
    }
    EXPECT_TRUE(timed) << json.dump();
}

TEST(Sweep, RefinementSweepWritesTableCollectionAndRates)
{
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    const auto out = dir.path() / "sweep";
    const auto r = test::run_gpufem("run " + file.string() + " -q --set mesh.size=0.125 --set \"mesh.refine=[0, 1, 2]\" -o " +
                                    out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("gpufem sweep"), std::string::npos) << r.output;
    const auto report = test::read_json(out / "report.json");
    ASSERT_EQ(report["sweep"].size(), 3u);
    for (int k = 0; k < 3; ++k) {
        const auto& row = report["sweep"][k];
        EXPECT_EQ(row["refine"], k);
        EXPECT_TRUE(std::filesystem::exists(out / row["folder"].get<std::string>() / "result.vtu"));
        if (k > 0) EXPECT_NEAR(row["l2_rate"].get<double>(), 2.0, 0.2);
    }
    std::ifstream pvd(out / "result.pvd");
    const std::string text((std::istreambuf_iterator<char>(pvd)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("d1_r2/result.vtu"), std::string::npos) << text;
    EXPECT_TRUE(std::filesystem::exists(out / "sweep.csv"));
    // Each point's times are its own: the second's startup does not hold the first's run.
    const auto first = test::read_json(out / report["sweep"][0]["folder"].get<std::string>() / "report.json");
    const auto second = test::read_json(out / report["sweep"][1]["folder"].get<std::string>() / "report.json");
    EXPECT_LT(second["times"]["startup"].get<double>(), first["times"]["wall"].get<double>());
    EXPECT_LE(second["times"]["total"].get<double>(), second["times"]["wall"].get<double>() + 1e-3);
}

TEST(Sweep, CoefficientSweepSharesTheMeshAndUpdatesTheHierarchy)
{
    // Three kappas on one mesh with AMG: the first point loads the mesh and sets up the
    // hierarchy, the others take the mesh and update the hierarchy with their values; each
    // point's solution equals a run of that kappa alone (its own setup) to the tolerance, in
    // as many iterations (kappa = 2 scales the matrix: exactly the same hierarchy) or about.
    test::TempDir dir;
    const std::string text = R"yaml(mesh: {shape: unit_cube, elements: hexahedron, size: 0.1}
problem:
  kappa: ["1", "1 + 10*x*y", "2"]
  f: "1 + x"
  dirichlet: {left: 0, right: "y*z"}
solver: {preconditioner: amg, tolerance: 1e-10}
backend: cpu
)yaml";
    const auto file = dir.write("kappas.yaml", text);
    const auto out = dir.path() / "sweep";
    const auto r = test::run_gpufem("run " + file.string() + " -q -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("k1: kappa = 1 + 10*x*y"), std::string::npos) << r.output;
    const auto report = test::read_json(out / "report.json");
    ASSERT_EQ(report["sweep"].size(), 3u);
    const char* kappas[] = {"1", "1 + 10*x*y", "2"};
    for (int k = 0; k < 3; ++k) {
        const auto& row = report["sweep"][k];
        const std::string folder = "d1_r0_k" + std::to_string(k);
        EXPECT_EQ(row["kappa"], kappas[k]);
        EXPECT_EQ(row["folder"], folder);
        EXPECT_EQ(row["mesh_reused"], k > 0) << k;
        EXPECT_EQ(row["preconditioner"], k > 0 ? "updated" : "set up") << k;
        const auto point = test::read_json(out / folder / "report.json");
        EXPECT_EQ(point["case"]["problem"]["kappa"], kappas[k]);
        EXPECT_EQ(point["mesh"]["reused"], k > 0) << k;
        const auto& details = point["solver"]["preconditioner_details"];
        EXPECT_EQ(details.value("hierarchy", ""), k > 0 ? "updated" : "") << k;
        if (k > 0) EXPECT_GT(details["initial_setup_seconds"].get<double>(), 0.0);
        // The same kappa alone, set up from scratch.
        const auto alone = dir.path() / ("alone" + std::to_string(k));
        const auto single = test::run_gpufem("run " + file.string() + " -q -o " + alone.string() +
                                             " --set \"problem.kappa=" + kappas[k] + "\"");
        ASSERT_EQ(single.exit_code, 0) << single.output;
        const auto fresh = test::read_json(alone / "report.json");
        EXPECT_FALSE(fresh["solver"]["preconditioner_details"].contains("hierarchy"));
        const int updated_iterations = point["solver"]["iterations"].get<int>();
        const int fresh_iterations = fresh["solver"]["iterations"].get<int>();
        if (k == 2) {
            EXPECT_EQ(updated_iterations, fresh_iterations);
        } else {
            EXPECT_NEAR(updated_iterations, fresh_iterations, 2) << k;
        }
        const auto compare = test::run_gpufem("compare " + (out / folder / "result.vtu").string() + " " +
                                              (alone / "result.vtu").string() + " --tolerance 1e-8");
        EXPECT_EQ(compare.exit_code, 0) << k << ": " << compare.output;
    }
    // The points differ: kappa = 2 halves kappa = 1's solution (f and the Dirichlet data kept).
    const auto half = test::run_gpufem("compare " + (out / "d1_r0_k0" / "result.vtu").string() + " " +
                                       (out / "d1_r0_k2" / "result.vtu").string() + " --tolerance 1e-3");
    EXPECT_EQ(half.exit_code, 1) << half.output;
    std::ifstream csv(out / "sweep.csv");
    std::string header;
    std::getline(csv, header);
    EXPECT_NE(header.find("kappa"), std::string::npos) << header;
    std::ifstream pvd(out / "result.pvd");
    const std::string collection((std::istreambuf_iterator<char>(pvd)), std::istreambuf_iterator<char>());
    EXPECT_NE(collection.find("d1_r0_k2/result.vtu"), std::string::npos) << collection;
}

TEST(Sweep, GmshMeshesAreTheSameInEveryRun)
{
    // A degree sweep meshes the .geo file once per point, each time in a fresh mesh worker
    // (without the mesh cache, on one thread: Gmsh's own result is compared). ball.geo asks
    // for Gmsh's Delaunay (Mesh.Algorithm3D = 1, which gpufem keeps): every point of every run
    // must get the same mesh. (With gpufem's default, HXT, the mesh varied by a few of 707
    // cells between runs on the 16-core GPU host, even on one thread.)
    test::TempDir dir;
    const std::string source = std::string(GPUFEM_SOURCE_DIR) + "/cases/examples/07_curved_ball.yaml";
    std::vector<nlohmann::json> reports;
    for (int run = 0; run < 2; ++run) {
        const auto out = dir.path() / ("run" + std::to_string(run));
        const auto r = test::run_gpufem("run " + source + " -q --backend cpu -j 1 --set mesh.size=0.4 "
                                        "--set degree=[1,2] --set mesh.gmsh_threads=1 --no-mesh-cache -o " +
                                        out.string());
        ASSERT_EQ(r.exit_code, 0) << r.output;
        for (const char* point : {"d1_r0", "d2_r0"})
            reports.push_back(test::read_json(out / point / "report.json"));
    }
    for (int point = 0; point < 2; ++point) {
        const auto& first = reports[point];
        const auto& second = reports[point + 2];
        EXPECT_EQ(first["mesh"]["cells"], second["mesh"]["cells"]) << point;
        EXPECT_EQ(first["mesh"]["nodes"], second["mesh"]["nodes"]) << point;
        EXPECT_EQ(first["solver"]["iterations"], second["solver"]["iterations"]) << point;
        EXPECT_GT(first["times"]["mesh_gmsh"].get<double>(), 0.0);
    }
    EXPECT_EQ(reports[0]["mesh"]["cells"], reports[1]["mesh"]["cells"]);  // d1 and d2
}

TEST(MeshCache, ASecondRunLoadsTheMeshFromTheCache)
{
    // The first run meshes the .geo and caches it beside the file, the second and third load it
    // from there (with another source term and solver, then degree and refinement: they do not
    // reach Gmsh); with
    // --no-mesh-cache or mesh.cache: false nothing is read or written.
    test::TempDir dir;
    dir.write("plate.geo", "lc = 0.3;\nPoint(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc};\n"
                           "Point(3) = {1, 1, 0, lc}; Point(4) = {0, 1, 0, lc};\n"
                           "Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};\n"
                           "Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
                           "Physical Surface(\"domain\") = {1}; Physical Curve(\"edge\") = {1, 2, 3, 4};\n");
    const auto file = dir.write("plate.yaml", "mesh:\n  geo: plate.geo\nproblem:\n  f: 1\n"
                                              "  dirichlet:\n    edge: 0\n");
    const auto run = [&](const std::string& name, const std::string& flags) {
        const auto out = dir.path() / name;
        const auto r = test::run_gpufem("run " + file.string() + " --backend cpu -j 1 " + flags + " -o " + out.string());
        EXPECT_EQ(r.exit_code, 0) << r.output;
        return std::make_pair(r.output, test::read_json(out / "report.json"));
    };
    const auto [off_log, off] = run("off", "--no-mesh-cache");
    EXPECT_EQ(off["mesh"]["cache"], "off: mesh.cache: false");
    EXPECT_FALSE(std::filesystem::exists(dir.path() / ".gpufem-cache")) << off_log;
    const auto [first_log, first] = run("first", "");
    EXPECT_EQ(first["mesh"]["cache"], "stored");
    EXPECT_NE(first_log.find("mesh: cached to " + (dir.path() / ".gpufem-cache").string()), std::string::npos) << first_log;
    const auto [second_log, second] = run("second", "--set problem.f=2 --set solver.method=bicgstab");
    EXPECT_EQ(second["mesh"]["cache"], "hit");
    EXPECT_NE(second_log.find("mesh: from the cache " + (dir.path() / ".gpufem-cache").string()), std::string::npos)
        << second_log;
    EXPECT_NE(second_log.find("(Gmsh's mesh from the cache)"), std::string::npos) << second_log;  // the summary
    EXPECT_EQ(second["mesh"]["cells"], first["mesh"]["cells"]);
    EXPECT_EQ(second["times"]["mesh_gmsh"], 0.0);
    // Another degree and a refinement are gpufem's work on Gmsh's mesh of straight-sided geometry.
    const auto [finer_log, finer] = run("finer", "--set degree=2 --set mesh.refine=1");
    EXPECT_EQ(finer["mesh"]["cache"], "hit") << finer_log;
    EXPECT_EQ(finer["mesh"]["cells"], 4 * first["mesh"]["cells"].get<long long>());
    EXPECT_EQ(finer["times"]["mesh_gmsh"], 0.0);
    const auto [skipped_log, skipped] = run("skipped", "--set mesh.cache=false");
    EXPECT_EQ(skipped["mesh"]["cache"], "off: mesh.cache: false");
    EXPECT_EQ(skipped_log.find("from the cache"), std::string::npos) << skipped_log;
}

TEST(Sweep, AFailedPointIsMarkedAndTheCompletedOnesKept)
{
    // refine [0, 9]: the second point is refused (2.6e9 cells) when it runs (with
    // --no-memory-check, which skips the check of every point before the first); the first
    // one's folder stays, sweep_incomplete.json says what happened, no sweep table or
    // collection is written.
    test::TempDir dir;
    const auto file = dir.write("sweep.yaml", "mesh:\n  shape: unit_square\n  size: 0.01\n"
                                              "  refine: [0, 9]\nproblem:\n  f: 1\n"
                                              "  dirichlet:\n    boundary: 0\n");
    const auto out = dir.path() / "out";
    const auto r = test::run_gpufem("run " + file.string() + " -q --no-memory-check -o " + out.string());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("sweep point d1_r9 failed; 1 completed point(s) kept"), std::string::npos)
        << r.output;
    EXPECT_TRUE(std::filesystem::exists(out / "d1_r0" / "result.vtu"));
    EXPECT_FALSE(std::filesystem::exists(out / "d1_r9"));
    EXPECT_FALSE(std::filesystem::exists(out / "report.json"));
    EXPECT_FALSE(std::filesystem::exists(out / "sweep.csv"));
    const auto mark = test::read_json(out / "sweep_incomplete.json");
    EXPECT_EQ(mark["completed"], nlohmann::json::array({"d1_r0"}));
    EXPECT_EQ(mark["failed"]["folder"], "d1_r9");
    EXPECT_NE(mark["failed"]["error"].get<std::string>().find("refine 9 would make about"),
              std::string::npos);

    // Checked first (the default), the sweep stops before any point runs, naming the point.
    std::filesystem::remove_all(out);
    const auto checked = test::run_gpufem("run " + file.string() + " -q -o " + out.string());
    EXPECT_EQ(checked.exit_code, 1) << checked.output;
    EXPECT_NE(checked.output.find("sweep point degree 1, refine 9 (nothing run)"), std::string::npos)
        << checked.output;
    EXPECT_FALSE(std::filesystem::exists(out / "d1_r0"));
}

TEST(EndToEnd, SingleReductionCgGivesTheMergedSolution)
{
    // solver.variant: single_reduction from a case: the merged variant's solution and
    // iterations (+-1) with Jacobi folded into its kernels and with pmg applied between them,
    // reported under its name.
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    for (const std::string pre : {"jacobi", "pmg"}) {
        const std::string common = " -q --set degree=2 --set solver.preconditioner=" + pre;
        const auto merged = dir.path() / ("merged_" + pre);
        const auto single = dir.path() / ("single_" + pre);
        ASSERT_EQ(test::run_gpufem("run " + file.string() + common + " -o " + merged.string()).exit_code, 0);
        const auto r = test::run_gpufem("run " + file.string() + common +
                                        " --set solver.variant=single_reduction -o " + single.string());
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const auto m = test::read_json(merged / "report.json"), s = test::read_json(single / "report.json");
        EXPECT_EQ(s["solver"]["variant"], "single_reduction");
        EXPECT_LE(std::abs(m["solver"]["iterations"].get<int>() - s["solver"]["iterations"].get<int>()), 1) << pre;
        const auto cmp = test::run_gpufem("compare " + (merged / "result.vtu").string() + " " +
                                          (single / "result.vtu").string() + " --tolerance 1e-8");
        EXPECT_EQ(cmp.exit_code, 0) << pre << ": " << cmp.output;
    }
}

TEST(EndToEnd, LmaGivesTheCsrSolution)
{
    // Matrix-free LMA (atomic and colour scatter, full and symmetric storage) reaches the
    // assembled operator's solution, for degree 1 and 3, triangles and quadrilaterals.
    test::TempDir dir;
    const auto file = dir.write("sine.yaml", sine_case);
    for (const std::string mesh : {"--set mesh.elements=triangle --set mesh.size=0.1",
                                   "--set mesh.elements=quadrilateral --set mesh.size=0.1"}) {
        for (const std::string degree : {"1", "3"}) {
            const std::string common = mesh + " --set degree=" + degree;
            const auto ref = dir.path() / "csr";
            ASSERT_EQ(test::run_gpufem("run " + file.string() + " -q " + common + " -o " + ref.string()).exit_code, 0);
            for (const std::string options : {"--set format_options.scatter=atomic",
                                              "--set format_options.scatter=colour",
                                              "--set format_options.scatter=colour --set format_options.symmetric=true"}) {
                const auto out = dir.path() / "lma";
                const auto r = test::run_gpufem("run " + file.string() + " -q --set format=lma " + common + " " +
                                                options + " -o " + out.string());
                ASSERT_EQ(r.exit_code, 0) << common << " " << options << ":\n" << r.output;
                const auto cmp = test::run_gpufem("compare " + (ref / "result.vtu").string() + " " +
                                                  (out / "result.vtu").string() + " --tolerance 1e-8");
                EXPECT_EQ(cmp.exit_code, 0) << common << " " << options << ": " << cmp.output;
                EXPECT_EQ(test::read_json(out / "report.json")["format"], "lma");
            }
        }
    }
}

TEST(EndToEnd, BicgstabSolvesTheConvectionCaseWithEverySolverVariant)
{
    // The non-symmetric shipped case: BiCGSTAB reference and merged, with and without Jacobi,
    // reach the manufactured solution and the same iterate; CG is refused by its breakdown test
    // or stalls, with a hint towards BiCGSTAB.
    test::TempDir dir;
    const std::string file = std::string(GPUFEM_SOURCE_DIR) + "/cases/examples/03_convection_diffusion.yaml";
    const std::string coarse = " -q --backend cpu --set mesh.size=0.05";
    std::vector<double> first;
    for (const std::string variant : {"reference", "merged"})
        for (const std::string pre : {"none", "jacobi"}) {
            const auto out = dir.path() / (variant + "_" + pre);
            const auto r = test::run_gpufem("run " + file + coarse + " --set solver.variant=" +
                                            variant + " --set solver.preconditioner=" + pre +
                                            " -o " + out.string());
            ASSERT_EQ(r.exit_code, 0) << r.output;
            const auto report = test::read_json(out / "report.json");
            EXPECT_EQ(report["solver"]["method"], "bicgstab");
            EXPECT_EQ(report["solver"]["variant"], variant);
            EXPECT_LT(report["errors"]["relative_l2"].get<double>(), 1e-3) << variant << " " << pre;
            std::ifstream csv(out / "spmv_timings.csv");
            std::string header;
            std::getline(csv, header);
            EXPECT_EQ(header, "iteration,spmv,format,seconds");
            int lines = 0;
            for (std::string line; std::getline(csv, line);) ++lines;
            // Two SpMVs per iteration (one in a last iteration that converges on its half step).
            const int iterations = report["solver"]["iterations"].get<int>();
            EXPECT_TRUE(lines == 2 * iterations || lines == 2 * iterations - 1) << lines;
        }
    const auto cg = test::run_gpufem("run " + file + coarse +
                                     " --set solver.method=cg --set solver.max_iterations=3000 -o " +
                                     (dir.path() / "cg").string());
    if (cg.exit_code != 0) {
        EXPECT_NE(cg.output.find("bicgstab"), std::string::npos) << cg.output;
    }
}

// meshio (Debian's python3-meshio) reads gpufem's results, Lagrange hexahedra of order 2 and 3
// included (files are marked 1.0), when written with zlib or no compression (meshio has no
// LZ4 decompressor; docs/outputs.md says so), with the same u as VTK reads.
TEST(EndToEnd, MeshioReadsHighOrderHexahedraWrittenWithZlib)
{
    if (test::run_command("/usr/bin/python3 -c 'import meshio'").exit_code != 0)
        GTEST_SKIP() << "python3-meshio is not installed (scripts/setup.sh installs it)";
    test::TempDir dir;
    const auto file = dir.write("cube.yaml", R"yaml(
mesh:
  shape: unit_cube
  size: 0.25
problem:
  f: 1
  dirichlet:
    boundary: 0
backend: cpu
)yaml");
    for (const std::string args : {"--set degree=2 --set output.compression=zlib",
                                   "--set degree=3 --set output.compression=none"}) {
        SCOPED_TRACE(args);
        const auto out = dir.path() / "out";
        std::filesystem::remove_all(out);
        ASSERT_EQ(test::run_gpufem("run " + file.string() + " -q -o " + out.string() + " " + args).exit_code, 0);
        const auto script = dir.write("read.py", R"py(
import sys, meshio
m = meshio.read(sys.argv[1])
block = m.cells[0]
print(block.type, len(block.data), len(block.data[0]), len(m.points))
print(" ".join(repr(float(v)) for v in m.point_data["u"]))
)py");
        const auto r = test::run_command("/usr/bin/python3 " + script.string() + " " + (out / "result.vtu").string());
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const auto grid = test::read_vtu(out / "result.vtu");
        std::istringstream lines(r.output);
        std::string type;
        long cells = 0, per_cell = 0, points = 0;
        lines >> type >> cells >> per_cell >> points;
        EXPECT_EQ(type, "VTK_LAGRANGE_HEXAHEDRON");
        EXPECT_EQ(cells, grid->GetNumberOfCells());
        EXPECT_EQ(per_cell, grid->GetCell(0)->GetNumberOfPoints());
        ASSERT_EQ(points, grid->GetNumberOfPoints());
        vtkDataArray* u = grid->GetPointData()->GetArray("u");
        for (vtkIdType i = 0; i < points; ++i) {
            double value = 0;
            lines >> value;
            ASSERT_EQ(value, u->GetTuple1(i)) << i;
        }
    }
}

// Found by fuzzing (tests/fuzz/fuzz_msh, in-process variant): a binary .msh whose entity
// block was overwritten makes Gmsh 4.8's reader segfault (GModel::getMeshVertexByTag). gpufem
// reads Gmsh files in its mesh worker, so the user gets an error naming the file and the
// signal, exit code 1 and no output, not a crash.
TEST(EndToEnd, AMeshFileThatCrashesGmshIsAClearError)
{
    const std::string mesh = std::string(GPUFEM_SOURCE_DIR) + "/tests/mesh/data/gmsh_reader_crash.msh";
    test::TempDir dir;
    const auto file = dir.write("crash.yaml", "mesh:\n  file: " + mesh +
                                                  "\nproblem:\n  f: 1\n  dirichlet:\n    boundary: 0\n"
                                                  "backend: cpu\n");
    const auto out = dir.path() / "out";
    const auto r = test::run_gpufem("run " + file.string() + " -o " + out.string());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    for (const std::string part : {"gmsh_reader_crash.msh", "mesh worker"})
        EXPECT_NE(r.output.find(part), std::string::npos) << part << " in:\n" << r.output;
    // A worker built with AddressSanitizer reports the segfault and exits with code 1 instead.
    EXPECT_TRUE(r.output.find("signal 11 (Segmentation fault): Gmsh crashed") != std::string::npos ||
                r.output.find("AddressSanitizer: SEGV") != std::string::npos)
        << r.output;
    EXPECT_FALSE(std::filesystem::exists(out));
}
