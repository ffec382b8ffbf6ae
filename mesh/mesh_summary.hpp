#pragma once
// What a mesh holds, for a user starting from their own mesh (`gpufem mesh-info`): its cells
// by type, nodes, geometric order, bounding box, physical groups with their sizes, and the
// cells' quality (Jacobian ratio, simplex angles, inverted cells).
#include <array>
#include <string>
#include <vector>

#include "mesh/jacobian_ratio.hpp"
#include "mesh/mesh.hpp"
#include "mesh/simplex_angles.hpp"

namespace gpufem {

/// The cells of one type in a mesh.
struct CellTypeCount {
    ElementType type = ElementType::triangle;
    long long cells = 0;
};

/// A physical group of the mesh and its size: a region (a group of the mesh's dimension,
/// counted in cells) or a boundary group (dimension dim - 1, counted in facets).
struct GroupSummary {
    std::string name;
    int dim = 0;
    int tag = 0;
    long long size = 0;
    bool region = false;  ///< a group of cells (else of boundary facets)
};

/// A boundary group the mesh holds but gpufem cannot use, with the reason.
struct UnusableGroup {
    std::string name;
    std::string reason;
};

/// The summary of a mesh.
struct MeshSummary {
    std::string source;  ///< where the mesh came from (Mesh::source)
    int dim = 0;
    int geometry_order = 1;  ///< the order of the cells' geometric maps
    long long nodes = 0;     ///< nodes of the cells (of the geometric order)
    long long cells = 0;
    std::vector<CellTypeCount> cell_types;  ///< one entry per type present, in ElementType order
    std::array<double, 3> box_min{};        ///< the bounding box of the nodes
    std::array<double, 3> box_max{};
    std::vector<GroupSummary> groups;       ///< regions first, then boundary groups
    std::vector<UnusableGroup> unusable_groups;
    long long cells_in_no_region = 0;       ///< cells of no named region
    JacobianRatioSummary jacobian;
    /// jacobian.first_non_positive described by position ("cell 12 (counted from 0; ...)").
    std::vector<std::string> non_positive_cells;
    AngleRange triangle_angles;             ///< interior angles of the triangles
    AngleRange tetrahedron_angles;          ///< dihedral angles of the tetrahedra

    /// The regions (groups of cells), in the mesh's order.
    std::vector<GroupSummary> regions() const;
    /// The boundary groups, in the mesh's order.
    std::vector<GroupSummary> boundary_groups() const;
};

/// "1964 triangles", "1 hexahedron", or for several types "120 cells (100 tetrahedra, 20 prisms)".
std::string cell_counts_text(const MeshSummary& summary);

/// The summary of `mesh`, naming at most `named_bad_cells` cells of non-positive Jacobian.
/// The loops over cells and nodes use the host's threads.
MeshSummary summarise_mesh(const Mesh& mesh, int named_bad_cells = 5);

/// The summary of the mesh in a file as Gmsh reads it (a .geo: as Gmsh meshes it with the
/// file's own sizes), through the sandboxed mesh worker when one is set (mesh_worker.hpp).
/// Throws MeshSourceError naming the file when it is missing or Gmsh cannot read it.
MeshSummary summarise_mesh_file(const std::string& path, int named_bad_cells = 5);

}  // namespace gpufem
