#include "mesh/gmsh_shapes.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <gmsh.h>

#include "mesh/gmsh_element_types.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_source.hpp"

namespace gpufem {
namespace {

namespace geo = gmsh::model::geo;

/// A boundary group made of the shape's outer facets that lie in the plane x[axis] = value.
struct PlaneGroup {
    const char* name;
    int axis;
    double value;
};

/// A cell type a shape can be meshed with, and how (for the help text).
struct ShapeElements {
    ElementType type;
    const char* how;
};

/// One built-in shape: its geometry builder, the cell types it supports (the default first)
/// and its plane boundary groups. Every shape also has the subdomain group 'domain' and the
/// boundary group 'boundary' (all outer facets).
struct ShapeInfo {
    const char* name;
    const char* domain;
    int dim;
    std::vector<ShapeElements> elements;
    std::vector<PlaneGroup> planes;
    void (*build)(ElementType type, double h);
};

/// Cells per unit length of a structured mesh of size h.
int cells_per_unit(double h)
{
    return std::max(1, static_cast<int>(std::ceil(1.0 / h - 1e-9)));
}

/// Makes a four-sided surface a structured grid of n x n quadrilaterals.
void make_structured(int surface, const std::vector<int>& curves, int n)
{
    for (int curve : curves) geo::mesh::setTransfiniteCurve(std::abs(curve), n + 1);
    geo::mesh::setTransfiniteSurface(surface);
    geo::mesh::setRecombine(2, surface);
}

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

/// Adds the square [0,1]^2 (corner mesh size h); returns its surface and its four curves
/// (bottom, right, top, left).
std::pair<int, std::vector<int>> add_unit_square(double h)
{
    const int p1 = geo::addPoint(0, 0, 0, h), p2 = geo::addPoint(1, 0, 0, h);
    const int p3 = geo::addPoint(1, 1, 0, h), p4 = geo::addPoint(0, 1, 0, h);
    const std::vector<int> curves = {geo::addLine(p1, p2), geo::addLine(p2, p3),
                                     geo::addLine(p3, p4), geo::addLine(p4, p1)};
    return {geo::addPlaneSurface({geo::addCurveLoop(curves)}), curves};
}

/// [0,1]^2: a structured quadrilateral grid or unstructured triangles.
void build_unit_square(ElementType type, double h)
{
    const auto [surface, curves] = add_unit_square(h);
    if (type == ElementType::quadrilateral)
        make_structured(surface, curves, cells_per_unit(h));
    else
        set_unstructured_options(h, false);
}

/// [0,1]^3: the unit square extruded in z, as a structured hexahedral grid (layers,
/// recombined) or unstructured tetrahedra.
void build_unit_cube(ElementType type, double h)
{
    const auto [surface, curves] = add_unit_square(h);
    gmsh::vectorpair extruded;
    if (type == ElementType::hexahedron) {
        const int n = cells_per_unit(h);
        make_structured(surface, curves, n);
        geo::extrude({{2, surface}}, 0, 0, 1, extruded, {n}, {}, /*recombine=*/true);
    } else {
        geo::extrude({{2, surface}}, 0, 0, 1, extruded);
        set_unstructured_options(h, false);
    }
}

/// [-1,1]^2 minus (0,1]x[-1,0): three structured quadrilateral blocks, or one polygon meshed
/// with unstructured triangles.
void build_l_shape(ElementType type, double h)
{
    if (type == ElementType::triangle) {
        const std::array<std::array<double, 2>, 6> corners = {
            {{-1, -1}, {0, -1}, {0, 0}, {1, 0}, {1, 1}, {-1, 1}}};
        std::vector<int> points, curves;
        for (const auto& [x, y] : corners) points.push_back(geo::addPoint(x, y, 0, h));
        for (std::size_t i = 0; i < points.size(); ++i)
            curves.push_back(geo::addLine(points[i], points[(i + 1) % points.size()]));
        geo::addPlaneSurface({geo::addCurveLoop(curves)});
        set_unstructured_options(h, false);
        return;
    }
    // Three unit squares sharing the re-entrant corner (0,0): [-1,0]^2, [-1,0]x[0,1], [0,1]^2.
    const int n = cells_per_unit(h);
    const int a = geo::addPoint(-1, -1, 0, h), b = geo::addPoint(0, -1, 0, h);
    const int o = geo::addPoint(0, 0, 0, h), c = geo::addPoint(-1, 0, 0, h);
    const int d = geo::addPoint(-1, 1, 0, h), e = geo::addPoint(0, 1, 0, h);
    const int f = geo::addPoint(1, 1, 0, h), g = geo::addPoint(1, 0, 0, h);
    const int ab = geo::addLine(a, b), bo = geo::addLine(b, o), oc = geo::addLine(o, c);
    const int ca = geo::addLine(c, a), oe = geo::addLine(o, e), ed = geo::addLine(e, d);
    const int dc = geo::addLine(d, c), og = geo::addLine(o, g), gf = geo::addLine(g, f);
    const int fe = geo::addLine(f, e);
    const std::vector<std::vector<int>> blocks = {
        {ab, bo, oc, ca}, {-oc, oe, ed, dc}, {og, gf, fe, -oe}};
    for (const auto& loop : blocks)
        make_structured(geo::addPlaneSurface({geo::addCurveLoop(loop)}), loop, n);
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

/// The built-in shapes.
const std::vector<ShapeInfo>& shapes()
{
    static const std::vector<ShapeInfo> table = {
        {"unit_square", "[0,1]^2", 2,
         {{ElementType::quadrilateral, "structured n x n grid, n = ceil(1/h)"},
          {ElementType::triangle, "unstructured (Frontal-Delaunay)"}},
         {{"left", 0, 0.0}, {"right", 0, 1.0}, {"bottom", 1, 0.0}, {"top", 1, 1.0}},
         build_unit_square},
        {"unit_cube", "[0,1]^3", 3,
         {{ElementType::hexahedron, "structured n x n x n grid, n = ceil(1/h)"},
          {ElementType::tetrahedron, "unstructured (Delaunay)"}},
         {{"left", 0, 0.0},
          {"right", 0, 1.0},
          {"front", 1, 0.0},
          {"back", 1, 1.0},
          {"bottom", 2, 0.0},
          {"top", 2, 1.0}},
         build_unit_cube},
        {"l_shape", "[-1,1]^2 minus (0,1]x[-1,0), re-entrant corner at (0,0)", 2,
         {{ElementType::quadrilateral, "structured, three n x n blocks, n = ceil(1/h)"},
          {ElementType::triangle, "unstructured (Frontal-Delaunay)"}},
         {},
         build_l_shape},
        {"disk", "unit disk centred at (0,0)", 2,
         {{ElementType::triangle, "unstructured (Frontal-Delaunay)"},
          {ElementType::quadrilateral, "unstructured, recombined into quadrilaterals only"}},
         {},
         build_disk},
    };
    return table;
}

/// The shape with this name; throws listing the valid names.
const ShapeInfo& find_shape(const std::string& name)
{
    for (const ShapeInfo& info : shapes())
        if (name == info.name) return info;
    std::string valid;
    for (const ShapeInfo& info : shapes())
        valid += std::string(valid.empty() ? "" : ", ") + info.name;
    throw MeshSourceError("unknown mesh shape '" + name + "'; valid shapes: " + valid);
}

/// "hexahedron (default), tetrahedron"
std::string element_choices(const ShapeInfo& info)
{
    std::string text;
    for (std::size_t i = 0; i < info.elements.size(); ++i) {
        if (i > 0) text += ", ";
        text += element_type_name(info.elements[i].type);
        if (i == 0) text += " (default)";
    }
    return text;
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

ShapeRequest resolve_shape(const std::string& shape, const std::string& elements, double size)
{
    const ShapeInfo& info = find_shape(shape);
    ShapeRequest request{info.name, info.elements.front().type, size};
    if (!elements.empty()) {
        const auto match = std::find_if(info.elements.begin(), info.elements.end(),
                                        [&](const ShapeElements& e) {
                                            return elements == element_type_name(e.type);
                                        });
        if (match == info.elements.end())
            throw MeshSourceError("shape '" + shape + "' cannot be meshed with '" + elements +
                                  "' elements; valid: " + element_choices(info));
        request.elements = match->type;
    }
    if (size == 0.0) request.size = default_shape_size;
    if (!(request.size > 0.0) || !std::isfinite(request.size)) {
        std::ostringstream text;
        text << "mesh size of shape '" << shape << "' must be positive (got " << size << ")";
        throw MeshSourceError(text.str());
    }
    // A structured grid of n^dim cells, or about as many unstructured ones, must fit in 32 bits.
    if (std::pow(1.0 / request.size, info.dim) > 1e8) {
        std::ostringstream text;
        text << "mesh size h=" << request.size << " is too small for shape '" << shape
             << "' (more than 1e8 cells)";
        throw MeshSourceError(text.str());
    }
    return request;
}

void mesh_shape(const ShapeRequest& request, const std::string& source)
{
    const ShapeInfo& info = find_shape(request.shape);
    info.build(request.elements, request.size);
    geo::synchronize();
    add_shape_groups(info);
    run_gmsh_step("mesh '" + source + "'", [&] { gmsh::model::mesh::generate(info.dim); });

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

std::string describe_shapes()
{
    std::ostringstream text;
    text << "Built-in mesh shapes (mesh size h: default " << default_shape_size
         << "; refine N splits every cell N times):\n";
    for (const ShapeInfo& info : shapes()) {
        text << "  " << info.name << ": " << info.domain << "\n";
        for (std::size_t i = 0; i < info.elements.size(); ++i)
            text << "    " << element_type_name(info.elements[i].type)
                 << (i == 0 ? " (default)" : "") << ": " << info.elements[i].how << "\n";
        text << "    boundary groups:";
        for (const PlaneGroup& plane : info.planes)
            text << " " << plane.name << " (" << "xyz"[plane.axis] << "=" << plane.value << "),";
        text << " boundary (all); subdomain group: domain\n";
    }
    return text.str();
}

}  // namespace gpufem
