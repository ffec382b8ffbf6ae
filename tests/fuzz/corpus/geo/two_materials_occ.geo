SetFactory("OpenCASCADE");
Rectangle(1) = {0, 0, 0, 0.6, 0.4};
Rectangle(2) = {0.6, 0, 0, 0.4, 0.4};
BooleanFragments{ Surface{1}; Delete; }{ Surface{2}; Delete; }
Physical Surface("steel") = {1};
Physical Surface("insulation") = {2};
Physical Curve("hot") = Curve In BoundingBox{-1e-6, -1e-6, -1, 1e-6, 0.4 + 1e-6, 1};
Mesh.MeshSizeMax = 0.1;
