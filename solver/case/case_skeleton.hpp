#pragma once
// A commented case file for a mesh (`gpufem new-case`): the mesh, degree 1, kappa per region,
// a source, a Dirichlet condition on the first boundary group with the others listed for
// Neumann or Robin conditions, CG with AMG, and the outputs. It runs as written.
#include <string>

#include "mesh/mesh_summary.hpp"

namespace gpufem {

/// How the case names its mesh: `key` is "geo" (a Gmsh script) or "file" (a mesh file) and
/// `path` the path as the case file gives it (relative to the case file's folder).
struct SkeletonMesh {
    std::string key;
    std::string path;
};

/// The case file text for a mesh of this summary.
std::string case_skeleton(const SkeletonMesh& mesh, const MeshSummary& summary);

/// `text` as a YAML scalar: as it is when it reads back unchanged, else double-quoted.
std::string yaml_scalar(const std::string& text);

}  // namespace gpufem
