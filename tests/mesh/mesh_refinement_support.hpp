#pragma once
// Meshes for the refinement and numbering tests: unstructured Gmsh meshes of the unit square
// and cube of every cell type, at order 1 or any order, numbered as Gmsh numbers them.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mesh/mesh_source.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem::test {

/// Writes a .geo of the unit square (2D types) or cube (3D types) that Gmsh meshes without
/// structure and reproducibly: triangles (Delaunay), quadrilaterals (every triangle split in
/// 3), tetrahedra (Delaunay, not the default HXT, whose meshes vary), hexahedra (every
/// tetrahedron split in 4), of the size given (not the kernel's own point sizes). Groups:
/// 'domain', 'boundary' and 'left' (x = 0).
inline std::filesystem::path write_box_geo(const TempFolder& folder, ElementType type)
{
    const std::filesystem::path path = folder / (std::string(element_type_name(type)) + ".geo");
    std::ofstream geo(path);
    geo << "SetFactory(\"OpenCASCADE\");\n"
           "Mesh.MeshSizeFromPoints = 0;\n";  // the size given is the size
    if (element_dimension(type) == 2) {
        geo << "Rectangle(1) = {0, 0, 0, 1, 1};\n"
               "Physical Surface(\"domain\") = {1};\n"
               "Physical Curve(\"boundary\") = {1, 2, 3, 4};\n"
               "Physical Curve(\"left\") = {4};\n"
               "Mesh.Algorithm = 5;\n";
        if (type == ElementType::quadrilateral) geo << "Mesh.SubdivisionAlgorithm = 1;\n";
    } else {
        geo << "Box(1) = {0, 0, 0, 1, 1, 1};\n"
               "Physical Volume(\"domain\") = {1};\n"
               "Physical Surface(\"boundary\") = {1, 2, 3, 4, 5, 6};\n"
               "Physical Surface(\"left\") = {1};\n"
               "Mesh.Algorithm = 5;\n"
               "Mesh.Algorithm3D = 1;\n";
        if (type == ElementType::hexahedron) geo << "Mesh.SubdivisionAlgorithm = 2;\n";
    }
    return path;
}

/// A 2 x 1 x 1 box with a cylindrical hole of radius 0.3 through it along z (OpenCASCADE: the
/// cylinder's seam runs along the hole), every surface in the group "walls".
inline const char* const box_with_hole_geo = R"(SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 2, 1, 1};
Cylinder(2) = {1, 0.5, 0, 0, 0, 1, 0.3};
BooleanDifference(3) = {Volume{1}; Delete;}{Volume{2}; Delete;};
Physical Surface("walls") = Surface{:};
Physical Volume("solid") = {3};
Mesh.MeshSizeMax = 0.25;
Mesh.Algorithm3D = 1;
)";

/// The spec of that .geo at size h, degree k, refined r times.
inline MeshSpec box_geo_spec(const std::filesystem::path& geo, double h, int k, int r = 0)
{
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = geo.string();
    spec.size = h;
    spec.degree = k;
    spec.refine = r;
    return spec;
}

/// Local edges and faces of each shape (Gmsh's vertex order), written here independently of
/// the implementation's tables.
inline std::vector<std::vector<int>> local_edges(ElementType type)
{
    switch (type) {
    case ElementType::tetrahedron: return {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    case ElementType::hexahedron:
        return {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    case ElementType::prism: return {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {0, 3}, {1, 4}, {2, 5}};
    case ElementType::pyramid: return {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {1, 4}, {2, 4}, {3, 4}};
    case ElementType::triangle: return {{0, 1}, {1, 2}, {2, 0}};
    case ElementType::quadrilateral: return {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
    default: return {};
    }
}
inline std::vector<std::vector<int>> local_faces(ElementType type)
{
    switch (type) {
    case ElementType::tetrahedron: return {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    case ElementType::hexahedron:
        return {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
    case ElementType::prism: return {{0, 1, 2}, {3, 4, 5}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}};
    case ElementType::pyramid: return {{0, 1, 2, 3}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}};
    default: return {};
    }
}

}  // namespace gpufem::test
