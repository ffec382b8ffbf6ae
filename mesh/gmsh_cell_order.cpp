#include "mesh/gmsh_cell_order.hpp"

#include "mesh/gmsh_second_order.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <optional>
#include <vector>

#include <gmsh.h>
#include <spdlog/spdlog.h>

#include "mesh/gmsh_element_types.hpp"
#include "mesh/gmsh_extract.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem {
namespace {

using Point = std::array<double, 3>;

/// a - b.
Point difference(const Point& a, const Point& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
/// a x b.
Point cross(const Point& a, const Point& b)
{
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
/// |a|.
double length(const Point& a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/// Points of a curve (9) or surface (7 x 7) across its parametric range.
std::vector<Point> sampled_points(int dim, int tag)
{
    std::vector<double> low, high, parameters, values;
    gmsh::model::getParametrizationBounds(dim, tag, low, high);
    const int n = dim == 1 ? 9 : 7;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < (dim == 1 ? 1 : n); ++j) {
            parameters.push_back(low[0] + (high[0] - low[0]) * i / (n - 1));
            if (dim == 2) parameters.push_back(low[1] + (high[1] - low[1]) * j / (n - 1));
        }
    gmsh::model::getValue(dim, tag, parameters, values);
    std::vector<Point> points;
    for (std::size_t k = 0; k + 2 < values.size(); k += 3) points.push_back({values[k], values[k + 1], values[k + 2]});
    return points;
}

/// Whether the points lie on one line (dim 1) or plane (dim 2), within 1e-10 of their extent
/// (too few points to tell: no).
bool points_are_flat(const std::vector<Point>& points, int dim)
{
    if (points.size() < 9) return false;
    const Point& origin = points.front();
    Point far = origin;
    for (const Point& p : points)
        if (length(difference(p, origin)) > length(difference(far, origin))) far = p;
    const double extent = length(difference(far, origin));
    if (extent == 0.0) return false;  // a closed curve sampled at its seam only: not a line
    const Point axis = difference(far, origin);
    Point normal{0, 0, 0};  // the plane's: the largest cross product with the axis
    for (const Point& p : points) {
        const Point c = cross(axis, difference(p, origin));
        if (length(c) > length(normal)) normal = c;
    }
    const double tolerance = 1e-10 * extent;
    for (const Point& p : points) {
        const Point d = difference(p, origin);
        const double off = dim == 1 ? length(cross(axis, d)) / extent
                                    : (length(normal) == 0.0 ? 0.0 : std::abs(d[0] * normal[0] + d[1] * normal[1] + d[2] * normal[2]) / length(normal));
        if (off > tolerance) return false;
    }
    return true;
}

/// Whether the current model has a curve or surface that is not straight: Gmsh's lines and
/// planes are, and so are curves and surfaces of other types whose points lie on a line or a
/// plane (an extruded line, a B-spline through collinear points); a .msh file's discrete
/// entities count as curved. Only on curved ones do Gmsh's high-order nodes add anything to
/// straight-sided cells.
bool model_is_curved()
{
    for (int dim : {1, 2}) {
        gmsh::vectorpair entities;
        gmsh::model::getEntities(entities, dim);
        for (const auto& [d, tag] : entities) {
            std::string type;
            gmsh::model::getType(d, tag, type);
            if (type == (d == 1 ? "Line" : "Plane")) continue;
            if (type.find("Discrete") != std::string::npos) return true;
            try {
                if (!points_are_flat(sampled_points(d, tag), d)) return true;
            } catch (const std::exception&) {  // no parametrisation to sample: take it as curved
                return true;
            }
        }
    }
    return false;
}

/// Whether the current model's cells are of one type among triangles, quadrilaterals,
/// tetrahedra and hexahedra (of any order): the cells gpufem reads at any order (several
/// types, prisms and pyramids at order 1 or 2).
bool model_cells_take_any_order()
{
    std::vector<int> types;
    gmsh::model::mesh::getElementTypes(types, gmsh::model::getDimension());
    if (types.size() != 1) return false;
    const std::optional<LagrangeElement> element = lagrange_element_from_gmsh(types[0]);
    return element && (element->type == ElementType::triangle || element->type == ElementType::quadrilateral ||
                       element->type == ElementType::tetrahedron || element->type == ElementType::hexahedron);
}

}  // namespace

GmshCellOrder gmsh_cell_order(const MeshSpec& spec, int file_order, const std::string& context)
{
    if (spec.gmsh_nodes && spec.degree > max_mesh_order)
        throw MeshSourceError(context + ": gmsh_nodes places nodes of order 1 to " + std::to_string(max_mesh_order) +
                              " (the degree is " + std::to_string(spec.degree) + "; leave gmsh_nodes out)");
    if (spec.gmsh_nodes) return {degree_geometry_order(spec), true};
    if (spec.geometry_order != 0 && (spec.geometry_order < 1 || spec.geometry_order > max_mesh_order))
        throw MeshSourceError(context + ": geometry_order must be between 1 and " + std::to_string(max_mesh_order) +
                              " (got " + std::to_string(spec.geometry_order) + ")");
    // Prisms, pyramids and several cell types: order 1, or 2 on curved geometry.
    const int highest = model_cells_take_any_order() ? max_mesh_order : max_curved_block_order;
    const auto capped = [&](int order) {
        if (order > highest)
            spdlog::info("{}: prisms, pyramids and meshes of several cell types are read at order {} at most "
                         "(order {} asked)", context, highest, order);
        return std::min(order, highest);
    };
    if (spec.file_order && file_order > 1) return {capped(file_order), false};
    if (spec.geometry_order != 0) return {capped(spec.geometry_order), false};
    // Straight-sided cells describe lines and planes exactly: gpufem places every other node.
    if (file_order == 1 || !model_is_curved()) return {1, false};
    return {std::min(degree_geometry_order(spec), highest), true};
}

void set_mesh_order(int order, const std::string& source)
{
    const int current = mesh_cell_order(source);
    if (current == order) return;
    if (current == 1 && order == 2 && own_second_order_applies()) {  // simplices: gpufem's, on all edges at once
        run_gmsh_step("mesh '" + source + "', order 2", [] { make_second_order(); });
        return;
    }
    gmsh::option::setNumber("Mesh.SecondOrderIncomplete", 0);  // complete Lagrange elements
    gmsh::option::setNumber("Mesh.SecondOrderLinear", 0);      // nodes on the geometry
    gmsh::option::setNumber("Mesh.HighOrderOptimize", 0);      // keep Gmsh's placement
    run_gmsh_step("mesh '" + source + "', order " + std::to_string(order),
                  [&] { gmsh::model::mesh::setOrder(order); });
}

}  // namespace gpufem
