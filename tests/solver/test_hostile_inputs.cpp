// Finite problems far from 1 get their solution, singular ones a clear error, and every
// message of a bad input says what is wrong: the gpufem program on cases written to a
// temporary folder.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <sys/stat.h>

#include "random_values.hpp"
#include "solver/run_gpufem.hpp"

using namespace gpufem;

namespace {

/// A small generated case (FE or FV) with f = F*(1 + x*y) and u = F*x on the left side, 0 on
/// the right; F is substituted.
std::string shape_case(const std::string& scale, const std::string& discretisation, const std::string& preconditioner)
{
    return fmt::format(R"yaml(mesh: {{shape: unit_square, elements: quadrilateral, size: 0.1}}
discretisation: {}
problem:
  kappa: "1 + x"
  f: "{}*(1 + x*y)"
  dirichlet:
    left: "{}*(1 + y)"
    right: 0
solver: {{method: cg, tolerance: 1e-11, preconditioner: {}}}
precision: double
backend: cpu
)yaml", discretisation, scale, scale, preconditioner);
}

/// The solution u of a run (point data for FE, cell data for FV).
std::vector<double> solution_of(const std::filesystem::path& out)
{
    const auto grid = test::read_vtu(out / "result.vtu");
    vtkDataArray* u = grid->GetPointData()->GetArray("u");
    if (!u) u = grid->GetCellData()->GetArray("u");
    std::vector<double> values;
    if (!u) return values;
    for (vtkIdType i = 0; i < u->GetNumberOfTuples(); ++i) values.push_back(u->GetTuple1(i));
    return values;
}

/// Runs a case text; the result (exit code and output) and the run's output folder.
test::CommandResult run_case(const test::TempDir& dir, const std::string& name, const std::string& yaml,
                             const std::string& extra = "")
{
    const auto file = dir.write(name + ".yaml", yaml);
    return test::run_gpufem("run " + file.string() + " -q -o " + (dir.path() / name).string() + " " + extra);
}

/// Runs the case at scale 1 and at 10^power (power random in [150, 300], both signs), and
/// expects the second solution to be the first times the scale.
void expect_scaled_solution(const std::string& discretisation, const std::string& preconditioner)
{
    test::TempDir dir;
    std::mt19937 rng(test::random_seed());
    const auto plain = run_case(dir, "plain", shape_case("1", discretisation, preconditioner));
    ASSERT_EQ(plain.exit_code, 0) << plain.output;
    const std::vector<double> u = solution_of(dir.path() / "plain");
    ASSERT_FALSE(u.empty());
    for (const int sign : {-1, 1}) {
        const int power = sign * std::uniform_int_distribution<int>(150, 300)(rng);
        const std::string name = "scaled" + std::to_string(power + 1000);
        const auto r = run_case(dir, name, shape_case(fmt::format("1e{}", power), discretisation, preconditioner));
        ASSERT_EQ(r.exit_code, 0) << power << "\n" << r.output;
        const std::vector<double> scaled = solution_of(dir.path() / name);
        ASSERT_EQ(scaled.size(), u.size());
        double largest = 0, worst = 0;
        for (std::size_t i = 0; i < u.size(); ++i) {
            largest = std::max(largest, std::abs(u[i]));
            worst = std::max(worst, std::abs(scaled[i] / std::pow(10.0, power) - u[i]));
        }
        EXPECT_GT(largest, 0.1);
        EXPECT_LT(worst, 1e-8 * largest) << discretisation << " " << preconditioner << " 1e" << power;
    }
}

/// A Matrix Market file of the tridiagonal (-1, 4, -1) times value, n rows.
std::string tridiagonal(int n, const std::string& diagonal, const std::string& off)
{
    std::string text = fmt::format("%%MatrixMarket matrix coordinate real general\n{} {} {}\n", n, n, 3 * n - 2);
    for (int i = 1; i <= n; ++i) {
        if (i > 1) text += fmt::format("{} {} {}\n", i, i - 1, off);
        text += fmt::format("{} {} {}\n", i, i, diagonal);
        if (i < n) text += fmt::format("{} {} {}\n", i, i + 1, off);
    }
    return text;
}

/// A case solving the matrix file name (b = A 1) with the given solver settings.
std::string matrix_case(const std::string& name, const std::string& solver = "{method: cg, tolerance: 1e-10}")
{
    return "matrix: {file: " + name + "}\nsolver: " + solver + "\nbackend: cpu\n";
}

/// Expects a run to fail with exit code 1, its output holding every part, no result written.
void expect_refused(const test::TempDir& dir, const std::string& name, const std::string& yaml,
                    const std::vector<std::string>& parts, const std::string& extra = "")
{
    const auto r = run_case(dir, name, yaml, extra);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    for (const std::string& part : parts)
        EXPECT_NE(r.output.find(part), std::string::npos) << "missing '" << part << "' in:\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / name / "result.vtu")) << name;
}

}  // namespace

