// CUDA assembly against the CPU reference (label gpu): element matrices of every type and
// order 1-4 with and without a convection term, pattern, and the whole system with Dirichlet,
// Neumann and Robin conditions (orders 1-3, order 2 with convection), on freshly randomised meshes
// and coefficients, float and double.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>
#include <string>
#include <variant>

#include "assembly/csr_pattern.hpp"
#include "assembly/element_data.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/poisson_assembly.hpp"
#include "mesh/mesh_source.hpp"
#include "gpu_test.hpp"
#include "tests/mixed_mesh_geometries.hpp"
#include "high_order_meshes.hpp"
#include "simple_meshes.hpp"
#include "random_values.hpp"

using namespace gpufem;

namespace {

using test::max_rel_diff;

constexpr ElementType all_types[] = {ElementType::triangle, ElementType::quadrilateral,
                                     ElementType::tetrahedron, ElementType::hexahedron};

/// A mesh of this type and order with randomly moved nodes: order 1 a jittered structured
/// grid, higher orders a Gmsh mesh of the unit square / cube whose nodes (high-order ones
/// included: the cells become curved) move by up to 2% of h / order.
Mesh random_mesh(ElementType type, int order, unsigned seed)
{
    const bool plane = element_dimension(type) == 2;
    if (order == 1) {
        Mesh mesh = test::grid_mesh(type, plane ? 40 : 9, 0.2, seed);
        test::add_box_boundaries(mesh);
        return mesh;
    }
    const double h = plane ? 0.25 : 0.5;
    Mesh mesh = test::unit_box_mesh(type, order, h);
    test::jitter_nodes(mesh, 0.02 * h / order, seed);
    return mesh;
}

/// The form with its placeholders A, B, C replaced by random numbers in [0.5, 2]: a fresh
/// coefficient per run.
std::string random_coefficient(std::mt19937& rng, const char* form)
{
    std::uniform_real_distribution<double> dist(0.5, 2.0);
    std::string text = form;
    for (char name : {'A', 'B', 'C'}) {
        const auto at = text.find(name);
        if (at != std::string::npos) text.replace(at, 1, std::to_string(dist(rng)));
    }
    return text;
}

/// A convection velocity b with dim components.
std::vector<double> convection_velocity(int dim)
{
    const double b[3] = {0.7, -1.3, 0.4};
    return {b, b + dim};
}

/// The element matrices and loads of the same data on the CPU (dc) and the device (dg) agree
/// to tol.
template <typename V>
void expect_element_matrices_match(const ElementData<V>& dc, const ElementData<V>& dg, double tol,
                                   const std::string& what)
{
    const auto cpu = dc.cells.executor(), gpu = dg.cells.executor();
    const std::size_t n = dc.nodes_per_cell, cells = dc.num_cells;
    Array<V> kc(cpu, n * n * cells), fc(cpu, n * cells), kg(gpu, n * n * cells), fg(gpu, n * cells);
    kernels::cpu::element_matrices(*cpu, dc, kc.data(), fc.data());
    kernels::cuda::element_matrices(*gpu, dg, kg.data(), fg.data());
    EXPECT_LT(max_rel_diff(kg.to_host(), kc.to_host()), tol) << what;
    EXPECT_LT(max_rel_diff(fg.to_host(), fc.to_host()), tol) << what;
}

}  // namespace

GPUFEM_GPU_TYPED_SUITE(AssemblyGpu);

TYPED_TEST(AssemblyGpu, ElementMatricesMatchCpuForEveryTypeAndOrder)
{
    using V = TypeParam;
    const auto cpu = Executor::create_cpu(), gpu = Executor::create_cuda();
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    for (ElementType type : all_types)
        for (int order = 1; order <= 4; ++order)
            for (bool with_convection : {false, true}) {
                // float: measured CPU float vs double up to 4e-6 (Q4); allow for both sides' error
                const double tol = sizeof(V) == 4 ? 1e-5 * order : 1e-12;
                const Mesh mesh = random_mesh(type, order, rng());
                const ReferenceElement ref = make_reference_element(
                    type, order, assembly_quadrature_degree(type, order));
                const Expression kappa(random_coefficient(rng, "A + B*x*x + C*y"));
                const Expression f(random_coefficient(rng, "sin(A*x)*cos(B*y) + C*z"));
                // b of the convection term (the full, non-symmetric element matrix)
                const std::vector<double> b =
                    with_convection ? convection_velocity(mesh.dim) : std::vector<double>{};
                const std::string what = std::string(element_type_name(type)) + " order " +
                                         std::to_string(order) +
                                         (with_convection ? " convection" : "") + " seed " +
                                         std::to_string(seed);
                expect_element_matrices_match(make_element_data<V>(cpu, mesh, ref, kappa, f, b),
                                              make_element_data<V>(gpu, mesh, ref, kappa, f, b), tol, what);
            }
}

