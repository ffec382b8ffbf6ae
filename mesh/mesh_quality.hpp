#pragma once
// The geometry of a mesh checked before assembly, the same for finite elements and finite
// volumes: finite coordinates, 2D meshes in a plane z = const, and no slivers. A cell's
// quality is scale-free: its area (volume) against that of the ideal cell of its shape with
// the same longest edge, 1 for an equilateral triangle or a cube, near 0 for a sliver. Slivers'
// entries swamp the system (a flat tetrahedron of volume 1e-18 and edges 1 gave an error of
// 27 after 0 iterations), so the worst are refused and the poor ones counted in a warning.
#include "mesh/mesh.hpp"

namespace gpufem {

/// Throws MeshSourceError naming the mesh and the node when a coordinate is not finite or a
/// 2D mesh leaves the plane z = const (gpufem would solve it on its projection).
void check_mesh_coordinates(const Mesh& mesh);

/// The quality of every cell (its corners as straight cells), in mesh order.
std::vector<double> cell_qualities(const Mesh& mesh);

/// Where the quality check refuses a cell and where it warns.
struct QualityLimits {
    double refuse = 1e-8;  ///< below: refused (a sliver or a degenerate cell)
    double warn = 1e-3;    ///< below: counted in a warning
};

/// The mesh's worst cell and its poor ones.
struct QualitySummary {
    double worst = 1;           ///< the lowest quality
    long long worst_cell = -1;  ///< the first cell of the lowest quality (-1: no cells)
    long long poor = 0;         ///< cells below QualityLimits::warn
};

/// The summary of the cells' quality; throws MeshSourceError naming the mesh, the worst cell
/// and its nodes when it is below limits.refuse.
QualitySummary check_cell_quality(const Mesh& mesh, const QualityLimits& limits = {});

}  // namespace gpufem
