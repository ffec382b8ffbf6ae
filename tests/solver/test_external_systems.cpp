// Matrix Market systems, reordering and format: auto end to end on the CPU backend: systems
// exported as Matrix Market and read back as matrix cases, the reordering option for every
// assembled format, and format: auto.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "assembly/operator_levels.hpp"
#include "linalg/matrix_market.hpp"
#include "linalg/reordering.hpp"
#include "run_gpufem.hpp"
#include "solver/run/format_choice.hpp"
#include "solver/run/pipeline.hpp"
#include "external_system_test_support.hpp"

using namespace gpufem;

namespace {

using test::relative_difference;

/// A manufactured problem with a variable kappa, so that the matrix is not a stencil.
const std::string square_case = test::square_p2_case(0.05) + "backend: cpu\n";


}  // namespace

TEST(ExternalSystem, AnExportedSystemReimportedSolvesToTheSameSolution)
{
    test::TempDir dir;
    const auto mesh_case = dir.write("square.yaml", square_case);
    const auto exported = dir.path() / "exported";
    const auto r1 = test::run_gpufem("run " + mesh_case.string() + " -q -o " + (dir.path() / "out1").string() +
                                     " --export-matrix " + exported.string());
    ASSERT_EQ(r1.exit_code, 0) << r1.output;
    for (const char* name : {"A.mtx", "b.mtx", "x.mtx"}) EXPECT_TRUE(std::filesystem::exists(exported / name)) << name;
    const Csr<double> a = read_matrix_market(exported / "A.mtx");
    const nlohmann::json report1 = test::read_json(dir.path() / "out1" / "report.json");
    EXPECT_EQ(a.rows, report1["matrix"]["rows"].get<int>());
    EXPECT_EQ(static_cast<long long>(a.nnz()), report1["matrix"]["nnz"].get<long long>());

    // The same system as a matrix case, in another format and with BiCGSTAB.
    const auto matrix_case = dir.write("system.yaml", R"yaml(
matrix: {file: exported/A.mtx, rhs: exported/b.mtx}
format: sellp
solver: {method: bicgstab, tolerance: 1e-11, max_iterations: 5000}
backend: cpu
)yaml");
    const auto r2 = test::run_gpufem("run " + matrix_case.string() + " -o " + (dir.path() / "out2").string());
    ASSERT_EQ(r2.exit_code, 0) << r2.output;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "out2" / "result.vtu"));
    const std::vector<double> x = read_matrix_market_vector(exported / "x.mtx");
    const std::vector<double> u = read_matrix_market_vector(dir.path() / "out2" / "solution.mtx");
    EXPECT_LT(relative_difference(u, x), 1e-8);
    const nlohmann::json report2 = test::read_json(dir.path() / "out2" / "report.json");
    EXPECT_EQ(report2["unknowns"]["on"], "rows");
    EXPECT_GT(report2["times"]["read"].get<double>(), 0.0);
    EXPECT_TRUE(report2["solver"]["converged"].get<bool>());
    EXPECT_FALSE(report2.contains("errors"));  // b was given: no exact solution
}