TYPED_TEST(AssemblyGpu, ElementMatricesWithATensorKappaReactionAndVelocityFieldMatchCpu)
{
    // kappa a symmetric positive definite tensor of expressions, c u and b . grad u with b
    // given by expressions: the full element matrix of every type and order.
    GPUFEM_REQUIRE_GPU();
    using V = TypeParam;
    const auto cpu = Executor::create_cpu(), gpu = Executor::create_cuda();
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    for (ElementType type : all_types)
        for (int order = 1; order <= 4; ++order) {
            const double tol = sizeof(V) == 4 ? 1e-5 * order : 1e-12;
            const Mesh mesh = random_mesh(type, order, rng());
            const ReferenceElement ref = make_reference_element(type, order, assembly_quadrature_degree(type, order));
            ProblemSpec p;
            const std::string off = random_coefficient(rng, "0.1*A*x"), diagonal = random_coefficient(rng, "B + x*x");
            p.kappa_tensor = mesh.dim == 2 ? std::vector<std::string>{diagonal, off, "2"}
                                           : std::vector<std::string>{diagonal, off, "0.1", "2", off,
                                                                      random_coefficient(rng, "C + 0.5*z*z")};
            p.f = random_coefficient(rng, "sin(A*x)*cos(B*y) + C*z");
            p.reaction = random_coefficient(rng, "A + B*y*y");
            p.convection_field = {random_coefficient(rng, "A*y"), "-x", "0.5"};
            p.convection_field.resize(static_cast<std::size_t>(mesh.dim));
            for (const bool lower : {false, true}) {
                ProblemSpec q = p;
                if (!lower) q.reaction = "0", q.convection_field.clear();
                expect_element_matrices_match(make_element_data<V>(cpu, mesh, ref, q), make_element_data<V>(gpu, mesh, ref, q),
                                              tol, fmt::format("{} order {}{} seed {}", element_type_name(type), order,
                                                               lower ? " reaction and convection" : "", seed));
            }
        }
}

TEST(AssemblyGpuMesh, ShapesGeneratedOnTheDeviceEqualTheHostMesh)
{
    // The device writes its own copy of a generated shape (Mesh::device, which assembly uses
    // instead of uploading): it must be the host's mesh, entry for entry.
    GPUFEM_REQUIRE_GPU();
    const auto gpu = Executor::create_cuda();
    const std::vector<std::pair<std::string, std::string>> shapes = {
        {"unit_square", "quadrilateral"}, {"unit_square", "triangle"}, {"unit_cube", "hexahedron"},
        {"unit_cube", "tetrahedron"},     {"l_shape", "quadrilateral"}, {"l_shape", "triangle"}};
    for (const auto& [shape, elements] : shapes)
        for (int degree = 1; degree <= 4; ++degree) {
            MeshSpec spec;
            spec.shape = shape;
            spec.elements = elements;
            spec.size = shape == "unit_cube" ? 0.25 : 0.1;
            spec.degree = degree;
            const Mesh mesh = load_mesh(spec, gpu);
            const std::string what = shape + " " + elements + " degree " + std::to_string(degree);
            ASSERT_TRUE(mesh.device) << what;
            EXPECT_EQ(mesh.device->cells.to_host(),
                      std::vector<index_type>(mesh.cells.begin(), mesh.cells.end())) << what;
            EXPECT_EQ(mesh.device->coordinates.to_host(),
                      std::vector<double>(mesh.coordinates.begin(), mesh.coordinates.end())) << what;
        }
}

namespace {

/// A problem with random coefficients, Dirichlet on two groups and Neumann on a third, for
/// the whole-system comparisons.
ProblemSpec random_system_problem(std::mt19937& rng)
{
    ProblemSpec p;
    p.kappa = random_coefficient(rng, "A + sin(B*x*y)");
    p.f = random_coefficient(rng, "A + B*x - C*y*z");
    p.dirichlet = {{"left", "x + y"}, {"bottom", "1"}};
    p.neumann = {{"right", random_coefficient(rng, "A*y + B")}};
    p.robin = {{"top", random_coefficient(rng, "A + B*x*x"), random_coefficient(rng, "A - B*y")}};
    return p;
}

}  // namespace

