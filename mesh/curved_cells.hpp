#pragma once
// Internal to mesh/: prisms, pyramids and meshes of several cell types read from Gmsh's cells
// of order 2 on curved geometry. gpufem numbers and refines such meshes from their corners
// (Mesh::first_order_only); the cells' order-2 maps ride along as Mesh::curved_cells and place
// every node refinement and the degree add (mesh_refinement.hpp).
#include <array>
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// For each cell type, the order-2 node order: entry j is the position in Gmsh's node list of
/// gpufem's node j (empty for a type the mesh does not hold).
using GmshNodeOrders = std::array<std::vector<int>, element_type_count>;

/// The permutation of one type: gmsh_reference holds Gmsh's reference coordinates of its
/// order-`order` element (dim per node), matched to gpufem's equispaced nodes of that order.
/// Throws std::logic_error when they are not the same set of points.
std::vector<int> gpufem_node_order(ElementType type, int order, const std::vector<double>& gmsh_reference);

/// Turns a mesh read at order 2 (cells in Gmsh's node order, boundary facets holding their
/// corners only, as numbers of the mesh's nodes) into its first-order mesh, whose nodes are
/// the cells' corners (in the order of their node numbers), carrying the cells' order-2 maps
/// as curved_cells in gpufem's node order. A boundary group with a facet corner that is no
/// cell's corner moves to ignored_boundaries with the reason.
void split_curved_cells(Mesh& mesh, const GmshNodeOrders& orders);

/// Whether the mesh's curved maps fit it (one row per cell, of the cell type's width in a mesh
/// of one type, nodes in range, the row's corners exactly at the cell's nodes, as
/// split_curved_cells makes them): a check of data read back from a file.
bool curved_cells_fit(const Mesh& mesh);

}  // namespace gpufem
