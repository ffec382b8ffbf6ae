// A pipe bend: the section 1 < r < 1.5, 0 < z < 0.4 of a ring revolved a quarter turn about
// the z axis, in 24 layers of prisms (a triangulated section swept along the arc), as in Gmsh's
// tutorial t3. On this curved geometry Gmsh makes the prisms at order 2, their edges along the
// bend on its arcs. Groups: pipe (the volume), inner (r = 1), outer (r = 1.5), bottom, top,
// start (the plane y = 0), end (x = 0).
lc = 0.06;
Point(1) = {1, 0, 0, lc}; Point(2) = {1.5, 0, 0, lc}; Point(3) = {1.5, 0, 0.4, lc}; Point(4) = {1, 0, 0.4, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
r[] = Extrude {{0, 0, 1}, {0, 0, 0}, Pi / 2} { Surface{1}; Layers{24}; Recombine; };
Physical Volume("pipe") = {r[1]};
Physical Surface("bottom") = {r[2]}; Physical Surface("outer") = {r[3]};
Physical Surface("top") = {r[4]}; Physical Surface("inner") = {r[5]};
Physical Surface("start") = {1}; Physical Surface("end") = {r[0]};
