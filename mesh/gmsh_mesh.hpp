#pragma once
// Gmsh's part of loading a mesh file or .geo file as the mesh worker returns it and the mesh
// cache keeps it: the mesh before gpufem's refinement and degree-k nodes, and whether the
// degree chose the order of its cells (gmsh_cell_order.hpp).
#include <string>

#include "mesh/mesh.hpp"
#include "mesh/mesh_source.hpp"

namespace gpufem {

/// The mesh Gmsh made or read (load_gmsh_mesh) and how its cells' order was chosen.
struct GmshMesh {
    Mesh mesh;
    /// Gmsh made the cells at the order the degree asks for (curved geometry, geometry_order
    /// 0: degree_geometry_order), so another degree or refinement may need another mesh. False:
    /// the mesh is the same for every degree and refinement.
    bool order_from_degree = false;
};

/// load_gmsh_mesh, with whether the degree chose the cells' order.
GmshMesh load_gmsh_mesh_and_order(const MeshSpec& spec, const GmshReadOptions& read = {});

/// How a mesh from a file or .geo file is named in messages and reports (Mesh::source): its
/// path and the spec's size, refinement and degree, "a.geo (h=0.2, refine 1, order 3)".
std::string gmsh_mesh_source(const MeshSpec& spec);

}  // namespace gpufem
