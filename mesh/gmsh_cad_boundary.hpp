#pragma once
// Internal to mesh/ (the mesh worker's side): the points of the current Gmsh model's curved
// surfaces (3D) or curves (2D) at a lattice of each boundary facet on them, for gpufem's
// refinement onto the geometry (Mesh::cad_boundary, mesh/cad_boundary.hpp).
#include <memory>

#include "mesh/gmsh_node_numbering.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// The CadBoundary of `mesh`, just extracted from the current Gmsh model (a GmshSession
/// held; its nodes numbered by `numbering`, coordinates in mesh.coordinates), for
/// `refinements` uniform refinements of its curved cells (order 2 or more: their maps lie
/// within O(h^3) of the geometry, so moving the refined boundary nodes onto it leaves the
/// cells' shapes; straight cells, h^2 / 8R away, would fold thin cells at the boundary):
/// every boundary facet on a surface (3D) or curve (2D)
/// that is neither a plane nor a line, nor discrete, with the geometry's points at the
/// facet's lattice of order degree * 2^refinements (cad_lattice). A point inside a surface
/// is the surface at the facet's interpolated parameters, one on a facet's edge along a
/// curve the curve at the edge's, each checked against the facet's own map and found by
/// orthogonal projection where the parameters fail (a seam, a pole); points on an edge
/// shared by two facets are made once, so both facets move its nodes alike. A mesh of
/// prisms, pyramids or several cell types is given as read at order 2, before
/// split_curved_cells (its node numbers become its maps'), its facets triangles and
/// quadrilaterals in rows of a quadrilateral. Null for a mesh of straight cells, one whose
/// curved maps are not of order 2, one without such facets, or one whose lattices would pass
/// 64M points.
std::shared_ptr<const CadBoundary> gmsh_cad_boundary(const Mesh& mesh, const GmshNodeNumbering& numbering,
                                                     int refinements);

}  // namespace gpufem
