// The unit cube in three layers of different cells, for finite volumes on a mixed mesh
// (cases/fv_mixed_cube.yaml): prisms for z in [0, 0.3] (a triangulated square extruded),
// tetrahedra for z in [0.3, 0.7] with pyramids where they meet the hexahedra of z in
// [0.7, 1] (a structured square extruded). mesh.size caps the tetrahedra's and the
// triangles' size; the prism and hexahedron layers are set here (layers, divisions).
// Boundary groups as the built-in unit_cube's: left/right (x = 0/1), front/back (y = 0/1),
// bottom/top (z = 0/1), and boundary (all six sides).
lc = 0.07;
Point(1) = {0, 0, 0.3, lc}; Point(2) = {1, 0, 0.3, lc}; Point(3) = {1, 1, 0.3, lc}; Point(4) = {0, 1, 0.3, lc};
Point(5) = {0, 0, 0.7, lc}; Point(6) = {1, 0, 0.7, lc}; Point(7) = {1, 1, 0.7, lc}; Point(8) = {0, 1, 0.7, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};    // z = 0.3
Line(5) = {5, 6}; Line(6) = {6, 7}; Line(7) = {7, 8}; Line(8) = {8, 5};    // z = 0.7
Line(9) = {1, 5}; Line(10) = {2, 6}; Line(11) = {3, 7}; Line(12) = {4, 8}; // vertical
Curve Loop(1) = {1, 2, 3, 4};    Plane Surface(1) = {1};  // z = 0.3: triangles
Curve Loop(2) = {5, 6, 7, 8};    Plane Surface(2) = {2};  // z = 0.7: quadrilaterals
Curve Loop(3) = {1, 10, -5, -9}; Plane Surface(3) = {3};  // y = 0
Curve Loop(4) = {2, 11, -6, -10}; Plane Surface(4) = {4}; // x = 1
Curve Loop(5) = {3, 12, -7, -11}; Plane Surface(5) = {5}; // y = 1
Curve Loop(6) = {4, 9, -8, -12}; Plane Surface(6) = {6};  // x = 0
Surface Loop(1) = {1, 2, 3, 4, 5, 6};
Volume(1) = {1};
Transfinite Curve{5, 6, 7, 8} = 11;
Transfinite Surface{2};
Recombine Surface{2};
low[] = Extrude {0, 0, -0.3} { Surface{1}; Layers{3}; Recombine; };   // prisms
high[] = Extrude {0, 0, 0.3} { Surface{2}; Layers{3}; Recombine; };   // hexahedra
// Delaunay: it puts pyramids on the quadrilaterals the tetrahedra meet.
Mesh.Algorithm3D = 1;
Physical Volume("domain") = {1, low[1], high[1]};
Physical Surface("front") = {3, low[2], high[2]};
Physical Surface("right") = {4, low[3], high[3]};
Physical Surface("back") = {5, low[4], high[4]};
Physical Surface("left") = {6, low[5], high[5]};
Physical Surface("bottom") = {low[0]};
Physical Surface("top") = {high[0]};
Physical Surface("boundary") = {3, 4, 5, 6, low[0], low[2], low[3], low[4], low[5], high[0], high[2], high[3], high[4], high[5]};
