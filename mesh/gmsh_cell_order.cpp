#include "mesh/gmsh_cell_order.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include <gmsh.h>

#include "mesh/gmsh_element_types.hpp"
#include "mesh/gmsh_extract.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem {
namespace {

/// Whether the current model has a curve or surface other than a straight line or a plane
/// (Gmsh's types; a .msh file's discrete entities count as curved): only there do Gmsh's
/// high-order nodes add anything to straight-sided cells.
bool model_is_curved()
{
    for (int dim : {1, 2}) {
        gmsh::vectorpair entities;
        gmsh::model::getEntities(entities, dim);
        for (const auto& [d, tag] : entities) {
            std::string type;
            gmsh::model::getType(d, tag, type);
            if (type != (d == 1 ? "Line" : "Plane")) return true;
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
    if (spec.file_order && file_order > 1) return {std::min(file_order, highest), false};
    if (spec.geometry_order != 0) return {std::min(spec.geometry_order, highest), false};
    // Straight-sided cells describe lines and planes exactly: gpufem places every other node.
    if (file_order == 1 || !model_is_curved()) return {1, false};
    return {std::min(degree_geometry_order(spec), highest), true};
}

void set_mesh_order(int order, const std::string& source)
{
    if (mesh_cell_order(source) == order) return;
    gmsh::option::setNumber("Mesh.SecondOrderIncomplete", 0);  // complete Lagrange elements
    gmsh::option::setNumber("Mesh.SecondOrderLinear", 0);      // nodes on the geometry
    gmsh::option::setNumber("Mesh.HighOrderOptimize", 0);      // keep Gmsh's placement
    run_gmsh_step("mesh '" + source + "', order " + std::to_string(order),
                  [&] { gmsh::model::mesh::setOrder(order); });
}

}  // namespace gpufem
