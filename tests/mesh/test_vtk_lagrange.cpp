// VTK Lagrange output (orders 2..4, boxes 2..8): the node permutation from Gmsh's order to
// VTK's, checked by VTK's own cell interpolation of a degree-k polynomial at random points in
// each cell (cells with GLL nodes, orders 5..8, written interpolated to equispaced nodes).
#include <array>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>
#include <vtkCell.h>
#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkHigherOrderHexahedron.h>
#include <vtkHigherOrderQuadrilateral.h>
#include <vtkHigherOrderTetra.h>
#include <vtkHigherOrderTriangle.h>
#include <vtkHigherOrderWedge.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include "mesh/gll_output.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/vtk_lagrange_nodes.hpp"
#include "mesh/vtk_writer.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

using test::TempFolder;

/// One shape and order 2..8.
struct LagrangeCase {
    ElementType type;
    int degree;
};

std::ostream& operator<<(std::ostream& os, const LagrangeCase& c)
{
    return os << element_type_name(c.type) << "_order" << c.degree;
}

std::vector<LagrangeCase> lagrange_cases()
{
    std::vector<LagrangeCase> cases;
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron})
        for (int k = 2; k <= max_lagrange_degree(type); ++k) cases.push_back({type, k});
    return cases;
}

bool is_box(ElementType type)
{
    return type == ElementType::quadrilateral || type == ElementType::hexahedron;
}

/// A polynomial in (x, y, z) with random coefficients in [-1, 1]: of total degree k, or
/// (`per_variable`) of degree k in each variable.
class Polynomial {
public:
    Polynomial(int dim, int k, bool per_variable, std::mt19937& rng)
    {
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        for (int a = 0; a <= k; ++a)
            for (int b = 0; b <= (dim > 1 ? k : 0); ++b)
                for (int c = 0; c <= (dim > 2 ? k : 0); ++c)
                    if (per_variable || a + b + c <= k) terms_.push_back({{a, b, c}, u(rng)});
    }
    double operator()(const double* x) const
    {
        double sum = 0;
        for (const auto& [e, coefficient] : terms_)
            sum += coefficient * std::pow(x[0], e[0]) * std::pow(x[1], e[1]) * std::pow(x[2], e[2]);
        return sum;
    }

private:
    std::vector<std::pair<std::array<int, 3>, double>> terms_;
};

/// A mesh of one cell whose nodes are Gmsh's reference nodes under the affine map
/// x = b + A r (A: dim x dim, row-major; z = 0 in 2D).
Mesh single_cell(ElementType type, int k, const std::vector<double>& A, const std::vector<double>& b)
{
    const int dim = element_dimension(type);
    const std::vector<double> reference = lagrange_reference_nodes(type, k);
    Mesh mesh;
    mesh.dim = dim;
    mesh.cell_type = type;
    mesh.degree = k;
    mesh.nodes_per_cell = lagrange_node_count(type, k);
    mesh.source = "single " + std::string(element_type_name(type));
    for (int i = 0; i < mesh.nodes_per_cell; ++i) {
        for (int r = 0; r < 3; ++r) {
            double x = r < dim ? b[r] : 0.0;
            for (int c = 0; c < dim && r < dim; ++c) x += A[r * dim + c] * reference[i * dim + c];
            mesh.coordinates.push_back(x);
        }
        mesh.cells.push_back(i);
    }
    mesh.cell_group = {1};
    return mesh;
}

/// A random well-conditioned affine map of dim dimensions (general, or axis-aligned: a
/// scaling and a shift) with positive determinant.
std::pair<std::vector<double>, std::vector<double>> random_affine(int dim, bool axis_aligned,
                                                                   std::mt19937& rng)
{
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> A(dim * dim, 0.0), b(dim);
    for (int r = 0; r < dim; ++r) {
        b[r] = 0.3 * u(rng);
        for (int c = 0; c < dim; ++c)
            A[r * dim + c] = r == c ? 0.6 + 0.2 * u(rng) : axis_aligned ? 0.0 : 0.15 * u(rng);
    }
    return {A, b};
}

/// A random point in VTK's parametric domain of the shape ([0,1]^d boxes, unit simplices,
/// wedges).
std::array<double, 3> random_parametric(ElementType type, std::mt19937& rng)
{
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const int dim = element_dimension(type);
    std::array<double, 3> p{};
    do {
        for (int c = 0; c < dim; ++c) p[c] = u(rng);
    } while (!is_box(type) && p[0] + p[1] + p[2] > 1.0);  // the wedge: r + s <= 1 too
    return p;
}

