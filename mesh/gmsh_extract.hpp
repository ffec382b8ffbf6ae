#pragma once
// Internal to mesh/: turning the current Gmsh model's mesh into a gpufem Mesh.
#include <string>

#include "mesh/mesh.hpp"

namespace gpufem {

/// Extracts the mesh of the current Gmsh model (a GmshSession must be held): the cells of
/// the highest dimension that has elements (2 or 3; one first-order type), the nodes they
/// use (numbered in increasing Gmsh tag order), the physical groups of that dimension as
/// subdomains and those of one dimension less as boundary facet sets. `source` names the
/// mesh in Mesh::source and in errors (MeshSourceError: no cells, mixed or unsupported cell
/// types, a boundary facet on a node no cell uses, ...).
Mesh extract_mesh(const std::string& source);

}  // namespace gpufem
