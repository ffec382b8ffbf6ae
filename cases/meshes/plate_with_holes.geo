// A CAD part: a 4 x 2 x 0.5 plate (OpenCASCADE) with twelve round holes through it, in two
// materials (x < 2 and x > 2). Named groups: left, right (the volumes); hot (x = 0), cold
// (x = 4), holes (the twelve cylinders), walls (every other face).
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 4, 2, 0.5};
k = 2;
For i In {0:3}
  For j In {0:2}
    Cylinder(k) = {0.5 + i, 0.4 + 0.6 * j, 0, 0, 0, 0.5, 0.15};
    k += 1;
  EndFor
EndFor
BooleanDifference(100) = {Volume{1}; Delete;}{Volume{2:13}; Delete;};
Box(101) = {2, -1, -1, 3, 4, 3};
BooleanIntersection(102) = {Volume{100};}{Volume{101};};
BooleanDifference(103) = {Volume{100}; Delete;}{Volume{101}; Delete;};
BooleanFragments{Volume{102, 103}; Delete;}{}
eps = 1e-6;
left() = Volume In BoundingBox{-eps, -eps, -eps, 2 + eps, 2 + eps, 0.5 + eps};
right() = Volume In BoundingBox{2 - eps, -eps, -eps, 4 + eps, 2 + eps, 0.5 + eps};
hot() = Surface In BoundingBox{-eps, -eps, -eps, eps, 2 + eps, 0.5 + eps};
cold() = Surface In BoundingBox{4 - eps, -eps, -eps, 4 + eps, 2 + eps, 0.5 + eps};
outer() = Abs(CombinedBoundary{Volume{left(), right()};});
holes() = {};
walls() = {};
For s In {0:#outer()-1}
  t = outer(s);
  bb() = BoundingBox Surface{t};
  If (bb(3) - bb(0) < 0.31 + eps && bb(4) - bb(1) < 0.31 + eps && bb(5) - bb(2) > 0.5 - eps)
    holes() += t;
  ElseIf (t != hot(0) && t != cold(0))
    walls() += t;
  EndIf
EndFor
Physical Volume("left") = left();
Physical Volume("right") = right();
Physical Surface("hot") = hot();
Physical Surface("cold") = cold();
Physical Surface("holes") = holes();
Physical Surface("walls") = walls();
