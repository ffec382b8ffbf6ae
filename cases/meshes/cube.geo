// The unit cube as an OpenCASCADE box, for Gmsh's unstructured tetrahedra (cases/gmsh_cube_tets.yaml).
// Boundary groups as the built-in unit_cube's: left/right (x = 0/1), front/back (y = 0/1),
// bottom/top (z = 0/1), and boundary (all six faces).
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Physical Volume("domain") = {1};
Physical Surface("left") = {1};
Physical Surface("right") = {2};
Physical Surface("front") = {3};
Physical Surface("back") = {4};
Physical Surface("bottom") = {5};
Physical Surface("top") = {6};
Physical Surface("boundary") = {1, 2, 3, 4, 5, 6};
