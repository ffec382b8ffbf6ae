// A long thin channel [0, 2000] x [0, 1] for the banded format (bdia; Wang, Ren & Tian 2013):
// meshed by Gmsh into unstructured triangles, its matrix has a narrow band after reverse
// Cuthill-McKee (a few elements across, so each RCM level set is a few dozen nodes), whatever
// its length.
// The channel is cut into N segments of 25 x 1: Gmsh meshes 2D surfaces one after the other,
// and short ones take half the time of one long surface (2.6 s against 5.3 s for 150k
// triangles on one thread). lc is a coarse default; the case's mesh.size (Mesh.MeshSizeMax)
// sets the size.
// Named groups: inlet (x = 0), outlet (x = L), walls (y = 0 and y = W), domain.
L = 2000;
W = 1;
N = 80;
lc = 0.5;
For i In {0:N}
  Point(2 * i + 1) = {i * L / N, 0, 0, lc};
  Point(2 * i + 2) = {i * L / N, W, 0, lc};
  Line(1000 + i) = {2 * i + 1, 2 * i + 2};                // cross section at x = i L / N
EndFor
For i In {0:N - 1}
  Line(2000 + i) = {2 * i + 1, 2 * i + 3};                // bottom wall of segment i
  Line(3000 + i) = {2 * i + 4, 2 * i + 2};                // top wall of segment i
  Curve Loop(i + 1) = {2000 + i, 1000 + i + 1, 3000 + i, -(1000 + i)};
  Plane Surface(i + 1) = {i + 1};
EndFor
Physical Curve("inlet") = {1000};
Physical Curve("outlet") = {1000 + N};
Physical Curve("walls") = {2000:2000 + N - 1, 3000:3000 + N - 1};
Physical Surface("domain") = {1:N};
