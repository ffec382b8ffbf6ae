// p-multigrid's lower-degree spaces whose lattice does not divide the mesh's: degree 3 under
// quadrilaterals and hexahedra of odd degree 5 and 7 (lagrange_space rounds it onto the
// mesh's), and degree 2 under triangles and tetrahedra of degree 3 (each edge
// midpoint named by one of the two edge nodes beside it). On unstructured Gmsh meshes, whose
// cells meet in every orientation, each coarse unknown is one point of the domain from every
// cell around it, and the transfer represents the coarse functions exactly.
#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "amg_test_support.hpp"
#include "assembly/lagrange_interpolation.hpp"
#include "assembly/lagrange_space.hpp"
#include "linalg/executor.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/mesh_source.hpp"
#include "random_values.hpp"
#include "solver/case/case_file.hpp"
#include "solver/multigrid/aggregation.hpp"
#include "solver/run/pipeline.hpp"
#include "tests/mesh/mesh_refinement_support.hpp"

namespace gpufem {
namespace {

ExecPtr cpu() { return Executor::create_cpu(); }

/// The point of cell e at the reference point xi, by the cell's own degree-k map.
std::array<double, 3> mapped_point(const Mesh& mesh, index_type e, const double* xi)
{
    std::vector<double> values, gradients;
    lagrange_basis(mesh.cell_type, mesh.degree, std::vector<double>(xi, xi + mesh.dim), values, gradients);
    std::array<double, 3> x{0, 0, 0};
    for (int i = 0; i < mesh.nodes_per_cell; ++i) {
        const index_type node = mesh.cells[static_cast<std::size_t>(e) * mesh.nodes_per_cell + i];
        for (int d = 0; d < 3; ++d) x[d] += values[i] * mesh.coordinates[static_cast<std::size_t>(node) * 3 + d];
    }
    return x;
}

/// A linear function of the point (in the degree-3 space of straight cells).
double linear(const std::array<double, 3>& x) { return 0.3 + 1.7 * x[0] - 0.6 * x[1] + 2.1 * x[2]; }

/// A quadratic function of the point (in the degree-2 space of straight simplices).
double quadratic(const std::array<double, 3>& x)
{
    return linear(x) + 0.8 * x[0] * x[0] - 1.1 * x[0] * x[1] + 0.5 * x[1] * x[2] - 0.7 * x[2] * x[2];
}

/// The unstructured Gmsh mesh of the unit square or cube of this type at degree k (straight
/// cells: every triangle split into 3 quadrilaterals, every tetrahedron into 4 hexahedra).
Mesh gmsh_box(const test::TempFolder& folder, ElementType type, int k)
{
    MeshSpec spec = test::box_geo_spec(test::write_box_geo(folder, type), element_dimension(type) == 2 ? 0.3 : 0.7, k);
    spec.geometry_order = 1;
    return load_mesh(spec);
}

/// The degree-c space of mesh: every cell names each coarse unknown at the same point (its own
/// element node's), one unknown a point, and the transfer from it interpolates `function`
/// (in the degree-c space) exactly at every mesh node.
void check_coarse_space(const Mesh& mesh, int c, double (*function)(const std::array<double, 3>&),
                        const std::string& what)
{
    const LagrangeSpace space = lagrange_space(mesh, c, cpu());
    const int ncl = space.dofs_per_cell, dim = mesh.dim;
    ASSERT_EQ(ncl, lagrange_node_count(mesh.cell_type, c)) << what;
    // Each unknown's point: where its own element node (not the mesh node naming it) lies in
    // each cell that holds it; the same point from every one of them.
    const std::vector<double> xi = lagrange_reference_nodes(mesh.cell_type, c);
    const std::vector<index_type> cell_dofs = space.cell_dofs.to_host();
    std::vector<std::array<double, 3>> point(static_cast<std::size_t>(space.size()));
    std::vector<int> seen(point.size(), 0);
    for (index_type e = 0; e < mesh.num_cells(); ++e)
        for (int m = 0; m < ncl; ++m) {
            const index_type dof = cell_dofs[static_cast<std::size_t>(e) * ncl + m];
            ASSERT_GE(dof, 0) << what;
            const std::array<double, 3> x = mapped_point(mesh, e, &xi[static_cast<std::size_t>(m) * dim]);
            if (seen[dof]++ == 0) {
                point[dof] = x;
                continue;
            }
            for (int d = 0; d < 3; ++d)
                ASSERT_NEAR(x[d], point[dof][d], 1e-12) << what << ": unknown " << dof << " in cell " << e;
        }
    for (std::size_t dof = 0; dof < seen.size(); ++dof) ASSERT_GT(seen[dof], 0) << what << " unknown " << dof;
    // And one unknown a point: cells that named a shared point by different mesh nodes would
    // make two unknowns of it (a space that is not continuous there).
    std::vector<std::array<double, 3>> sorted = point;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t j = 1; j < sorted.size(); ++j) {
        double distance = 0;
        for (int d = 0; d < 3; ++d) distance += std::abs(sorted[j][d] - sorted[j - 1][d]);
        ASSERT_GT(distance, 1e-9) << what << ": two unknowns at one point";
    }
    // The transfer of the function given at those points is that function at every mesh node;
    // a space of the cells' local lattices would not be conforming in orientations that disagree.
    const Csr<double> p = lagrange_interpolation<double>(mesh, c, cpu());
    ASSERT_EQ(p.cols, space.size()) << what;
    const auto ptr = p.row_ptr.to_host();
    const std::vector<index_type> col = p.col_idx.to_host();
    const std::vector<double> val = p.values.to_host();
    double worst = 0;
    for (index_type i = 0; i < p.rows; ++i) {
        double value = 0;
        for (auto j = ptr[i]; j < ptr[i + 1]; ++j) value += val[j] * function(point[col[j]]);
        const std::array<double, 3> x{mesh.coordinates[3 * i], mesh.coordinates[3 * i + 1], mesh.coordinates[3 * i + 2]};
        worst = std::max(worst, std::abs(value - function(x)));
    }
    EXPECT_LT(worst, 1e-12) << what;
}

}  // namespace

