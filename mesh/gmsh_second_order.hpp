#pragma once
// Internal to mesh/ (the mesh worker's side): the current Gmsh model's first-order simplex mesh
// made second-order by gpufem instead of Gmsh's setOrder(2), which works edge by edge on one
// thread and takes most of Gmsh's time on a CAD part (docs/performance.md). The same placement
// as Gmsh's with SecondOrderLinear = 0 and no optimisation: an edge of a curve or surface gets
// the point of the curve or surface nearest its straight midpoint (Gauss-Newton steps in the
// parameters from the ends' mean, a periodic direction taken the short way round, at a pole
// the other end's parameter; the points the parameters miss projected by Gmsh), every other
// edge its straight midpoint; the nodes and order-2 elements then replace the model's, so
// that everything that reads the model afterwards (extraction, the geometry's points for
// refinement) sees what setOrder(2) would have left.

namespace gpufem {

/// Whether make_second_order takes the current model: every element a point, line, triangle
/// or tetrahedron of order 1 (and some element).
bool own_second_order_applies();

/// Replaces the current model's first-order mesh by its second-order one (see the file
/// comment); the caller holds a GmshSession. Throws std::runtime_error when an element of
/// another type is met.
void make_second_order();

}  // namespace gpufem
