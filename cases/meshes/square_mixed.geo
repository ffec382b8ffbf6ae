// The unit square in triangles (x < 0.5) and quadrilaterals (x > 0.5, structured), for finite
// volumes on a mixed 2D mesh (cases/fv_mixed_square.yaml). mesh.size caps the triangles'
// size; the quadrilaterals' divisions are set here. Boundary groups as the built-in
// unit_square's: left/right (x = 0/1), bottom/top (y = 0/1), boundary (all four sides).
lc = 0.05;
Point(1) = {0, 0, 0, lc}; Point(2) = {0.5, 0, 0, lc}; Point(3) = {1, 0, 0, lc};
Point(4) = {1, 1, 0, lc}; Point(5) = {0.5, 1, 0, lc}; Point(6) = {0, 1, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 5}; Line(5) = {5, 6};
Line(6) = {6, 1}; Line(7) = {2, 5};
Curve Loop(1) = {1, 7, 5, 6};   Plane Surface(1) = {1};  // triangles
Curve Loop(2) = {2, 3, 4, -7};  Plane Surface(2) = {2};  // quadrilaterals
Transfinite Curve{2, 4} = 11;
Transfinite Curve{3, 7} = 21;
Transfinite Surface{2};
Recombine Surface{2};
Physical Surface("domain") = {1, 2};
Physical Curve("left") = {6};
Physical Curve("right") = {3};
Physical Curve("bottom") = {1, 2};
Physical Curve("top") = {4, 5};
Physical Curve("boundary") = {1, 2, 3, 4, 5, 6};
