// The cross-section of a heat sink: a base plate 4 x 0.5 with four fins 0.3 x 2 on top.
// Named groups: heated (the base's bottom, y = 0), cooled (the four fin tips, y = 2.5),
// insulated (every other edge), base (the plate), fins (the four fins).
// Make the mesh file beside it with:  gmsh -2 heat_sink.geo -o heat_sink.msh
SetFactory("OpenCASCADE");
lc = 0.08;

Rectangle(1) = {0, 0, 0, 4, 0.5};
For i In {0:3}
  Rectangle(2 + i) = {0.35 + i, 0.5, 0, 0.3, 2};
EndFor
BooleanFragments{ Surface{1}; Delete; }{ Surface{2:5}; Delete; }
MeshSize{ PointsOf{ Surface{:}; } } = lc;

eps = 1e-6;
base() = Surface In BoundingBox{-eps, -eps, -eps, 4 + eps, 0.5 + eps, eps};
fins() = Surface In BoundingBox{-eps, 0.5 - eps, -eps, 4 + eps, 2.5 + eps, eps};
heated() = Curve In BoundingBox{-eps, -eps, -eps, 4 + eps, eps, eps};
cooled() = Curve In BoundingBox{-eps, 2.5 - eps, -eps, 4 + eps, 2.5 + eps, eps};
outline() = Abs(CombinedBoundary{ Surface{base(), fins()}; });
insulated() = outline();
insulated() -= heated();
insulated() -= cooled();

Physical Curve("heated") = heated();
Physical Curve("cooled") = cooled();
Physical Curve("insulated") = insulated();
Physical Surface("base") = base();
Physical Surface("fins") = fins();
