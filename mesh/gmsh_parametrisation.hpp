#pragma once
// Internal to mesh/ (the mesh worker's side): what interpolating the parameters of a Gmsh
// model entity's mesh nodes must know of its parametrisation: its periods (a seam) and where
// it degenerates (a pole).
#include <array>
#include <vector>

namespace gpufem {

/// The period of each direction of the parametrisation of entity (dim, tag) of the current
/// Gmsh model (a curve: one, a surface: two), 0 where it is not periodic: a direction is
/// periodic when the entity meets itself across its parameter bounds (halfway along the
/// other direction), as a cylinder's or sphere's u does.
std::array<double, 2> parametrisation_periods(int dim, int tag);

/// Where the parametrisation of entity (dim, tag) degenerates at each of the points
/// `parameters` (dim values each): -1 nowhere, 0 or 1 the direction whose derivative
/// vanishes there (a surface's pole: that parameter is arbitrary), 2 every derivative. Empty
/// when Gmsh gives no derivatives.
std::vector<int> degenerate_directions(int dim, int tag, const std::vector<double>& parameters);

}  // namespace gpufem
