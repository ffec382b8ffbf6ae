SetFactory("OpenCASCADE");
For i In {0:1}
  Sphere(i + 1) = {2 * i, 0, 0, 0.5};
EndFor
Physical Volume("balls") = {1, 2};
Physical Surface(StrCat("sur", "face")) = {1, 2};
Mesh.MeshSizeMax = 0.3;