TEST(ExternalSystem, WithoutARightHandSideTheErrorAgainstOnesIsReported)
{
    // A random symmetric diagonally dominant matrix written as its lower triangle.
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> value(-1.0, 0.0);
    std::uniform_int_distribution<int> column(0, 399);
    const int n = 400;
    std::vector<std::tuple<int, int, double>> lower;
    // Row sums in [1, 3]: A 1 is not a multiple of 1 (CG would be exact in one step).
    std::vector<double> diagonal(n);
    std::uniform_real_distribution<double> excess(1.0, 3.0);
    for (double& d : diagonal) d = excess(rng);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 4; ++k) {
            const int j = column(rng);
            if (j >= i) continue;
            const double v = value(rng);
            lower.emplace_back(i, j, v);
            diagonal[i] -= v;
            diagonal[j] -= v;
        }
    std::string text = "%%MatrixMarket matrix coordinate real symmetric\n% random SPD\n" +
                       std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(lower.size() + n) + "\n";
    for (int i = 0; i < n; ++i) text += fmt::format("{} {} {:.17g}\n", i + 1, i + 1, diagonal[i]);
    for (const auto& [i, j, v] : lower) text += fmt::format("{} {} {:.17g}\n", i + 1, j + 1, v);
    test::TempDir dir;
    dir.write("A.mtx", text);
    const auto matrix_case = dir.write("ones.yaml", "matrix: {file: A.mtx}\nformat: ell\nprecision: float\n"
                                                    "solver: {tolerance: 1e-6}\nbackend: cpu\n");
    const auto r = test::run_gpufem("run " + matrix_case.string() + " -q -o " + (dir.path() / "out").string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json report = test::read_json(dir.path() / "out" / "report.json");
    ASSERT_TRUE(report.contains("errors"));
    EXPECT_LT(report["errors"]["max_nodal"].get<double>(), 1e-4);
    EXPECT_GT(report["errors"]["max_nodal"].get<double>(), 0.0);  // float: not exact
    EXPECT_NEAR(report["errors"]["relative_l2"].get<double>(),
                report["errors"]["l2"].get<double>() / std::sqrt(400.0), 1e-15);
    EXPECT_GE(report["solver"]["true_relative_residual_double"].get<double>(), 0.0);
}

TEST(ExternalSystem, BadInputIsAClearErrorWithNothingWritten)
{
    test::TempDir dir;
    dir.write("bad.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 2 1.0\n");
    dir.write("rect.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1.0\n");
    dir.write("ok.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 2 1.0\n");
    dir.write("b3.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n");
    const struct {
        std::string yaml;
        std::vector<std::string> parts;
    } cases[] = {
        {"matrix: {file: bad.mtx}\n", {"bad.mtx:4", "row"}},
        {"matrix: {file: rect.mtx}\n", {"rect.mtx", "2 x 3", "square"}},
        {"matrix: {file: ok.mtx, rhs: b3.mtx}\n", {"b3.mtx", "3 entries", "2 rows"}},
        {"matrix: {file: missing.mtx}\n", {"case.yaml:1", "matrix.file", "missing.mtx' not found"}},
        {"matrix: {file: ok.mtx}\nmesh: {shape: unit_square}\n", {"case.yaml:2", "'mesh' is not used with matrix"}},
        {"matrix: {file: ok.mtx}\nformat: lma\n", {"lma", "matrix-free"}},
        {"matrix: {file: ok.mtx}\noutput: {fluxes: true}\n", {"case.yaml:2", "output.fluxes", "no mesh"}},
        {"mesh: {shape: unit_square}\nformat: lma\nreorder: rcm\n", {"case.yaml:3", "reorder", "matrix-free"}},
        {"mesh: {shape: unit_square}\nauto_iterations: 10\n", {"case.yaml:2", "only used with format: auto"}},
        {"mesh: {shape: unit_square}\nreorder: metis\n", {"case.yaml:2", "reorder", "rcm"}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.yaml);
        const auto file = dir.write("case.yaml", c.yaml + "backend: cpu\n");
        const auto out = dir.path() / "out";
        const auto r = test::run_gpufem("run " + file.string() + " -o " + out.string());
        EXPECT_EQ(r.exit_code, 1) << r.output;
        for (const auto& part : c.parts)
            EXPECT_NE(r.output.find(part), std::string::npos) << "missing '" << part << "' in:\n" << r.output;
        EXPECT_FALSE(std::filesystem::exists(out) && !std::filesystem::is_empty(out)) << "files left behind";
    }
}

