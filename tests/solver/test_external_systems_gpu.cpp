// Reordering, format: auto and matrix cases on the CUDA backend against the CPU reference: the
// reordering for every CUDA format, format: auto, and a matrix case read from Matrix Market.
#include <gtest/gtest.h>

#include <cmath>

#include "assembly/operator_levels.hpp"
#include "gpu_test.hpp"
#include "linalg/matrix_market.hpp"
#include "solver/run/format_choice.hpp"
#include "solver/run/pipeline.hpp"
#include "external_system_test_support.hpp"

using namespace gpufem;

namespace {

using test::relative_difference;

const std::string square_case = test::square_p2_case(0.02);


/// The solution of spec on exec (original numbering, on the host).
std::vector<double> solve_case(const CaseSpec& spec, const CaseMesh& input, const ExecPtr& exec,
                               std::string* format = nullptr)
{
    const auto disc = make_discretisation<double>(spec, input);
    const DiscreteSystem<double> system = build_case_system(exec, *disc, spec);
    if (format) *format = system.format;
    const SystemSolution<double> solved = solve_system(system, spec.solver);
    EXPECT_TRUE(solved.result.converged());
    return solved.x.to_host();
}

}  // namespace

TEST(ExternalSystemGpu, EveryCudaFormatWithEveryReorderingGivesTheCpuSolution)
{
    GPUFEM_REQUIRE_GPU();
    const CaseSpec base = parse_case_text(square_case, "square.yaml", ".");
    const CaseMesh input = load_case_mesh(base);
    const std::vector<double> reference = solve_case(base, input, Executor::create_cpu());
    const ExecPtr gpu = Executor::create_cuda(0);
    for (const std::string& format : assembled_formats().names_on(Backend::cuda))
        for (const Reordering reorder : {Reordering::none, Reordering::rcm, Reordering::cm}) {
            SCOPED_TRACE(format + " reorder " + std::string(enum_name(reordering_names, reorder)));
            CaseSpec spec = base;
            spec.format = format;
            spec.format_options.set_reordering(reorder);
            EXPECT_LT(relative_difference(solve_case(spec, input, gpu), reference), 1e-8);
        }
}

TEST(ExternalSystemGpu, FormatAutoChoosesACudaFormatAndSolves)
{
    GPUFEM_REQUIRE_GPU();
    CaseSpec spec = parse_case_text(square_case + "format: auto\n", "auto.yaml", ".");
    const CaseMesh input = load_case_mesh(spec);
    const ExecPtr gpu = Executor::create_cuda(0);
    const auto disc = make_discretisation<double>(spec, input);
    LinearSystem<double> system = disc->assemble(gpu);
    std::optional<ReorderedMatrix<double>> reordering;
    const FormatChoice choice = choose_format(system, spec, reordering);
    std::cout << choice.table();
    EXPECT_EQ(choice.candidates.size(), auto_format_candidates(Backend::cuda).size());
    ASSERT_NE(assembled_formats().find(choice.format), nullptr);
    EXPECT_GT(choice.expected_iterations, 10);
    std::string used;
    const std::vector<double> u = solve_case(spec, input, gpu, &used);
    EXPECT_NE(used, "auto");
    CaseSpec csr = spec;
    csr.format = "csr";
    EXPECT_LT(relative_difference(u, solve_case(csr, input, Executor::create_cpu())), 1e-8);
}

TEST(ExternalSystemGpu, AMatrixCaseSolvesAsOnTheCpu)
{
    GPUFEM_REQUIRE_GPU();
    const CaseSpec mesh_case = parse_case_text(square_case, "square.yaml", ".");
    const CaseMesh input = load_case_mesh(mesh_case);
    const auto disc = make_discretisation<double>(mesh_case, input);
    const LinearSystem<double> system = disc->assemble(Executor::create_cpu());
    const auto dir = std::filesystem::temp_directory_path() / ("gpufem-mtx-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    write_matrix_market(dir / "A.mtx", system.matrix);
    write_matrix_market_vector(dir / "b.mtx", system.rhs.to_host());
    for (const std::string format : {"csr", "sellp", "cusparse"}) {
        SCOPED_TRACE(format);
        CaseSpec spec = parse_case_text("matrix: {file: A.mtx, rhs: b.mtx}\nformat: " + format +
                                            "\nsolver: {tolerance: 1e-11, max_iterations: 5000}\n",
                                        "m.yaml", dir);
        const CaseMesh matrix = load_case_mesh(spec);
        CaseSpec on_cpu = spec;
        on_cpu.format = "csr";  // the CPU reference (cusparse is CUDA's)
        EXPECT_LT(relative_difference(solve_case(spec, matrix, Executor::create_cuda(0)),
                                      solve_case(on_cpu, matrix, Executor::create_cpu())),
                  1e-9);
    }
    std::filesystem::remove_all(dir);
}