TEST(HostileInputs, FiniteElementsSolveTinyAndHugeDataAsScaledCopies)
{
    expect_scaled_solution("fe", "none");
    expect_scaled_solution("fe", "amg");
}

TEST(HostileInputs, FiniteVolumesSolveTinyAndHugeDataAsScaledCopies)
{
    expect_scaled_solution("fv", "jacobi");
    expect_scaled_solution("fv", "amg");
}

TEST(HostileInputs, ATinyDirichletValueIsKeptWithoutASource)
{
    test::TempDir dir;
    const auto r = run_case(dir, "tiny", "mesh: {shape: unit_square, elements: quadrilateral, size: 0.1}\n"
                                         "problem:\n  f: 0\n  dirichlet:\n    left: 1e-170\n    right: 0\n"
                                         "backend: cpu\n");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("right-hand side is zero"), std::string::npos) << r.output;
    double largest = 0;
    for (const double value : solution_of(dir.path() / "tiny")) largest = std::max(largest, value);
    EXPECT_NEAR(largest / 1e-170, 1.0, 1e-12);
}

TEST(HostileInputs, MatrixFilesOfTinyOrHugeEntriesSolveToOne)
{
    test::TempDir dir;
    std::mt19937 rng(test::random_seed());
    for (const int sign : {-1, 1}) {
        const int power = sign * std::uniform_int_distribution<int>(150, 300)(rng);
        dir.write("a.mtx", tridiagonal(50, fmt::format("4e{}", power), fmt::format("-1e{}", power)));
        for (const std::string precision : {"double", "float"}) {
            const std::string name = fmt::format("{}{}", precision, power + 1000);
            const auto r = run_case(dir, name, matrix_case("a.mtx", "{method: cg, tolerance: 1e-6}") +
                                                   "precision: " + precision + "\n");
            ASSERT_EQ(r.exit_code, 0) << power << "\n" << r.output;
            const auto report = test::read_json(dir.path() / name / "report.json");
            EXPECT_LT(report["errors"]["max_nodal"].get<double>(), 1e-5) << precision << " 1e" << power;
        }
    }
}

TEST(HostileInputs, FloatWarnsAboutMatrixValuesOutsideItsRange)
{
    test::TempDir dir;
    // Entries spanning 1e-60 .. 4: scaled or not, float cannot hold the smallest.
    std::string text = tridiagonal(4, "4", "-1");
    text.replace(text.find("1 2 -1"), 6, "1 2 -1e-60");
    dir.write("a.mtx", text);
    const auto r = run_case(dir, "float", matrix_case("a.mtx", "{method: bicgstab, tolerance: 1e-6}") +
                                              "precision: float\n");
    EXPECT_NE(r.output.find("outside float's range"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("use precision: double"), std::string::npos) << r.output;
}

TEST(HostileInputs, SingularMatricesAreRefusedNamingTheRow)
{
    test::TempDir dir;
    const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
    dir.write("zero.mtx", banner + "1 1 1\n1 1 0\n");
    expect_refused(dir, "zero", matrix_case("zero.mtx"), {"zero.mtx: row 1 (1-based) holds only zeros", "singular"});
    dir.write("empty.mtx", banner + "3 3 2\n1 1 1\n3 3 1\n");
    expect_refused(dir, "empty", matrix_case("empty.mtx"), {"empty.mtx: row 2 (1-based) has no entries"});
    dir.write("column.mtx", banner + "2 2 2\n1 1 1\n2 1 1\n");
    expect_refused(dir, "column", matrix_case("column.mtx"), {"column 2 (1-based) has no non-zero entry"});
    dir.write("diagonal.mtx", banner + "2 2 3\n1 1 1\n1 2 1\n2 1 1\n");
    expect_refused(dir, "diagonal", matrix_case("diagonal.mtx"),
                   {"row 2 of the matrix file (1-based) has a zero diagonal"});
    expect_refused(dir, "jacobi", matrix_case("diagonal.mtx", "{method: bicgstab, preconditioner: jacobi}"),
                   {"with preconditioner jacobi", "row 2 of the matrix file (1-based) has a zero diagonal"});
    // Without a preconditioner BiCGSTAB may take an indefinite matrix: warned, solved.
    const auto r = run_case(dir, "indefinite", matrix_case("diagonal.mtx", "{method: bicgstab}"));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("has a zero diagonal"), std::string::npos) << r.output;
}

