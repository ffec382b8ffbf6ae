#pragma once
// The angles of a mesh's simplices, a quality measure the Jacobian ratio does not give (an
// affine simplex always has ratio 1): the interior angles of its triangles and the dihedral
// angles of its tetrahedra, taken at the corners (straight cells). Small angles make the
// system ill-conditioned; angles near 180 degrees spoil the gradient's accuracy.
#include "mesh/mesh.hpp"

namespace gpufem {

/// The smallest and largest angle in degrees over the cells of one simplex type.
struct AngleRange {
    long long cells = 0;  ///< the cells measured (0: the mesh has none of the type)
    double min = 0;       ///< degrees
    double max = 0;       ///< degrees
};

/// The interior angles of the mesh's triangles (any mesh dimension; mixed meshes: the
/// triangles among its cells).
AngleRange triangle_angles(const Mesh& mesh);

/// The dihedral angles of the mesh's tetrahedra (the angle between the two faces at each of
/// the six edges).
AngleRange tetrahedron_dihedral_angles(const Mesh& mesh);

}  // namespace gpufem
