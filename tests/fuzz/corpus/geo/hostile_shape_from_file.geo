SetFactory("OpenCASCADE");
v() = ShapeFromFile("@OUTSIDE@/evil.geo");

