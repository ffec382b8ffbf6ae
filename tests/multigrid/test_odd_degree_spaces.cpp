// p-multigrid's degree-3 space under quadrilaterals and hexahedra of odd degree 5 and 7, whose
// lattice does not divide the mesh's (lagrange_space rounds it onto the mesh's): on
// unstructured Gmsh meshes, whose cells meet in every orientation, each coarse unknown is one
// point of the domain from every cell around it, and the transfer represents the coarse
// functions exactly.
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "assembly/lagrange_interpolation.hpp"
#include "assembly/lagrange_space.hpp"
#include "linalg/executor.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/mesh_source.hpp"
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

/// The unstructured Gmsh mesh of the unit square or cube of this type at degree k (straight
/// cells: every triangle split into 3 quadrilaterals, every tetrahedron into 4 hexahedra).
Mesh gmsh_box(const test::TempFolder& folder, ElementType type, int k)
{
    MeshSpec spec = test::box_geo_spec(test::write_box_geo(folder, type), element_dimension(type) == 2 ? 0.3 : 0.7, k);
    spec.geometry_order = 1;
    return load_mesh(spec);
}

}  // namespace

TEST(OddDegreeSpaces, EveryCellNamesACoarseUnknownAtTheSamePointAndTheTransferIsExact)
{
    const test::TempFolder folder;
    for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron})
        for (int k : {5, 7}) {
            const std::string what = fmt::format("{} degree {}", element_type_name(type), k);
            const Mesh mesh = gmsh_box(folder, type, k);
            const LagrangeSpace space = lagrange_space(mesh, 3, cpu());
            const int ncl = space.dofs_per_cell, dim = mesh.dim;
            ASSERT_EQ(ncl, dim == 2 ? 16 : 64) << what;
            // Each unknown's point: where its own element node (not the mesh node naming it)
            // lies in each cell that holds it; the same point from every one of them.
            const std::vector<double> xi = lagrange_reference_nodes(type, 3);
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
            // And one unknown a point: cells that named a shared point by different mesh
            // nodes would make two unknowns of it (a space that is not continuous there).
            std::vector<std::array<double, 3>> sorted = point;
            std::sort(sorted.begin(), sorted.end());
            for (std::size_t j = 1; j < sorted.size(); ++j) {
                double distance = 0;
                for (int d = 0; d < 3; ++d) distance += std::abs(sorted[j][d] - sorted[j - 1][d]);
                ASSERT_GT(distance, 1e-9) << what << ": two unknowns at one point";
            }
            // The transfer of a linear function given at those points is that function at
            // every mesh node; a degree-3 space of the cells' local lattices would not be
            // conforming in orientations that disagree.
            const Csr<double> p = lagrange_interpolation<double>(mesh, 3, cpu());
            ASSERT_EQ(p.cols, space.size()) << what;
            const auto ptr = p.row_ptr.to_host();
            const std::vector<index_type> col = p.col_idx.to_host();
            const std::vector<double> val = p.values.to_host();
            double worst = 0;
            for (index_type i = 0; i < p.rows; ++i) {
                double value = 0;
                for (auto j = ptr[i]; j < ptr[i + 1]; ++j) value += val[j] * linear(point[col[j]]);
                const std::array<double, 3> x{mesh.coordinates[3 * i], mesh.coordinates[3 * i + 1],
                                              mesh.coordinates[3 * i + 2]};
                worst = std::max(worst, std::abs(value - linear(x)));
            }
            EXPECT_LT(worst, 1e-12) << what;
        }
}

TEST(OddDegreeSpaces, OnlyLatticesThatRoundWithoutTiesAreTaken)
{
    // Degree 2 or 4 under 5 or 7 puts a lattice point half-way between two of the mesh's (a
    // tie: neighbouring cells in opposite orientations would name different nodes); simplices
    // take divisors only.
    const test::TempFolder folder;
    const Mesh quads = gmsh_box(folder, ElementType::quadrilateral, 5);
    EXPECT_THROW(lagrange_space(quads, 2, cpu()), std::invalid_argument);
    EXPECT_THROW(lagrange_space(quads, 4, cpu()), std::invalid_argument);
    EXPECT_NO_THROW(lagrange_space(quads, 3, cpu()));
    const Mesh hexes = gmsh_box(folder, ElementType::hexahedron, 7);
    EXPECT_THROW(lagrange_space(hexes, 4, cpu()), std::invalid_argument);
    EXPECT_THROW(lagrange_space(hexes, 2, cpu()), std::invalid_argument);
    EXPECT_NO_THROW(lagrange_space(hexes, 5, cpu()));
    const Mesh triangles = gmsh_box(folder, ElementType::triangle, 3);
    EXPECT_THROW(lagrange_space(triangles, 2, cpu()), std::invalid_argument);
    // p-multigrid passes through 3 from degree 7 where its first coarse level costs no setup.
    EXPECT_EQ(pmg_coarse_degrees(7, true), (std::vector<int>{3, 1}));
    EXPECT_EQ(pmg_coarse_degrees(7), (std::vector<int>{1}));
    EXPECT_EQ(pmg_coarse_degrees(5, true), (std::vector<int>{1}));
    EXPECT_EQ(pmg_coarse_degrees(8, true), (std::vector<int>{4, 2, 1}));
    EXPECT_EQ(pmg_coarse_degrees(6, true), (std::vector<int>{3, 1}));
    EXPECT_EQ(pmg_coarse_degrees(3, true), (std::vector<int>{1}));
}

}  // namespace gpufem