TEST(HostileInputs, AmgConvergesOnAKappaContrastOf1e12)
{
    test::TempDir dir;
    const auto r = run_case(dir, "contrast",
                            "mesh: {shape: unit_square, elements: quadrilateral, size: 0.1}\n"
                            "problem:\n  kappa: \"x < 0.5 ? 1e12 : 1\"\n  f: 1\n  dirichlet: {boundary: 0}\n"
                            "solver: {method: cg, tolerance: 1e-10, preconditioner: amg}\nbackend: cpu\n");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto report = test::read_json(dir.path() / "contrast" / "report.json");
    EXPECT_TRUE(report["solver"]["converged"].get<bool>()) << r.output;
    EXPECT_LT(report["solver"]["final_relative_residual"].get<double>(), 1e-10);
}

TEST(HostileInputs, AHeaderAnnouncingMoreEntriesThanTheFileHoldsIsMalformed)
{
    test::TempDir dir;
    dir.write("big.mtx", "%%MatrixMarket matrix coordinate real general\n100000 100000 10000000000\n1 1 1\n");
    expect_refused(dir, "big", matrix_case("big.mtx"),
                   {"big.mtx:2: malformed size line", "announces 10000000000 entries, more than the file can hold",
                    "bytes"});
}

TEST(HostileInputs, APathThatIsNotAFileSaysWhatItIs)
{
    test::TempDir dir;
    const auto fifo = dir.path() / "pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::vector<std::pair<std::string, std::string>> kinds = {
        {dir.path().string(), "is a folder, not a file"},
        {"/dev/zero", "is a device, not a file"},
        {fifo.string(), "is a FIFO (named pipe), not a file"}};
    for (const auto& [path, kind] : kinds) {
        expect_refused(dir, "matrix", "matrix: {file: " + path + "}\nbackend: cpu\n", {"matrix.file", kind});
        expect_refused(dir, "mesh", "mesh: {file: " + path + "}\nbackend: cpu\n", {"mesh.file", kind});
        const auto r = test::run_gpufem("run " + path + " -q");
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_NE(r.output.find("case file '" + path + "' " + kind), std::string::npos) << r.output;
    }
}

TEST(HostileInputs, SetErrorsNameTheSetOptionNotACaseFileLine)
{
    test::TempDir dir;
    const std::string yaml = shape_case("1", "fe", "none");
    for (const std::string set : {"solver.tolerance=abc", "matrix.file=/dev/zero", "mesh.size=[0.1"}) {
        const auto r = run_case(dir, "set", yaml, "--set '" + set + "'");
        EXPECT_EQ(r.exit_code, 1) << r.output;
        // The error is placed at the --set option (the case file's line may follow as context).
        EXPECT_NE(r.output.find("error: --set " + set + ":"), std::string::npos) << r.output;
    }
}

TEST(HostileInputs, FloatWarnsAboutCaseDataOutsideItsRange)
{
    test::TempDir dir;
    const auto r = run_case(dir, "float", shape_case("1e-300", "fe", "none"),
                            "--set precision=float --set solver.tolerance=1e-6");
    EXPECT_NE(r.output.find("precision float: problem.f holds 1e-300, outside float's range"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("use precision: double"), std::string::npos) << r.output;
    const auto ordinary = run_case(dir, "ordinary", shape_case("1", "fe", "none"),
                                   "--set precision=float --set solver.tolerance=1e-6");
    EXPECT_EQ(ordinary.exit_code, 0) << ordinary.output;
    EXPECT_EQ(ordinary.output.find("outside float's range"), std::string::npos) << ordinary.output;
}
