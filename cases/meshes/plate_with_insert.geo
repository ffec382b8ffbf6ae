// A 2 x 1 aluminium plate with a round copper insert of radius 0.25 centred at (1, 0.5), for
// the tutorial's "Your own mesh" (gpufem mesh-info, gpufem new-case). Regions: "aluminium" and
// "copper"; boundary groups: "heated" (x = 0), "cooled" (x = 2), "sides" (y = 0 and y = 1).
SetFactory("OpenCASCADE");
Rectangle(1) = {0, 0, 0, 2, 1};
Disk(2) = {1, 0.5, 0, 0.25};
BooleanFragments{ Surface{1}; Delete; }{ Surface{2}; Delete; }

// Pick the surfaces and curves by where they are (a box around each).
e = 1e-6;
insert() = Surface In BoundingBox{0.75 - e, 0.25 - e, -e, 1.25 + e, 0.75 + e, e};
plate() = Surface{:};
plate() -= insert();
Physical Surface("aluminium") = plate();
Physical Surface("copper") = insert();
Physical Curve("heated") = Curve In BoundingBox{-e, -e, -e, e, 1 + e, e};
Physical Curve("cooled") = Curve In BoundingBox{2 - e, -e, -e, 2 + e, 1 + e, e};
sides() = Curve In BoundingBox{-e, -e, -e, 2 + e, e, e};
sides() += Curve In BoundingBox{-e, 1 - e, -e, 2 + e, 1 + e, e};
Physical Curve("sides") = sides();
Mesh.MeshSizeMax = 0.05;
