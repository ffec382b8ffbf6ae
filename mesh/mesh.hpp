#pragma once
// Mesh: nodes, cells of one type, named physical groups and their boundary facets (host data).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "linalg/array.hpp"
#include "linalg/host_vector.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Element shapes gpufem handles (degree-1 node sets; node order as Gmsh's, which for these
/// first-order shapes equals VTK's except the prism's). Prisms and pyramids: first order and
/// finite volumes only.
enum class ElementType { line, triangle, quadrilateral, tetrahedron, hexahedron, prism, pyramid };
/// Number of ElementType values (tables indexed by the type).
inline constexpr int element_type_count = 7;

/// "triangle", "quadrilateral", ...
const char* element_type_name(ElementType type);
/// "triangles", "quadrilaterals", "tetrahedra", ...
const char* element_type_plural(ElementType type);
/// Topological dimension of a shape (line 1, triangle 2, ..., hexahedron 3).
int element_dimension(ElementType type);
/// Number of nodes of the first-order shape.
int element_node_count(ElementType type);
/// Number of nodes of the complete Lagrange element of this shape and order (1..4):
/// (k+1)(k+2)/2, (k+1)^2, (k+1)(k+2)(k+3)/6, (k+1)^3; lines k+1.
int lagrange_node_count(ElementType type, int order);

/// A named physical group as defined in the Gmsh model.
struct PhysicalGroup {
    std::string name;  ///< the group's name ("left", "boundary", ...); "group<tag>" if unnamed
    int dim = 0;       ///< dimension of its entities
    int tag = 0;       ///< Gmsh physical tag
};

/// Facets (elements of dimension dim-1) that belong to one boundary physical group.
struct BoundaryFacets {
    PhysicalGroup group;
    ElementType type = ElementType::line;  ///< shape of the facets
    int degree = 1;                         ///< geometric order of the facets (as the cells')
    int nodes_per_facet = 2;
    std::vector<index_type> connectivity;  ///< nodes_per_facet node indices per facet
    /// Triangles and quadrilaterals in one group (a mixed mesh's boundary): type
    /// quadrilateral, and a triangle's 4th node -1.
    bool mixed_triangles = false;
    std::size_t size() const { return connectivity.size() / nodes_per_facet; }
};

/// A boundary physical group that cannot be used (e.g. facets on nodes no cell uses, or
/// facets of another shape or order than the cells'), with the reason; ignored unless a
/// boundary condition names it.
struct IgnoredGroup {
    std::string name;
    std::string reason;
};

/// Where the time of building a mesh went (seconds).
struct MeshBuildTimes {
    double gmsh = 0;    ///< inside Gmsh: reading, meshing, the order of the coarse cells
    double gpufem = 0;  ///< gpufem's own work: extracting Gmsh's mesh, or generating a shape
    double refinement = 0;  ///< gpufem's refinement and node numbering of a mesh from Gmsh
    double host_copy = 0;   ///< of which copying the result from the device to the host
};

/// A mesh's coordinates and cells also held on a device, made where the mesh was generated so
/// that assembly need not upload them.
struct MeshOnDevice {
    Array<double> coordinates;
    Array<index_type> cells;
};

/// An unstructured mesh: cells of one type, or (first order, finite volumes only) of several.
/// Nodes are those used by the cells, numbered 0..n-1: in Gmsh tag order for meshes from Gmsh,
/// along the grid (x fastest) for the shapes gpufem generates.
struct Mesh {
    int dim = 0;                       ///< 2 or 3
    HostVector<double> coordinates;    ///< 3 per node (x, y, z; z = 0 in 2D)
    ElementType cell_type = ElementType::triangle;
    int degree = 1;                     ///< order of the cells: nodes are the complete Lagrange
                                       ///< nodes of that order, in Gmsh's node order
    int nodes_per_cell = 0;
    HostVector<index_type> cells;      ///< nodes_per_cell node indices per cell
    /// A mesh of several first-order cell types: each cell's ElementType (its number). Then
    /// nodes_per_cell is the most corners of those types, a cell's row of `cells` holds its
    /// corners and -1 after them, and cell_type is the type with the most corners. Empty:
    /// every cell is a cell_type.
    HostVector<std::uint8_t> cell_types;
    std::vector<int> cell_group;       ///< physical tag of each cell's subdomain (0 if none)
    std::vector<PhysicalGroup> subdomains;   ///< physical groups of dimension dim
    std::vector<BoundaryFacets> boundaries;  ///< physical groups of dimension dim-1
    std::vector<IgnoredGroup> ignored_boundaries;  ///< groups of dimension dim-1 not usable
    std::string source;                ///< where the mesh came from, for messages and reports
    MeshBuildTimes build_times;        ///< how long Gmsh and gpufem took to build it
    /// The same coordinates and cells on a device executor, or null. Whoever changes the host
    /// coordinates or cells must reset it.
    std::shared_ptr<const MeshOnDevice> device;

    index_type num_nodes() const { return static_cast<index_type>(coordinates.size() / 3); }
    index_type num_cells() const { return static_cast<index_type>(cells.size() / nodes_per_cell); }
    /// Whether the cells are of several types (cell_types).
    bool is_mixed() const { return !cell_types.empty(); }
    /// Whether only finite volumes take this mesh (cells of several types, or prisms or
    /// pyramids: first order, walked by their shapes, no Lagrange spaces, no refinement).
    bool finite_volumes_only() const
    {
        return is_mixed() || cell_type == ElementType::prism || cell_type == ElementType::pyramid;
    }
    /// The type of cell c.
    ElementType type_of_cell(index_type c) const
    {
        return cell_types.empty() ? cell_type : static_cast<ElementType>(cell_types[static_cast<std::size_t>(c)]);
    }
    /// "tetrahedron", or for a mixed mesh "mixed: 100 tetrahedra, 20 prisms, 4 pyramids".
    std::string describe_cells() const;
    /// The boundary group with this name, or nullptr.
    const BoundaryFacets* find_boundary(const std::string& name) const;
    /// Names of all boundary groups, for error messages.
    std::vector<std::string> boundary_names() const;
};

/// A mesh's cells and coordinates on an executor: its device copy when it has one there, else
/// an upload (or, on the CPU, a view of the host arrays).
struct MeshOnExec {
    const index_type* cells = nullptr;
    const double* coordinates = nullptr;  ///< null when made without_coordinates
    Array<index_type> own_cells;
    Array<double> own_coordinates;

    /// Whether the coordinates are wanted too.
    enum class Parts { cells_and_coordinates, cells_only };

    MeshOnExec(const Mesh& mesh, const ExecPtr& exec, Parts parts = Parts::cells_and_coordinates);
};

}  // namespace gpufem
