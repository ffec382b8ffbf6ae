lc = 0.2;
Point(1) = {0, 0, 0, lc}; Point(2) = {2, 0, 0, lc}; Point(3) = {2, 1, 0, lc}; Point(4) = {0, 1, 0, lc};
Point(5) = {0.5, 0.5, 0, lc}; Point(6) = {0.7, 0.5, 0, lc / 2}; Point(7) = {0.5, 0.7, 0, lc / 2};
Point(8) = {0.3, 0.5, 0, lc / 2}; Point(9) = {0.5, 0.3, 0, lc / 2};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Circle(5) = {6, 5, 7}; Circle(6) = {7, 5, 8}; Circle(7) = {8, 5, 9}; Circle(8) = {9, 5, 6};
Curve Loop(1) = {1, 2, 3, 4}; Curve Loop(2) = {5, 6, 7, 8}; Plane Surface(1) = {1, 2};
Physical Curve("inlet") = {4}; Physical Curve("outlet") = {2}; Physical Curve("walls") = {1, 3};
Physical Curve("hole") = {5, 6, 7, 8}; Physical Surface("domain") = {1};
