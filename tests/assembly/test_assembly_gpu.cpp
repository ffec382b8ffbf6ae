// CUDA assembly against the CPU reference (label gpu): element matrices, pattern, and the
// whole system with Dirichlet and Neumann conditions, on jittered meshes, float and double.
#include <gtest/gtest.h>

#include "assembly/csr_pattern.hpp"
#include "assembly/element_data.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/poisson_assembly.hpp"
#include "gpu_test.hpp"
#include "simple_meshes.hpp"

using namespace gpufem;

namespace {

template <typename V>
double max_rel_diff(const std::vector<V>& a, const std::vector<V>& b)
{
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, std::abs(double(a[i]) - double(b[i])));
        scale = std::max(scale, std::abs(double(b[i])));
    }
    return diff / std::max(scale, 1e-300);
}

constexpr ElementType all_types[] = {ElementType::triangle, ElementType::quadrilateral,
                                     ElementType::tetrahedron, ElementType::hexahedron};

}  // namespace

template <typename V>
class AssemblyGpu : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(AssemblyGpu, ValueTypes);

TYPED_TEST(AssemblyGpu, ElementMatricesMatchCpu)
{
    GPUFEM_REQUIRE_GPU();
    using V = TypeParam;
    const double tol = sizeof(V) == 4 ? 1e-5 : 1e-13;
    const auto cpu = Executor::create_cpu(), gpu = Executor::create_cuda();
    for (ElementType type : all_types) {
        const Mesh mesh = test::grid_mesh(type, element_dimension(type) == 2 ? 40 : 9, 0.2,
                                          std::random_device{}());
        const ReferenceElement ref = make_reference_element(type, assembly_quadrature_degree(type));
        const Expression kappa("1 + x*x + y"), f("sin(3*x)*cos(2*y) + z");
        const auto dc = make_element_data<V>(cpu, mesh, ref, kappa, f);
        const auto dg = make_element_data<V>(gpu, mesh, ref, kappa, f);
        const std::size_t n = mesh.nodes_per_cell, cells = mesh.num_cells();
        Array<V> kc(cpu, n * n * cells), fc(cpu, n * cells), kg(gpu, n * n * cells), fg(gpu, n * cells);
        kernels::cpu::element_matrices(*cpu, dc, kc.data(), fc.data());
        kernels::cuda::element_matrices(*gpu, dg, kg.data(), fg.data());
        EXPECT_LT(max_rel_diff(kg.to_host(), kc.to_host()), tol) << element_type_name(type);
        EXPECT_LT(max_rel_diff(fg.to_host(), fc.to_host()), tol) << element_type_name(type);
    }
}

TEST(AssemblyGpuPattern, PatternIdenticalToCpu)
{
    GPUFEM_REQUIRE_GPU();
    const auto cpu = Executor::create_cpu(), gpu = Executor::create_cuda();
    for (ElementType type : all_types) {
        const Mesh mesh = test::grid_mesh(type, element_dimension(type) == 2 ? 64 : 12);
        const auto pc = build_csr_pattern(mesh.num_nodes(), Array<index_type>::from_host(cpu, mesh.cells),
                                          mesh.nodes_per_cell);
        const auto pg = build_csr_pattern(mesh.num_nodes(), Array<index_type>::from_host(gpu, mesh.cells),
                                          mesh.nodes_per_cell);
        EXPECT_EQ(pg.row_ptr.to_host(), pc.row_ptr.to_host()) << element_type_name(type);
        EXPECT_EQ(pg.col_idx.to_host(), pc.col_idx.to_host()) << element_type_name(type);
        EXPECT_EQ(pg.cell_to_csr.to_host(), pc.cell_to_csr.to_host()) << element_type_name(type);
    }
}

TYPED_TEST(AssemblyGpu, AssembledSystemMatchesCpu)
{
    GPUFEM_REQUIRE_GPU();
    using V = TypeParam;
    const double tol = sizeof(V) == 4 ? 1e-5 : 1e-12;
    const auto cpu = Executor::create_cpu(), gpu = Executor::create_cuda();
    ProblemSpec p;
    p.kappa = "2 + sin(x*y)";
    p.f = "1 + x - y*z";
    p.dirichlet = {{"left", "x + y"}, {"bottom", "1"}};
    p.neumann = {{"right", "y"}};
    for (ElementType type : all_types) {
        Mesh mesh = test::grid_mesh(type, element_dimension(type) == 2 ? 50 : 10, 0.2,
                                    std::random_device{}());
        test::add_box_boundaries(mesh);
        const auto sc = assemble_poisson<V>(cpu, mesh, p);
        const auto sg = assemble_poisson<V>(gpu, mesh, p);
        EXPECT_EQ(sg.matrix.row_ptr.to_host(), sc.matrix.row_ptr.to_host());
        EXPECT_EQ(sg.matrix.col_idx.to_host(), sc.matrix.col_idx.to_host());
        EXPECT_LT(max_rel_diff(sg.matrix.values.to_host(), sc.matrix.values.to_host()), tol)
            << element_type_name(type);
        EXPECT_LT(max_rel_diff(sg.rhs.to_host(), sc.rhs.to_host()), tol) << element_type_name(type);
        EXPECT_EQ(sg.initial_guess.to_host(), sc.initial_guess.to_host());
        EXPECT_EQ(sg.dirichlet_count, sc.dirichlet_count);
    }
}
