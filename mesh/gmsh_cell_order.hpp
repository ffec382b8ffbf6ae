#pragma once
// The order of the cells Gmsh makes for gpufem, chosen on the current Gmsh model: 1 on
// straight-sided geometry (gpufem places every other node), the file's own order where asked,
// `geometry_order` when given, and otherwise, on curved geometry, the order the degree asks
// for. Whether the degree chose it decides whether the mesh cache may give one Gmsh mesh to
// every degree and refinement (mesh_cache_key.hpp).
#include <algorithm>
#include <string>

#include "mesh/mesh_source.hpp"

namespace gpufem {

/// Highest order of the cells gpufem reads or has Gmsh make (their geometry); higher degrees
/// (boxes to max_element_degree) take their nodes from gpufem.
inline constexpr int max_mesh_order = 4;

/// Highest order of prisms, pyramids and meshes of several cell types read from Gmsh (their
/// curved maps, Mesh::curved_cells).
inline constexpr int max_curved_block_order = 2;

/// The order of the cells Gmsh gives gpufem, and whether it came from the degree.
struct GmshCellOrder {
    int order = 1;
    /// The order is degree_geometry_order(spec): a mesh for another degree or refinement may
    /// differ. False: the same mesh serves every degree and refinement.
    bool from_degree = false;
};

/// The order of Gmsh's cells on curved geometry when `geometry_order` is 0 (and of every cell
/// with `gmsh_nodes`): the degree, at least 2 when refined, so that a refined cell's new nodes,
/// placed by its parent's map, keep following the curves.
inline int degree_geometry_order(const MeshSpec& spec)
{
    const int degree = std::min(spec.degree, max_mesh_order);
    if (spec.gmsh_nodes) return degree;
    return spec.refine > 0 ? std::max(degree, 2) : degree;
}

/// The order of the cells Gmsh gives gpufem for the current model (see MeshSpec::geometry_order);
/// `file_order` is the order of a .msh file's cells (0 for meshes Gmsh makes). Cells of several
/// types, prisms and pyramids are of order 2 at most (max_curved_block_order): gpufem numbers
/// them from their corners and places their higher-degree nodes by those maps. Throws MeshSourceError naming `context` for a
/// geometry_order out of range.
GmshCellOrder gmsh_cell_order(const MeshSpec& spec, int file_order, const std::string& context);

/// Gives the current model's mesh complete Lagrange elements of `order` (Gmsh's setOrder):
/// high-order nodes on the geometry where Gmsh knows it (the curves and surfaces of shapes and
/// .geo files), interpolated on the discrete entities of a .msh file; no high-order
/// optimisation. A mesh already of that order is left as it is (a file's own high-order nodes
/// are kept). `source` names the mesh in errors.
void set_mesh_order(int order, const std::string& source);

}  // namespace gpufem
