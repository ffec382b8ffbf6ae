// The unit ball (OpenCASCADE kernel): curved boundary for isoparametric high-order elements.
// Named groups: boundary (the sphere), domain (the ball).
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
Physical Surface("boundary") = {1};
Physical Volume("domain") = {1};
Mesh.MeshSizeMax = 0.3;
// Gmsh's default 3D algorithm (Delaunay) rather than gpufem's default, the parallel HXT:
// HXT's meshes can vary by a few cells from run to run, and this case is part of the
// behaviour baseline, which needs the same mesh every time.
Mesh.Algorithm3D = 1;
