#pragma once
// A generated box shape (unit_square, unit_cube) as a grid that any window of boxes can be
// made from alone: its lattice, the node patterns of a box's cells and the facets of its
// sides. This is how each rank of a run across processes makes its own part of such a mesh
// without the whole mesh ever being built on one process.
#include <optional>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/structured_grid.hpp"

namespace gpufem {

/// A generated shape's grid and the node patterns of the cells of one of its boxes.
struct ShapeGrid {
    StructuredGrid grid;
    std::string shape;  ///< the shape's name (its plane groups)
    ElementType type = ElementType::hexahedron;
    int cells_per_box = 0;
    int nodes_per_cell = 0;
    /// Per box: cells_per_box cells of nodes_per_cell lattice offsets from k times the box's
    /// lowest corner (3 ints each), in Gmsh's node order; cell b * cells_per_box + s of the
    /// whole mesh is pattern s of box b.
    std::vector<int> patterns;
    std::string source;  ///< how messages name the mesh

    /// The cells of the whole mesh.
    long long num_cells() const { return grid.num_boxes() * cells_per_box; }
};

/// The grid of spec's shape when it is a box shape gpufem generates (unit_square, unit_cube,
/// any cell type and order, refinements included); nothing for other meshes (files, .geo, the
/// disk, the L-shape). Throws MeshSourceError naming the shape when its nodes would not fit
/// 32-bit indices (the memory of one process is not asked: no process holds it all).
std::optional<ShapeGrid> box_shape_grid(const MeshSpec& spec);

/// The boundary groups of a generated box shape, as generate_shape_mesh makes them (its
/// planes, then 'boundary'), keeping only the facets of the boxes whose lowest corner lies in
/// [lo, hi) (box units, per axis); nodes numbered as the whole grid's lattice points.
std::vector<BoundaryFacets> shape_boundaries(const ShapeGrid& shape, const long long lo[3], const long long hi[3]);

}  // namespace gpufem