TEST(Reordering, LeavesEveryFormatsSolutionUnchanged)
{
    const CaseSpec base = parse_case_text(square_case, "square.yaml", ".");
    const CaseMesh input = load_case_mesh(base);
    const ExecPtr exec = Executor::create_cpu();
    std::vector<double> reference;
    for (const std::string& format : assembled_formats().names_on(Backend::cpu)) {
        for (const Reordering reorder : {Reordering::none, Reordering::rcm, Reordering::cm}) {
            SCOPED_TRACE(format + " reorder " + std::string(enum_name(reordering_names, reorder)));
            CaseSpec spec = base;
            spec.format = format;
            spec.format_options.set_reordering(reorder);
            const auto disc = make_discretisation<double>(spec, input);
            const DiscreteSystem<double> system = build_case_system(exec, *disc, spec);
            if (reorder != Reordering::none) {
                EXPECT_FALSE(system.op.permutation.empty());
                EXPECT_GT(system.op.reorder_seconds, 0.0);
                EXPECT_NE(system.op.host_steps.find("Cuthill-McKee"), std::string::npos);
            }
            const SystemSolution<double> solved = solve_system(system, spec.solver);
            ASSERT_TRUE(solved.result.converged());
            const std::vector<double> u = solved.x.to_host();
            if (reference.empty()) reference = u;
            else EXPECT_LT(relative_difference(u, reference), 1e-8);
        }
    }
}

TEST(Reordering, ReverseCuthillMcKeeNarrowsTheBandOfAShuffledMatrix)
{
    // The exported matrix's band after rcm is far below that of a random relabelling.
    const CaseSpec spec = parse_case_text(square_case, "square.yaml", ".");
    const CaseMesh input = load_case_mesh(spec);
    const ExecPtr exec = Executor::create_cpu();
    const auto disc = make_discretisation<double>(spec, input);
    const Csr<double> a = disc->assemble(exec).matrix;
    std::vector<index_type> shuffle(static_cast<std::size_t>(a.rows));
    std::iota(shuffle.begin(), shuffle.end(), 0);
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::shuffle(shuffle.begin(), shuffle.end(), std::mt19937(seed));
    const Csr<double> shuffled = permute_symmetric(a, Array<index_type>::from_host(exec, shuffle));
    FormatOptions options;
    options.set_reordering(Reordering::rcm);
    const FormatBuild<double> csr = build_format<double>("csr", shuffled.clone_to(exec), options);
    const Csr<double>* reordered_matrix = csr.op->stored_csr();
    ASSERT_NE(reordered_matrix, nullptr);
    EXPECT_LT(half_bandwidth(*reordered_matrix) * 10, half_bandwidth(shuffled));
}

TEST(FormatAuto, ChoosesAValidFormatAndReportsItsTable)
{
    test::TempDir dir;
    const auto file = dir.write("auto.yaml", square_case + "format: auto\nreorder: rcm\n");
    const auto r = test::run_gpufem("run " + file.string() + " -o " + (dir.path() / "out").string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("format auto:"), std::string::npos) << r.output;
    const nlohmann::json report = test::read_json(dir.path() / "out" / "report.json");
    const std::string chosen = report["format_choice"]["chosen"];
    EXPECT_EQ(report["format"], chosen);
    EXPECT_NE(chosen, "auto");
    EXPECT_NE(assembled_formats().find(chosen), nullptr);
    EXPECT_EQ(report["reorder"], "rcm");
    EXPECT_GT(report["times"]["format_choice"].get<double>(), 0.0);
    EXPECT_GT(report["format_choice"]["expected_iterations"].get<double>(), 0.0);
    // Every candidate the CPU has was tried, and the chosen one has the smallest expected time.
    double best = 1e300;
    std::string best_name;
    EXPECT_EQ(report["format_choice"]["candidates"].size(), auto_format_candidates(Backend::cpu).size());
    for (const auto& c : report["format_choice"]["candidates"]) {
        if (!c["error"].is_null()) continue;
        EXPECT_GT(c["spmv_seconds"].get<double>(), 0.0) << c.dump();
        if (c["expected_seconds"].get<double>() < best) {
            best = c["expected_seconds"].get<double>();
            best_name = c["format"];
        }
    }
    EXPECT_EQ(best_name, chosen);
    EXPECT_TRUE(report["solver"]["converged"].get<bool>());
}

