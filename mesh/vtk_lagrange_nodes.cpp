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
#include <vtkCell.h>
#include <vtkHigherOrderHexahedron.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>

#include "mesh/lagrange_basis.hpp"
#include "mesh/shapes/cell_shape.hpp"

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
    const ShapeTraits& shape = cell_shape(type);
    if (!shape.make_vtk_lagrange_cell)
        throw std::invalid_argument(std::string("vtk_lagrange_node_order: VTK has no Lagrange cell of ") +
                                    shape.plural);
    const auto cell = vtkSmartPointer<vtkCell>::Take(shape.make_vtk_lagrange_cell(n));
    size_cell(*cell, n);
    cell->Initialize();  // simplices take their order from the number of points
    const double* coordinates = cell->GetParametricCoords();
    return std::vector<double>(coordinates, coordinates + 3 * static_cast<std::size_t>(n));
}

/// The element's nodes, equispaced (Gmsh's up to order 4; a cell with GLL nodes is written
/// interpolated to these, mesh/gll_output.hpp), in VTK's parametric domain (3 per node):
/// unchanged for simplices (both use the unit simplex), [-1,1]^d mapped to [0,1]^d for boxes
/// and for the prism's height.
std::vector<double> gmsh_nodes_in_vtk_domain(ElementType type, int order)
{
    const std::vector<double> gmsh = equispaced_reference_nodes(type, order);
    const ShapeTraits& shape = cell_shape(type);
    const std::size_t dim = static_cast<std::size_t>(shape.dim);
    const std::size_t n = gmsh.size() / dim;
    std::vector<double> nodes(3 * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < dim; ++c)
            nodes[3 * i + c] = shape.symmetric_axes[c] ? 0.5 * (gmsh[dim * i + c] + 1.0) : gmsh[dim * i + c];
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

/// The local nodes of the degree-2 element at VTK's quadratic cell's points: the corners, then
/// the node at the midpoint of each of the shape's vtk_quadratic_edges.
std::vector<int> quadratic_nodes(ElementType type)
{
    const ShapeTraits& shape = cell_shape(type);
    if (shape.vtk_quadratic_type < 0)
        throw std::invalid_argument(std::string("vtk_quadratic_node_order: VTK's quadratic cells do not stand for ") +
                                    shape.plural);
    const std::vector<double> nodes = lagrange_reference_nodes(type, 2);
    const std::size_t dim = static_cast<std::size_t>(shape.dim);
    std::vector<int> found;
    for (int i = 0; i < shape.corners; ++i) found.push_back(i);
    for (const auto& edge : shape.vtk_quadratic_edges) {
        int match = -1;
        for (std::size_t j = 0; j < nodes.size() / dim; ++j) {
            double distance = 0;
            for (std::size_t c = 0; c < dim; ++c)
                distance = std::max(distance, std::abs(nodes[dim * j + c] - 0.5 * (nodes[dim * edge[0] + c] +
                                                                                 nodes[dim * edge[1] + c])));
            if (distance < 1e-9) match = static_cast<int>(j);
        }
        if (match < 0)
            throw std::logic_error(std::string("VTK node order of the quadratic ") + shape.name +
                                   ": an edge without a midpoint node");
        found.push_back(match);
    }
    return found;
}

}  // namespace

int vtk_lagrange_cell_type(ElementType type)
{
    const ShapeTraits& shape = cell_shape(type);
    if (shape.vtk_lagrange_type < 0)
        throw std::invalid_argument("vtk_lagrange_cell_type: lines and pyramids are not written as Lagrange cells");
    return shape.vtk_lagrange_type;
}

const std::vector<int>& vtk_quadratic_node_order(ElementType type)
{
    static std::mutex mutex;
    static std::map<ElementType, std::vector<int>> cache;
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(type);
    if (it == cache.end()) it = cache.emplace(type, quadratic_nodes(type)).first;
    return it->second;
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
