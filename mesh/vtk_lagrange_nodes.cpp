#include "mesh/vtk_lagrange_nodes.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include <vtkCellType.h>
#include <vtkIdList.h>
#include <vtkLagrangeHexahedron.h>
#include <vtkLagrangeQuadrilateral.h>
#include <vtkLagrangeTetra.h>
#include <vtkLagrangeTriangle.h>
#include <vtkLagrangeWedge.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>

#include "mesh/lagrange_basis.hpp"

namespace gpufem {
namespace {

/// "quadrilateral of order 3", for errors.
std::string element_text(ElementType type, int order)
{
    return std::string(element_type_name(type)) + " of order " + std::to_string(order);
}

/// Gives a VTK cell n points (all at the origin) and point ids 0..n-1.
void size_cell(vtkCell& cell, int n)
{
    cell.GetPointIds()->SetNumberOfIds(n);
    cell.GetPoints()->SetNumberOfPoints(n);
    for (int i = 0; i < n; ++i) {
        cell.GetPointIds()->SetId(i, i);
        cell.GetPoints()->SetPoint(i, 0.0, 0.0, 0.0);
    }
}

/// The parametric coordinates (3 per point) of VTK's Lagrange cell of this shape with n
/// points, in VTK's point order.
std::vector<double> vtk_parametric_nodes(ElementType type, int n)
{
    vtkSmartPointer<vtkCell> cell;
    switch (type) {
    case ElementType::triangle: cell = vtkSmartPointer<vtkLagrangeTriangle>::New(); break;
    case ElementType::tetrahedron: cell = vtkSmartPointer<vtkLagrangeTetra>::New(); break;
    case ElementType::quadrilateral: {
        auto quad = vtkSmartPointer<vtkLagrangeQuadrilateral>::New();
        quad->SetUniformOrderFromNumPoints(n);
        cell = quad;
        break;
    }
    case ElementType::hexahedron: {
        auto hex = vtkSmartPointer<vtkLagrangeHexahedron>::New();
        hex->SetUniformOrderFromNumPoints(n);
        cell = hex;
        break;
    }
    case ElementType::prism: {
        auto wedge = vtkSmartPointer<vtkLagrangeWedge>::New();
        wedge->SetUniformOrderFromNumPoints(n);
        cell = wedge;
        break;
    }
    case ElementType::line:
        throw std::invalid_argument("vtk_lagrange_node_order: lines are not written as cells");
    case ElementType::pyramid:
        throw std::invalid_argument("vtk_lagrange_node_order: VTK has no Lagrange pyramid");
    }
    size_cell(*cell, n);
    cell->Initialize();  // simplices take their order from the number of points
    const double* coordinates = cell->GetParametricCoords();
    return std::vector<double>(coordinates, coordinates + 3 * static_cast<std::size_t>(n));
}

/// Gmsh's reference node coordinates in VTK's parametric domain (3 per node): unchanged for
/// simplices (both use the unit simplex), [-1,1]^d mapped to [0,1]^d for boxes and for the
/// prism's height.
std::vector<double> gmsh_nodes_in_vtk_domain(ElementType type, int order)
{
    const std::vector<double> gmsh = lagrange_reference_nodes(type, order);
    const std::size_t dim = static_cast<std::size_t>(element_dimension(type));
    const bool box = type == ElementType::quadrilateral || type == ElementType::hexahedron;
    const std::size_t n = gmsh.size() / dim;
    std::vector<double> nodes(3 * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < dim; ++c)
            nodes[3 * i + c] = box || (type == ElementType::prism && c == 2) ? 0.5 * (gmsh[dim * i + c] + 1.0)
                                                                             : gmsh[dim * i + c];
    return nodes;
}

/// Matches VTK's points to Gmsh's nodes by their reference coordinates.
std::vector<int> match_nodes(ElementType type, int order)
{
    const int n = lagrange_node_count(type, order);
    const std::vector<double> gmsh = gmsh_nodes_in_vtk_domain(type, order);
    const std::vector<double> vtk = vtk_parametric_nodes(type, n);
    constexpr double tolerance = 1e-9;
    std::vector<int> gmsh_node(static_cast<std::size_t>(n), -1);
    std::vector<char> taken(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double distance = 0;
            for (int c = 0; c < 3; ++c)
                distance = std::max(distance, std::abs(vtk[3 * i + c] - gmsh[3 * j + c]));
            if (distance < tolerance && !taken[j]) {
                gmsh_node[i] = j;
                taken[j] = 1;
                break;
            }
        }
        if (gmsh_node[i] < 0)
            throw std::logic_error("VTK node order of the " + element_text(type, order) +
                                   ": VTK's point " + std::to_string(i) +
                                   " matches no Gmsh node");
    }
    return gmsh_node;
}

}  // namespace

