// The unit cube in prisms: the unit square in triangles (size 1/15) extruded in 15 layers, a
// boundary-layer style mesh for cases/prisms_refined_p3.yaml (Gmsh meshes it coarse, gpufem
// refines it on the device). Groups: left (x = 0), right, front (y = 0), back, bottom
// (z = 0: the prisms' triangles), top, boundary (all six sides).
lc = 0.06666666666666667;
Point(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc}; Point(3) = {1, 1, 0, lc}; Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
e[] = Extrude {0, 0, 1} { Surface{1}; Layers{15}; Recombine; };
Physical Volume("domain") = {e[1]};
Physical Surface("left") = {e[5]}; Physical Surface("right") = {e[3]};
Physical Surface("front") = {e[2]}; Physical Surface("back") = {e[4]};
Physical Surface("bottom") = {1}; Physical Surface("top") = {e[0]};
Physical Surface("boundary") = {e[5], e[3], e[2], e[4], 1, e[0]};