/// The VTK Lagrange order of a cell read back (as VTK inferred it).
int vtk_order(vtkCell* cell)
{
    if (auto* c = vtkHigherOrderTriangle::SafeDownCast(cell)) return static_cast<int>(c->GetOrder());
    if (auto* c = vtkHigherOrderTetra::SafeDownCast(cell)) return static_cast<int>(c->GetOrder());
    if (auto* c = vtkHigherOrderQuadrilateral::SafeDownCast(cell)) return c->GetOrder(0);
    if (auto* c = vtkHigherOrderHexahedron::SafeDownCast(cell)) return c->GetOrder(0);
    if (auto* c = vtkHigherOrderWedge::SafeDownCast(cell)) return c->GetOrder(0);
    if (cell->GetCellType() == VTK_QUADRATIC_PYRAMID) return 2;
    return -1;
}

/// Writes the mesh with u = p at its nodes, reads it back with VTK and returns the largest
/// difference between p and VTK's interpolation of u at random points of every cell (the
/// points placed by VTK's own geometric map of the cell; `at_nodes`: at VTK's own nodes
/// instead, where it interpolates any function). Also checks cell types and orders.
double vtk_interpolation_error(const Mesh& mesh, const Polynomial& p, std::mt19937& rng, bool at_nodes = false)
{
    TempFolder folder;
    std::vector<double> u(mesh.num_nodes());
    for (index_type n = 0; n < mesh.num_nodes(); ++n) u[n] = p(&mesh.coordinates[3 * n]);
    write_vtu(folder / "cells.vtu", mesh, {{"u", u}}, {});

    vtkNew<vtkXMLUnstructuredGridReader> reader;
    reader->SetFileName((folder / "cells.vtu").c_str());
    reader->Update();
    vtkUnstructuredGrid* grid = reader->GetOutput();
    EXPECT_EQ(grid->GetNumberOfPoints(), mesh.num_nodes());
    EXPECT_EQ(grid->GetNumberOfCells(), mesh.num_cells());
    vtkDataArray* values = grid->GetPointData()->GetArray("u");
    EXPECT_NE(values, nullptr);
    if (values == nullptr) return 1e300;

    double error = 0;
    std::vector<double> weights(mesh.nodes_per_cell);
    for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) {
        vtkCell* cell = grid->GetCell(c);
        // Pyramids of order 2: VTK's quadratic pyramid (13 of the 14 nodes).
        const bool pyramid = mesh.cell_type == ElementType::pyramid;
        EXPECT_EQ(cell->GetCellType(), pyramid ? VTK_QUADRATIC_PYRAMID : vtk_lagrange_cell_type(mesh.cell_type));
        EXPECT_EQ(vtk_order(cell), mesh.degree);
        EXPECT_EQ(cell->GetNumberOfPoints(), pyramid ? 13 : mesh.nodes_per_cell);
        const int samples = at_nodes ? cell->GetNumberOfPoints() : 10;
        for (int sample = 0; sample < samples; ++sample) {
            std::array<double, 3> r{};
            if (at_nodes) std::copy_n(cell->GetParametricCoords() + 3 * sample, 3, r.begin());
            else r = random_parametric(mesh.cell_type, rng);
            double x[3];
            int sub_id = 0;
            cell->EvaluateLocation(sub_id, r.data(), x, weights.data());
            double interpolated = 0;
            for (int i = 0; i < cell->GetNumberOfPoints(); ++i)
                interpolated += weights[i] * values->GetTuple1(cell->GetPointId(i));
            error = std::max(error, std::abs(interpolated - p(x)));
        }
    }
    return error;
}

class VtkLagrangeTest : public ::testing::TestWithParam<LagrangeCase> {};

TEST_P(VtkLagrangeTest, NodeOrderIsAPermutationWithVerticesFirst)
{
    const auto [type, k] = GetParam();
    const std::vector<int>& order = vtk_lagrange_node_order(type, k);
    ASSERT_EQ(order.size(), static_cast<std::size_t>(lagrange_node_count(type, k)));
    EXPECT_EQ(std::set<int>(order.begin(), order.end()).size(), order.size());
    for (int v = 0; v < element_node_count(type); ++v) EXPECT_EQ(order[v], v);
}

