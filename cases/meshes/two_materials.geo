// A plate of two materials side by side (physical surfaces "steel", x < 0.6, and
// "insulation", x > 0.6) with the sides "hot" (x = 0), "cooled" (x = 1) and "walls"
// (y = 0 and y = 0.4); the mesh follows the interface.
SetFactory("OpenCASCADE");
Rectangle(1) = {0, 0, 0, 0.6, 0.4};
Rectangle(2) = {0.6, 0, 0, 0.4, 0.4};
BooleanFragments{ Surface{1}; Delete; }{ Surface{2}; Delete; }
Physical Surface("steel") = {1};
Physical Surface("insulation") = {2};
Physical Curve("hot") = Curve In BoundingBox{-1e-6, -1e-6, -1, 1e-6, 0.4 + 1e-6, 1};
Physical Curve("cooled") = Curve In BoundingBox{1 - 1e-6, -1e-6, -1, 1 + 1e-6, 0.4 + 1e-6, 1};
walls[] = Curve In BoundingBox{-1e-6, -1e-6, -1, 1 + 1e-6, 1e-6, 1};
walls[] += Curve In BoundingBox{-1e-6, 0.4 - 1e-6, -1, 1 + 1e-6, 0.4 + 1e-6, 1};
Physical Curve("walls") = walls[];
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeMax = 0.02;
