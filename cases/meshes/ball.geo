// The unit ball (OpenCASCADE kernel): curved boundary for isoparametric high-order elements.
// Named groups: boundary (the sphere), domain (the ball).
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
Physical Surface("boundary") = {1};
Physical Volume("domain") = {1};
Mesh.MeshSizeMax = 0.3;