int vtk_lagrange_cell_type(ElementType type)
{
    switch (type) {
    case ElementType::triangle: return VTK_LAGRANGE_TRIANGLE;
    case ElementType::quadrilateral: return VTK_LAGRANGE_QUADRILATERAL;
    case ElementType::tetrahedron: return VTK_LAGRANGE_TETRAHEDRON;
    case ElementType::hexahedron: return VTK_LAGRANGE_HEXAHEDRON;
    case ElementType::prism: return VTK_LAGRANGE_WEDGE;
    case ElementType::line:
    case ElementType::pyramid: break;
    }
    throw std::invalid_argument("vtk_lagrange_cell_type: lines and pyramids are not written as Lagrange cells");
}

const std::vector<int>& vtk_quadratic_pyramid_node_order()
{
    static const std::vector<int> order = [] {
        // VTK's 13 nodes: the corners, then the midpoints of its edges in this order.
        constexpr int edges[8][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {1, 4}, {2, 4}, {3, 4}};
        const std::vector<double> nodes = lagrange_reference_nodes(ElementType::pyramid, 2);
        std::vector<int> found{0, 1, 2, 3, 4};
        for (const auto& edge : edges) {
            int match = -1;
            for (std::size_t j = 0; j < nodes.size() / 3; ++j) {
                double distance = 0;
                for (int c = 0; c < 3; ++c)
                    distance = std::max(distance, std::abs(nodes[3 * j + c] - 0.5 * (nodes[3 * edge[0] + c] +
                                                                                       nodes[3 * edge[1] + c])));
                if (distance < 1e-9) match = static_cast<int>(j);
            }
            if (match < 0) throw std::logic_error("VTK node order of the quadratic pyramid: an edge without a midpoint node");
            found.push_back(match);
        }
        return found;
    }();
    return order;
}

const std::vector<int>& vtk_file_node_order(ElementType type, int order)
{
    const std::vector<int>& current = vtk_lagrange_node_order(type, order);
    if (type != ElementType::hexahedron || order < 2) return current;
    static std::mutex mutex;
    static std::map<int, std::vector<int>> cache;
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(order);
    if (it == cache.end()) {
        // The reader of a 1.0 file takes point j of a cell from the file's point map(j).
        const int degrees[3] = {order, order, order};
        std::vector<int> file(current.size());
        for (std::size_t j = 0; j < current.size(); ++j)
            file[static_cast<std::size_t>(vtkHigherOrderHexahedron::NodeNumberingMappingFromVTK8To9(
                degrees, static_cast<vtkIdType>(j)))] = current[j];
        it = cache.emplace(order, std::move(file)).first;
    }
    return it->second;
}

const std::vector<int>& vtk_lagrange_node_order(ElementType type, int order)
{
    lagrange_node_count(type, order);  // checks the order before anything is cached
    static std::mutex mutex;
    static std::map<std::pair<ElementType, int>, std::vector<int>> cache;
    const std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_pair(type, order);
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, match_nodes(type, order)).first;
    return it->second;
}

}  // namespace gpufem