TEST(OddDegreeSpaces, EveryCellNamesACoarseUnknownAtTheSamePointAndTheTransferIsExact)
{
    const test::TempFolder folder;
    for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron})
        for (int k : {5, 7})
            check_coarse_space(gmsh_box(folder, type, k), 3, linear, fmt::format("{} degree {}", element_type_name(type), k));
    for (ElementType type : {ElementType::triangle, ElementType::tetrahedron})
        check_coarse_space(gmsh_box(folder, type, 3), 2, quadratic, fmt::format("{} degree 3", element_type_name(type)));
}

TEST(OddDegreeSpaces, TheChainThroughDegreeTwoComposesToTheDegreeOneInterpolation)
{
    // P(3 <- 2) P(2 <- 1) = P(3 <- 1) on unstructured triangles and tetrahedra: the degree-2
    // space's own transfer to degree 1 evaluates the linear basis at its edge midpoints.
    const test::TempFolder folder;
    for (ElementType type : {ElementType::triangle, ElementType::tetrahedron}) {
        const std::string what = element_type_name(type);
        const Mesh mesh = gmsh_box(folder, type, 3);
        const std::vector<int> degrees{2, 1};
        const std::vector<Csr<double>> chain = pmg_interpolations<double>(mesh, cpu(), true, degrees);
        ASSERT_GE(chain.size(), 2u) << what;
        const test::HostMatrix direct = test::to_host(lagrange_interpolation<double>(mesh, 1, cpu()));
        const test::HostMatrix composed = test::to_host(sparse_product(chain[0], chain[1]));
        ASSERT_EQ(composed.cols, direct.cols) << what;
        EXPECT_LT(test::max_relative_difference(test::dense(composed), test::dense(direct)), 1e-12) << what;
    }
}