TEST(AssemblyGpuPattern, PatternIdenticalToCpu)
{
    GPUFEM_REQUIRE_GPU();
    const auto cpu = Executor::create_cpu(), gpu = Executor::create_cuda();
    // Orders up to 4: Q4 hexahedra have rows of more candidates (8 x 125) than the GPU's hash
    // set of a row takes, so both of its paths are compared.
    for (ElementType type : all_types)
        for (int order = 1; order <= 4; ++order) {
            const bool plane = element_dimension(type) == 2;
            const Mesh mesh = order == 1 ? test::grid_mesh(type, plane ? 64 : 12)
                                         : test::unit_box_mesh(type, order, plane ? 0.1 : 0.3);
            const int npe = mesh.nodes_per_cell;
            const auto pc = build_csr_pattern(
                mesh.num_nodes(), Array<index_type>::from_host(cpu, mesh.cells), npe);
            const auto pg = build_csr_pattern(
                mesh.num_nodes(), Array<index_type>::from_host(gpu, mesh.cells), npe);
            const std::string what =
                std::string(element_type_name(type)) + " order " + std::to_string(order);
            EXPECT_EQ(pg.row_ptr.to_host(), pc.row_ptr.to_host()) << what;
            EXPECT_EQ(pg.col_idx.to_host(), pc.col_idx.to_host()) << what;
            EXPECT_EQ(pg.cell_to_csr.to_host(), pc.cell_to_csr.to_host()) << what;
            // 64-bit offsets (a pattern past 2^31 - 1 entries; asked for here): as on the CPU,
            // and the 32-bit pattern's rows and columns.
            const auto wc = std::get<WideCsrPattern>(build_any_csr_pattern(
                mesh.num_nodes(), Array<index_type>::from_host(cpu, mesh.cells), npe, true));
            const auto wg = std::get<WideCsrPattern>(build_any_csr_pattern(
                mesh.num_nodes(), Array<index_type>::from_host(gpu, mesh.cells), npe, true));
            EXPECT_EQ(wg.row_ptr.to_host(), wc.row_ptr.to_host()) << what;
            const auto ptr = pc.row_ptr.to_host();
            EXPECT_EQ(wg.row_ptr.to_host(), std::vector<wide_offset_type>(ptr.begin(), ptr.end())) << what;
            EXPECT_EQ(wg.col_idx.to_host(), pc.col_idx.to_host()) << what;
        }
}