TEST_P(VtkLagrangeTest, VtkInterpolatesPolynomialsOfTheCell)
{
    const auto [type, k] = GetParam();
    const int dim = element_dimension(type);
    std::mt19937 rng(101 * k + static_cast<int>(type));
    // A general affine cell: polynomials of total degree k stay in the cell's space.
    for (int trial = 0; trial < 2; ++trial) {
        const auto [A, b] = random_affine(dim, false, rng);
        EXPECT_LT(vtk_interpolation_error(single_cell(type, k, A, b), Polynomial(dim, k, false, rng), rng),
                  1e-10);
    }
    // A box with axis-aligned edges: degree k in each variable.
    if (is_box(type)) {
        const auto [A, b] = random_affine(dim, true, rng);
        EXPECT_LT(vtk_interpolation_error(single_cell(type, k, A, b), Polynomial(dim, k, true, rng), rng),
                  1e-10);
    }
}

TEST_P(VtkLagrangeTest, VtkInterpolatesOnGmshMeshes)
{
    const auto [type, k] = GetParam();
    MeshSpec spec;
    spec.shape = element_dimension(type) == 2 ? "unit_square" : "unit_cube";
    spec.elements = element_type_name(type);
    spec.size = 0.5;
    spec.degree = k;
    const Mesh mesh = load_mesh(spec);
    std::mt19937 rng(7 * k + static_cast<int>(type));
    EXPECT_LT(vtk_interpolation_error(mesh, Polynomial(mesh.dim, k, false, rng), rng), 1e-10);
}

INSTANTIATE_TEST_SUITE_P(AllShapesAndOrders, VtkLagrangeTest,
                         ::testing::ValuesIn(lagrange_cases()), [](const auto& info) {
                             std::ostringstream name;
                             name << info.param;
                             return name.str();
                         });

TEST(VtkLagrange, WedgesAndQuadraticPyramidsInterpolateTheirPolynomials)
{
    // gpufem's own prisms of order 2..4 as VTK's Lagrange wedges: VTK's interpolation of a
    // polynomial of total degree k in a general affine cell is the polynomial. Order-2
    // pyramids as its quadratic pyramids: VTK's 13 functions do not hold every quadratic (its
    // values inside the cell are an approximation), so there the polynomial is checked at VTK's
    // own nodes (each the node gpufem put there).
    for (const auto& [type, k] : {std::pair{ElementType::prism, 2}, std::pair{ElementType::prism, 3},
                                  std::pair{ElementType::prism, 4}, std::pair{ElementType::pyramid, 2}}) {
        SCOPED_TRACE(std::string(element_type_name(type)) + " order " + std::to_string(k));
        const std::vector<int>& order = type == ElementType::prism ? vtk_lagrange_node_order(type, k)
                                                                   : vtk_quadratic_node_order(type);
        EXPECT_EQ(std::set<int>(order.begin(), order.end()).size(), order.size());
        std::mt19937 rng(101 * k + static_cast<int>(type));
        for (int trial = 0; trial < 2; ++trial) {
            const auto [A, b] = random_affine(3, false, rng);
            EXPECT_LT(vtk_interpolation_error(single_cell(type, k, A, b), Polynomial(3, k, false, rng), rng,
                                              type == ElementType::pyramid),
                      1e-10);
        }
    }
}

