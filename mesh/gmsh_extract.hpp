#pragma once
// Internal to mesh/: turning the current Gmsh model's mesh into a gpufem Mesh.
#include <string>

#include "mesh/mesh.hpp"

namespace gpufem {

/// The order (1..4) of the cells of the current Gmsh model's mesh: those of the highest
/// dimension that has elements, which must be of one complete Lagrange type. Throws
/// MeshSourceError naming `source` on no cells, mixed types or orders, unsupported types.
int mesh_cell_order(const std::string& source);

/// Extracts the mesh of the current Gmsh model (a GmshSession must be held): the cells of
/// the highest dimension that has elements (2 or 3; one complete Lagrange type of `order`,
/// all nodes in Gmsh's node order), the nodes they use (vertices and high-order nodes,
/// numbered in increasing Gmsh tag order), the physical groups of that dimension as
/// subdomains and those of one dimension less as boundary facet sets (facets of the same
/// order, all their nodes). `source` names the mesh in Mesh::source and in errors
/// (MeshSourceError: no cells, mixed or unsupported cell types or orders, cells of another
/// order than `order`, a boundary facet on a node no cell uses, ...).
/// With `cad_refinements` > 0, also the curved geometry at the boundary facets for that many
/// refinements by gpufem (Mesh::cad_boundary, gmsh_cad_boundary.hpp).
Mesh extract_mesh(const std::string& source, int order = 1, int cad_refinements = 0);

}  // namespace gpufem