TEST(OddDegreeSpaces, PmgOnCubicSimplicesPassesThroughDegreeTwoWhenAsked)
{
    // solver.amg.through_degree_two: one more degree level, the same solution, fewer
    // iterations (on tetrahedra about 40% fewer).
    const unsigned seed = test::random_seed();
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> coefficient(0.5, 2.0);
    for (const std::string elements : {"triangle", "tetrahedron"}) {
        const bool cube = elements == "tetrahedron";
        const std::string text = fmt::format(
            "mesh: {{shape: {}, elements: {}, size: {}}}\ndegree: 3\nproblem:\n  kappa: \"1 + x*y\"\n"
            "  f: \"{} + {}*x*x - {}*y\"\n  dirichlet: {{boundary: 0}}\n"
            "solver: {{tolerance: 1e-10, preconditioner: pmg}}\nbackend: cpu\n",
            cube ? "unit_cube" : "unit_square", elements, cube ? 0.2 : 0.1, coefficient(random), coefficient(random),
            coefficient(random));
        std::vector<double> solution[2];
        int iterations[2] = {0, 0}, levels[2] = {0, 0};  // given levels: the degrees, then any grid's halvings
        for (const bool through_two : {false, true}) {
            CaseSpec spec = parse_case_text(text, "p", "");
            spec.solver.amg.through_degree_two = through_two;
            const CaseMesh mesh = load_case_mesh(spec, cpu());
            const auto disc = make_discretisation<double>(spec, mesh);
            const DiscreteSystem<double> system = build_case_system(cpu(), *disc, spec);
            const SystemSolution<double> solved = solve_system(system, spec.solver, disc.get());
            const std::string what = fmt::format("{}{}, seed {}", elements, through_two ? " through 2" : "", seed);
            ASSERT_TRUE(solved.result.converged()) << what << ": " << solved.result.message;
            levels[through_two] = solved.preconditioner["degree_levels"].get<int>();
            solution[through_two] = solved.x.to_host();
            iterations[through_two] = solved.result.iterations;
        }
        EXPECT_EQ(levels[1], levels[0] + 1) << elements << ", seed " << seed;
        ASSERT_EQ(solution[0].size(), solution[1].size());
        double worst = 0, largest = 0;
        for (std::size_t i = 0; i < solution[0].size(); ++i) {
            worst = std::max(worst, std::abs(solution[0][i] - solution[1][i]));
            largest = std::max(largest, std::abs(solution[0][i]));
        }
        EXPECT_LT(worst, 1e-7 * largest) << elements << ", seed " << seed;
        EXPECT_LE(iterations[1], iterations[0]) << elements << ", seed " << seed;
        if (cube) EXPECT_LT(iterations[1], iterations[0]) << elements << ", seed " << seed;
    }
}

TEST(OddDegreeSpaces, OnlyLatticesThatRoundWithoutTiesAreTaken)
{
    // On boxes degree 2 or 4 under 5 or 7 puts a lattice point half-way between two of the
    // mesh's (a tie: neighbouring cells in opposite orientations would name different nodes).
    const test::TempFolder folder;
    const Mesh quads = gmsh_box(folder, ElementType::quadrilateral, 5);
    EXPECT_THROW(lagrange_space(quads, 2, cpu()), std::invalid_argument);
    EXPECT_THROW(lagrange_space(quads, 4, cpu()), std::invalid_argument);
    EXPECT_NO_THROW(lagrange_space(quads, 3, cpu()));
    const Mesh hexes = gmsh_box(folder, ElementType::hexahedron, 7);
    EXPECT_THROW(lagrange_space(hexes, 4, cpu()), std::invalid_argument);
    EXPECT_THROW(lagrange_space(hexes, 2, cpu()), std::invalid_argument);
    EXPECT_NO_THROW(lagrange_space(hexes, 5, cpu()));
    // Simplices take divisors, and 2 under degree 3 (each edge midpoint between two nodes).
    const Mesh triangles = gmsh_box(folder, ElementType::triangle, 3);
    EXPECT_NO_THROW(lagrange_space(triangles, 2, cpu()));
    EXPECT_THROW(lagrange_space(triangles, 4, cpu()), std::invalid_argument);
    EXPECT_THROW(lagrange_space(gmsh_box(folder, ElementType::tetrahedron, 4), 3, cpu()), std::invalid_argument);
    // p-multigrid passes through 3 from degree 7 where its first coarse level costs no setup.
    EXPECT_EQ(pmg_coarse_degrees(7, true), (std::vector<int>{3, 1}));
    EXPECT_EQ(pmg_coarse_degrees(7), (std::vector<int>{1}));
    EXPECT_EQ(pmg_coarse_degrees(5, true), (std::vector<int>{1}));
    EXPECT_EQ(pmg_coarse_degrees(8, true), (std::vector<int>{4, 2, 1}));
    EXPECT_EQ(pmg_coarse_degrees(6, true), (std::vector<int>{3, 1}));
    EXPECT_EQ(pmg_coarse_degrees(3, true), (std::vector<int>{1}));
    // On simplices an odd degree passes through 2.
    EXPECT_EQ(pmg_coarse_degrees(3, false, true), (std::vector<int>{2, 1}));
    EXPECT_EQ(pmg_coarse_degrees(5, false, true), (std::vector<int>{2, 1}));
    EXPECT_EQ(pmg_coarse_degrees(6, false, true), (std::vector<int>{3, 2, 1}));
    EXPECT_EQ(pmg_coarse_degrees(4, false, true), (std::vector<int>{2, 1}));
    EXPECT_EQ(pmg_coarse_degrees(2, false, true), (std::vector<int>{1}));
}

}  // namespace gpufem