TEST(VtkLagrange, GllFieldsAtTheEquispacedPointsAreTheCellsPolynomials)
{
    // Hexahedra and quadrilaterals of orders 5 to 8 (GLL nodes) on axis-aligned boxes: a
    // polynomial of the order in each variable, given at the nodes, is the same polynomial at
    // the equispaced points the conversion moves the nodes to; a field held in float stays in
    // float; a node no cell holds keeps its value.
    std::mt19937 rng(5);
    for (const char* shape : {"unit_square", "unit_cube"})
        for (int k = 5; k <= 8; ++k) {
            SCOPED_TRACE(std::string(shape) + " order " + std::to_string(k));
            MeshSpec spec;
            spec.shape = shape;
            spec.elements = std::string(shape) == "unit_cube" ? "hexahedron" : "quadrilateral";
            spec.size = 0.5;
            spec.degree = k;
            Mesh mesh = load_mesh(spec);
            mesh.coordinates.insert(mesh.coordinates.end(), {0.25, 0.5, 0.75});  // in no cell
            const Polynomial p(mesh.dim, k, true, rng);
            const auto n = static_cast<std::size_t>(mesh.num_nodes());
            HostVector<double> at_nodes(n);
            for (std::size_t i = 0; i < n; ++i) at_nodes[i] = p(&mesh.coordinates[3 * i]);
            const std::vector<MeshField> fields{MeshField("p", at_nodes),
                                                MeshField("q", HostVector<float>(at_nodes.begin(), at_nodes.end()))};
            const EquispacedOutput out = equispaced_output(mesh, fields);
            ASSERT_EQ(out.point_fields.size(), 2u);
            EXPECT_TRUE(out.point_fields[1].held_in_float());
            double error = 0, float_error = 0, scale = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const double exact = p(&out.mesh.coordinates[3 * i]);
                scale = std::max(scale, std::abs(exact));
                error = std::max(error, std::abs(out.point_fields[0].values[i] - exact));
                float_error = std::max(float_error, std::abs(double(out.point_fields[1].narrow[i]) - exact));
            }
            EXPECT_LT(error, 1e-10 * scale);
            EXPECT_LT(float_error, 1e-5 * scale);
            EXPECT_EQ(out.mesh.coordinates[3 * (n - 1) + 2], 0.75);
            EXPECT_EQ(out.point_fields[0].values[n - 1], at_nodes[n - 1]);
            const std::vector<MeshField> again = equispaced_point_fields(mesh, fields, {"p"});
            ASSERT_EQ(again.size(), 1u);
            EXPECT_EQ(again[0].name, "q");
        }
}

TEST(VtkLagrange, TheEquispacedMeshKeepsTheCellsAndGroupsAndMovesOnlyTheNodes)
{
    // The output's mesh of a curved cube of order 7: its nodes are those of equispaced_output,
    // bit for bit; cells, cell groups and boundary groups are the mesh's; no device copy. A mesh
    // without GLL nodes is refused, naming it.
    MeshSpec spec;
    spec.shape = "unit_cube";
    spec.elements = "hexahedron";
    spec.size = 0.5;
    spec.degree = 7;
    Mesh mesh = load_mesh(spec);
    for (std::size_t i = 0; i < mesh.coordinates.size(); i += 3) mesh.coordinates[i] += 0.1 * mesh.coordinates[i + 1] * mesh.coordinates[i + 1];
    const Mesh moved = equispaced_mesh(mesh, Executor::create_cpu());
    const EquispacedOutput out = equispaced_output(mesh, {});
    ASSERT_EQ(moved.coordinates.size(), mesh.coordinates.size());
    EXPECT_TRUE(std::equal(moved.coordinates.begin(), moved.coordinates.end(), out.mesh.coordinates.begin()));
    EXPECT_FALSE(std::equal(moved.coordinates.begin(), moved.coordinates.end(), mesh.coordinates.begin()));
    EXPECT_TRUE(std::equal(moved.cells.begin(), moved.cells.end(), mesh.cells.begin(), mesh.cells.end()));
    EXPECT_TRUE(std::equal(moved.cell_group.begin(), moved.cell_group.end(), mesh.cell_group.begin(), mesh.cell_group.end()));
    ASSERT_EQ(moved.boundaries.size(), mesh.boundaries.size());
    for (std::size_t b = 0; b < mesh.boundaries.size(); ++b) EXPECT_EQ(moved.boundaries[b].connectivity, mesh.boundaries[b].connectivity);
    EXPECT_EQ(moved.degree, 7);
    EXPECT_EQ(moved.nodes_per_cell, mesh.nodes_per_cell);
    EXPECT_FALSE(moved.device);
    spec.degree = 4;  // equispaced nodes already
    try {
        (void)equispaced_mesh(load_mesh(spec), Executor::create_cpu());
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("has no GLL nodes"), std::string::npos) << e.what();
    }
}

TEST(VtkLagrange, NodeCountMustMatchTheOrder)
{
    TempFolder folder;
    Mesh mesh = single_cell(ElementType::triangle, 1, {1, 0, 0, 1}, {0, 0});
    mesh.degree = 2;  // but 3 nodes per cell
    try {
        write_vtu(folder / "bad.vtu", mesh, {}, {});
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("3 nodes per triangle of order 2"), std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(folder / "bad.vtu"));
}

}  // namespace
}  // namespace gpufem
