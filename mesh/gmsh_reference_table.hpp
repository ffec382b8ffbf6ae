#pragma once
// Internal to mesh/: Gmsh's reference nodes of the MSH element types whose node order gpufem
// uses (ShapeTraits::gmsh_basis_types), read from Gmsh when gpufem is built (the build step
// mesh/tools/gmsh_reference_tables.cpp writes the table), so that a run never loads Gmsh's
// library for them.
#include <span>

namespace gpufem {

/// The reference nodes of an MSH element type (dim coordinates per node, Gmsh's order), or an
/// empty span for a type the table does not hold.
std::span<const double> gmsh_reference_table(int gmsh_type);

}  // namespace gpufem