TEST(FormatAuto, TheUsersIterationHintIsUsed)
{
    const CaseSpec spec = parse_case_text(square_case + "format: auto\nauto_iterations: 1234\n",
                                          "auto.yaml", ".");
    const CaseMesh input = load_case_mesh(spec);
    const ExecPtr exec = Executor::create_cpu();
    const auto disc = make_discretisation<double>(spec, input);
    LinearSystem<double> system = disc->assemble(exec);
    std::optional<ReorderedMatrix<double>> reordering;
    const FormatChoice choice = choose_format(system, spec, reordering);
    EXPECT_FALSE(reordering);
    EXPECT_EQ(choice.expected_iterations, 1234);
    EXPECT_EQ(choice.iterations_source, "auto_iterations");
    EXPECT_NE(choice.table().find(choice.format), std::string::npos);
}

TEST(ExternalSystem, TheBenchmarksRunOnAMatrixCase)
{
    test::TempDir dir;
    const auto mesh_case = dir.write("square.yaml", square_case);
    ASSERT_EQ(test::run_gpufem("run " + mesh_case.string() + " -q -o " + (dir.path() / "out").string() +
                               " --set output.write=false --export-matrix " + (dir.path() / "sys").string())
                  .exit_code,
              0);
    const auto matrix_case = dir.write("system.yaml", "matrix: {file: sys/A.mtx, rhs: sys/b.mtx}\nbackend: cpu\n");
    const auto spmv = test::run_gpufem("bench spmv " + matrix_case.string() + " -f csr,sellp,staircase -n 50 "
                                       "--cg-iterations 0 -o " + (dir.path() / "spmv").string());
    ASSERT_EQ(spmv.exit_code, 0) << spmv.output;
    EXPECT_NE(spmv.output.find("external system"), std::string::npos) << spmv.output;
    const nlohmann::json bench = test::read_json(dir.path() / "spmv" / "bench_spmv.json");
    ASSERT_EQ(bench["formats"].size(), 3u);
    for (const auto& row : bench["formats"]) {
        EXPECT_TRUE(row["error"].is_null() || row["error"] == "") << row.dump();
        EXPECT_LT(row["max_rel_error"].get<double>(), 1e-12) << row.dump();
    }
    const auto solver = test::run_gpufem("bench solver " + matrix_case.string() + " -f csr -m cg,bicgstab "
                                         "-p jacobi,amg -n 1 -o " + (dir.path() / "solver").string());
    ASSERT_EQ(solver.exit_code, 0) << solver.output;
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "solver" / "bench_solver.json"));
}

TEST(Reordering, AFloatSolveIsCheckedAgainstTheDoubleSystemInTheOriginalNumbering)
{
    // The true residual against the system in double is taken in the original numbering,
    // whatever the case's reordering (it was once taken against the reordered matrix).
    const CaseSpec spec = parse_case_text(square_case + "precision: float\nreorder: rcm\n", "float.yaml", ".",
                                          {"solver.tolerance=1e-6"});
    const CaseMesh input = load_case_mesh(spec);
    const ExecPtr exec = Executor::create_cpu();
    const auto disc = make_discretisation<float>(spec, input);
    const DiscreteSystem<float> system = build_case_system(exec, *disc, spec);
    const SystemSolution<float> solved = solve_system(system, spec.solver);
    ASSERT_TRUE(solved.result.converged());
    const double in_double = true_residual_in_double(exec, spec, input, solved.x);
    EXPECT_LT(in_double, 1e-5);
    EXPECT_GT(in_double, 0.0);
}
