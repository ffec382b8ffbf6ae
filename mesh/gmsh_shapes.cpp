#include "mesh/gmsh_shapes.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>

#include <gmsh.h>

#include "mesh/gmsh_element_types.hpp"
#include "mesh/gmsh_type_names.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_source.hpp"

namespace gpufem {
namespace {

namespace geo = gmsh::model::geo;

/// Options for an unstructured mesh of size h: Frontal-Delaunay triangles (recombined into
/// quadrilaterals by the blossom full-quad algorithm when `quads`; Mesh.Algorithm 8, Gmsh's
/// quad-oriented Frontal-Delaunay, crashes in Gmsh 4.8.4).
void set_unstructured_options(double h, bool quads)
{
    gmsh::option::setNumber("Mesh.MeshSizeMax", h);
    gmsh::option::setNumber("Mesh.Algorithm", 6);
    if (quads) {
        gmsh::option::setNumber("Mesh.RecombineAll", 1);
        gmsh::option::setNumber("Mesh.RecombinationAlgorithm", 3);
    }
}

/// The unit disk (four circle arcs): unstructured triangles, or quadrilaterals recombined.
void build_disk(ElementType type, double h)
{
    const int centre = geo::addPoint(0, 0, 0, h);
    const std::array<int, 4> points = {geo::addPoint(1, 0, 0, h), geo::addPoint(0, 1, 0, h),
                                       geo::addPoint(-1, 0, 0, h), geo::addPoint(0, -1, 0, h)};
    std::vector<int> arcs;
    for (std::size_t i = 0; i < points.size(); ++i)
        arcs.push_back(geo::addCircleArc(points[i], centre, points[(i + 1) % points.size()]));
    geo::addPlaneSurface({geo::addCurveLoop(arcs)});
    set_unstructured_options(h, type == ElementType::quadrilateral);
}

/// The Gmsh geometry builder of each shape Gmsh meshes (ShapeInfo::meshed_by_gmsh).
const std::map<std::string, void (*)(ElementType, double)>& gmsh_builders()
{
    static const std::map<std::string, void (*)(ElementType, double)> builders = {{"disk", build_disk}};
    return builders;
}

/// Whether a boundary entity lies in the plane x[axis] = value.
bool lies_in_plane(int dim, int tag, const PlaneGroup& plane)
{
    std::array<double, 6> box{};
    gmsh::model::getBoundingBox(dim, tag, box[0], box[1], box[2], box[3], box[4], box[5]);
    constexpr double tolerance = 1e-6;
    return std::abs(box[plane.axis] - plane.value) < tolerance &&
           std::abs(box[3 + plane.axis] - plane.value) < tolerance;
}

/// Adds one named physical group.
void add_group(int dim, const std::vector<int>& tags, int tag, const std::string& name)
{
    gmsh::model::addPhysicalGroup(dim, tags, tag);
    gmsh::model::setPhysicalName(dim, tag, name);
}

/// The physical groups of a shape: 'domain', its plane groups and 'boundary'.
void add_shape_groups(const ShapeInfo& info)
{
    gmsh::vectorpair domain;
    gmsh::model::getEntities(domain, info.dim);
    std::vector<int> domain_tags;
    for (const auto& [dim, tag] : domain) domain_tags.push_back(tag);
    add_group(info.dim, domain_tags, 1, "domain");

    gmsh::vectorpair outer;
    gmsh::model::getBoundary(domain, outer, /*combined=*/true, /*oriented=*/false);
    std::vector<int> outer_tags;
    for (const auto& [dim, tag] : outer) outer_tags.push_back(std::abs(tag));

    int group_tag = 1;
    for (const PlaneGroup& plane : info.planes) {
        std::vector<int> tags;
        for (int tag : outer_tags)
            if (lies_in_plane(info.dim - 1, tag, plane)) tags.push_back(tag);
        if (tags.empty())
            throw MeshSourceError(std::string("shape ") + info.name +
                                  ": no boundary entity in the plane of group '" + plane.name +
                                  "'");
        add_group(info.dim - 1, tags, group_tag++, plane.name);
    }
    add_group(info.dim - 1, outer_tags, group_tag, "boundary");
}

}  // namespace

void mesh_shape(const ShapeRequest& request, const std::string& source)
{
    const ShapeInfo& info = find_shape(request.shape);
    const auto builder = gmsh_builders().find(info.name);
    if (builder == gmsh_builders().end())
        throw std::logic_error("mesh_shape: shape '" + request.shape + "' is generated, not Gmsh's");
    builder->second(request.elements, request.size);
    geo::synchronize();
    add_shape_groups(info);
    run_gmsh_step("mesh '" + source + "'", [&] { gmsh::model::mesh::generate(info.dim); }, GmshLog::last_error);

    std::vector<int> types;
    gmsh::model::mesh::getElementTypes(types, info.dim);
    const int wanted = gmsh_element_type(request.elements);
    if (types != std::vector<int>{wanted}) {
        std::sort(types.begin(), types.end());
        throw MeshSourceError("mesh '" + source + "': Gmsh produced " +
                              (types.empty() ? std::string("no cells") : gmsh_types_plural(types)) +
                              " where only " + gmsh_type_plural(wanted) +
                              " were requested; try another size");
    }
}

}  // namespace gpufem