TEST(AssemblyGpuMixed, MixedMeshesAssembleAsOnTheCpu)
{
    // Gmsh's meshes of prisms and of four cell types: the whole mesh's pattern from its padded
    // cells (each row's columns distinct: the padding repeats a node) and every block's
    // element matrices, on the device as on the CPU.
    GPUFEM_REQUIRE_GPU();
    const auto cpu = Executor::create_cpu(), gpu = Executor::create_cuda();
    const auto folder = std::filesystem::temp_directory_path() / ("gpufem_mixed_" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    ProblemSpec p;
    p.kappa = "1 + x*y*z";
    p.f = "1 + sin(3*x)";
    p.dirichlet = {{"left", "y"}};
    p.neumann = {{"bottom", "x*y"}};
    p.robin = {{"top", "2 + x", "1 + y"}};  // quadrilaterals on the four types' top, triangles on the prisms'
    for (const auto& [name, text] : {std::pair<std::string, std::string>{"four", test::cube_four_types(10)},
                                     {"prisms", test::cube_prisms(5)}}) {
        const auto geo = folder / (name + ".geo");
        std::ofstream(geo) << text;
        MeshSpec spec;
        spec.kind = MeshSpec::Kind::geo;
        spec.path = geo.string();
        const Mesh mesh = load_mesh(spec, gpu);
        for (const CsrOffsets offsets : {CsrOffsets::fit, CsrOffsets::wide}) {
            const auto sc = assemble_poisson<double>(cpu, mesh, p, offsets);
            const auto sg = assemble_poisson<double>(gpu, mesh, p, offsets);
            const std::string what = name + (offsets == CsrOffsets::wide ? " 64-bit" : " 32-bit");
            const auto columns = [&](const auto& a) { return a.col_idx.to_host(); };
            const auto values = [&](const auto& a) { return a.values.to_host(); };
            if (offsets == CsrOffsets::fit) {
                const auto ptr = sg.matrix.row_ptr.to_host(), col = columns(sg.matrix);
                EXPECT_EQ(ptr, sc.matrix.row_ptr.to_host()) << what;
                EXPECT_EQ(col, columns(sc.matrix)) << what;
                for (std::size_t r = 0; r + 1 < ptr.size(); ++r)
                    for (index_type k = ptr[r] + 1; k < ptr[r + 1]; ++k)
                        ASSERT_LT(col[k - 1], col[k]) << what << ": row " << r << " repeats a column";
                EXPECT_LT(max_rel_diff(values(sg.matrix), values(sc.matrix)), 1e-12) << what;
            } else {
                EXPECT_EQ(sg.wide_matrix->row_ptr.to_host(), sc.wide_matrix->row_ptr.to_host()) << what;
                EXPECT_EQ(columns(*sg.wide_matrix), columns(*sc.wide_matrix)) << what;
                EXPECT_LT(max_rel_diff(values(*sg.wide_matrix), values(*sc.wide_matrix)), 1e-12) << what;
            }
            EXPECT_LT(max_rel_diff(sg.rhs.to_host(), sc.rhs.to_host()), 1e-12) << what;
        }
    }
    std::filesystem::remove_all(folder);
}

TYPED_TEST(AssemblyGpu, AssembledSystemMatchesCpu)
{
    // With 32-bit offsets (a cell-to-CSR map) and with 64-bit ones (each entry's position
    // searched in its row); both scatter with atomics on the device.
    using V = TypeParam;
    const auto cpu = Executor::create_cpu(), gpu = Executor::create_cuda();
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    ProblemSpec p = random_system_problem(rng);
    for (ElementType type : all_types)
        for (int order = 1; order <= 3; ++order) {
            const double tol = sizeof(V) == 4 ? 1e-5 * order : 1e-12;
            const Mesh mesh = random_mesh(type, order, rng());
            // order 2 with a convection term (non-symmetric matrix)
            p.convection = order == 2 ? convection_velocity(mesh.dim) : std::vector<double>{};
            const auto sc = assemble_poisson<V>(cpu, mesh, p);
            const auto sg = assemble_poisson<V>(gpu, mesh, p);
            const std::string what = std::string(element_type_name(type)) + " order " +
                                     std::to_string(order) + " seed " + std::to_string(seed);
            EXPECT_EQ(sg.matrix.row_ptr.to_host(), sc.matrix.row_ptr.to_host()) << what;
            EXPECT_EQ(sg.matrix.col_idx.to_host(), sc.matrix.col_idx.to_host()) << what;
            EXPECT_LT(max_rel_diff(sg.matrix.values.to_host(), sc.matrix.values.to_host()), tol)
                << what;
            EXPECT_LT(max_rel_diff(sg.rhs.to_host(), sc.rhs.to_host()), tol) << what;
            EXPECT_EQ(sg.initial_guess.to_host(), sc.initial_guess.to_host()) << what;
            EXPECT_EQ(sg.dirichlet_count, sc.dirichlet_count) << what;
            const auto wc = assemble_poisson<V>(cpu, mesh, p, CsrOffsets::wide);
            const auto wg = assemble_poisson<V>(gpu, mesh, p, CsrOffsets::wide);
            ASSERT_TRUE(wc.wide_matrix && wg.wide_matrix && !sg.wide_matrix) << what;
            EXPECT_EQ(wg.wide_matrix->row_ptr.to_host(), wc.wide_matrix->row_ptr.to_host()) << what;
            EXPECT_EQ(wg.wide_matrix->col_idx.to_host(), sc.matrix.col_idx.to_host()) << what;
            EXPECT_LT(max_rel_diff(wg.wide_matrix->values.to_host(), wc.wide_matrix->values.to_host()), tol) << what;
            EXPECT_LT(max_rel_diff(wg.wide_matrix->values.to_host(), sc.matrix.values.to_host()), tol) << what;
            EXPECT_LT(max_rel_diff(wg.rhs.to_host(), sc.rhs.to_host()), tol) << what;
            EXPECT_EQ(wg.dirichlet_count, sc.dirichlet_count) << what;
        }
}
