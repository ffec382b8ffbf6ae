SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Physical Volume("domain") = {1};
Physical Surface("left") = {1};
Physical Surface("right") = {2};
Physical Surface("boundary") = {1, 2, 3, 4, 5, 6};
Mesh.MeshSizeMax = 0.4;
