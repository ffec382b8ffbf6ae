#pragma once
// Refinement onto the CAD geometry. The mesh worker gives a mesh that gpufem will refine the
// points of the model's curved surfaces (3D) or curves (2D) at a lattice of each coarse
// boundary facet on them (Mesh::cad_boundary, mesh/gmsh_cad_boundary.hpp). Uniform refinement
// puts a facet's new nodes exactly at the coarse facet's map of such lattice points; after
// the last refinement each of them moves to its lattice point's place on the geometry. The
// cells' other nodes stay where the coarse cells' maps put them. Prisms, pyramids and meshes
// of several cell types refine from their corners by order-2 maps (Mesh::curved_cells): their
// refined vertices and their children's maps' nodes on the facets move alike, and the
// degree's nodes then follow the maps.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "linalg/array.hpp"
#include "linalg/executor.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// One point of a facet's lattice: its coordinates on Gmsh's reference facet, and the corner
/// or edge of the facet it lies on.
struct CadLatticePoint {
    double xi[2] = {0, 0};  ///< reference coordinates (a line: xi[0] only)
    int corner = -1;        ///< the facet's corner it is, or -1
    int edge = -1;          ///< the facet's edge (lattice_table(type, 1).edges) it is inside, or -1
    int step = 0;           ///< on an edge: its steps of 1/m from the edge's first corner
};

/// The lattice of order m of a facet shape (line, triangle, quadrilateral): the points i/m
/// of each reference direction (triangles: those with i + j <= m), j slowest.
std::vector<CadLatticePoint> cad_lattice(ElementType facet, int m);

/// The facet shape of a mesh's boundary: lines in 2D, triangles on tetrahedra, else
/// quadrilaterals.
ElementType boundary_facet_shape(const Mesh& mesh);

/// The largest distance between two of a facet's first `corners` nodes.
double facet_diameter(const Mesh& mesh, const index_type* nodes, int corners);
/// The same with the nodes' coordinates given (x, y, z per node).
double facet_diameter(const double* xyz, const index_type* nodes, int corners);

/// What refine_and_number needs to move the refined nodes onto the geometry.
struct CadSnap {
    std::shared_ptr<const CadBoundary> cad;
    /// The coarse facets, split with the mesh's cells: as the cad boundary's rows, or for a
    /// mesh with curved maps (Mesh::curved_cells) their corners as the mesh's nodes.
    BoundaryFacets facets;
    std::vector<double> map_points;  ///< the coarse facets' maps of their lattice points
    std::vector<double> tolerance;   ///< per coarse facet: a small fraction of its lattice step
};

/// The CadSnap of `mesh` (the coarse mesh) for `refine` refinements, or nothing when it has
/// no cad_boundary made for that many (of its cells' order, or its curved maps').
std::optional<CadSnap> cad_snap_for(const Mesh& mesh, int refine);

/// Moves the nodes of snap.facets (split with the cells of `mesh`, which is the coarse mesh
/// refined cad->refinements times) onto their lattice points' places on the geometry: the
/// coordinates on the executor (the device copy on a CUDA executor), and the host's when
/// `host_written`. Throws std::logic_error when a node lies at no lattice point.
void snap_to_cad(Mesh& mesh, const CadSnap& snap, const ExecPtr& exec, bool host_written);

/// A mesh with curved maps: moves the maps' nodes on the curved facets' children (`facets`,
/// rows of `coordinates` nodes at the maps' order, split cad->refinements times) onto their
/// lattice points' places on the geometry, on the executor; the degree's nodes placed by the
/// maps afterwards follow them. Throws std::logic_error when a node lies at no lattice point.
void snap_map_nodes_to_cad(Array<double>& coordinates, const BoundaryFacets& facets, const CadSnap& snap,
                           const ExecPtr& exec, const std::string& source);

}  // namespace gpufem
