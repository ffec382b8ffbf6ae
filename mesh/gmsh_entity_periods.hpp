#pragma once
// Internal to mesh/ (the mesh worker's side): the periods of a Gmsh model entity's
// parametrisation, for interpolating the parameters of mesh nodes across a seam.
#include <array>

namespace gpufem {

/// The period of each direction of the parametrisation of entity (dim, tag) of the current
/// Gmsh model (a curve: one, a surface: two), 0 where it is not periodic: a direction is
/// periodic when the entity meets itself across its parameter bounds (halfway along the
/// other direction), as a cylinder's or sphere's u does.
std::array<double, 2> parametrisation_periods(int dim, int tag);

}  // namespace gpufem
