#pragma once
// Gmsh geometries of meshes with prisms, pyramids and several cell types, at a chosen
// resolution n (cells across the unit length), for the mixed-mesh tests on both backends.
#include <string>

#include <fmt/format.h>

namespace gpufem::test {

/// Boundary groups of the unit square's sides, as the built-in unit_square's.
inline std::string square_groups()
{
    return "Physical Curve(\"left\") = {6};\nPhysical Curve(\"right\") = {3};\n"
           "Physical Curve(\"bottom\") = {1, 2};\nPhysical Curve(\"top\") = {4, 5};\n"
           "Physical Curve(\"boundary\") = {1, 2, 3, 4, 5, 6};\n";
}

/// The unit square in triangles (x < 0.5, size 1/n) and structured quadrilaterals (x > 0.5,
/// n/2 x n).
inline std::string square_triangles_quadrilaterals(int n)
{
    return fmt::format(R"(lc = {};
Point(1) = {{0, 0, 0, lc}}; Point(2) = {{0.5, 0, 0, lc}}; Point(3) = {{1, 0, 0, lc}};
Point(4) = {{1, 1, 0, lc}}; Point(5) = {{0.5, 1, 0, lc}}; Point(6) = {{0, 1, 0, lc}};
Line(1) = {{1, 2}}; Line(2) = {{2, 3}}; Line(3) = {{3, 4}}; Line(4) = {{4, 5}}; Line(5) = {{5, 6}};
Line(6) = {{6, 1}}; Line(7) = {{2, 5}};
Curve Loop(1) = {{1, 7, 5, 6}}; Plane Surface(1) = {{1}};
Curve Loop(2) = {{2, 3, 4, -7}}; Plane Surface(2) = {{2}};
Transfinite Curve{{2, 4}} = {};
Transfinite Curve{{3, 7}} = {};
Transfinite Surface{{2}};
Recombine Surface{{2}};
Physical Surface("domain") = {{1, 2}};
)", 1.0 / n, n / 2 + 1, n + 1) + square_groups();
}

/// Boundary groups of a unit cube made of the volumes `volumes` whose sides are the
/// surfaces listed (Gmsh expressions), as the built-in unit_cube's.
inline std::string cube_groups(const std::string& volumes, const std::string& left, const std::string& right,
                               const std::string& front, const std::string& back, const std::string& bottom,
                               const std::string& top)
{
    return fmt::format(R"(Physical Volume("domain") = {{{0}}};
Physical Surface("left") = {{{1}}}; Physical Surface("right") = {{{2}}};
Physical Surface("front") = {{{3}}}; Physical Surface("back") = {{{4}}};
Physical Surface("bottom") = {{{5}}}; Physical Surface("top") = {{{6}}};
Physical Surface("boundary") = {{{1}, {2}, {3}, {4}, {5}, {6}}};
)", volumes, left, right, front, back, bottom, top);
}

/// The unit cube in prisms only: the unit square in triangles (size 1/n) extruded in n
/// layers.
inline std::string cube_prisms(int n)
{
    return fmt::format(R"(lc = {};
Point(1) = {{0, 0, 0, lc}}; Point(2) = {{1, 0, 0, lc}}; Point(3) = {{1, 1, 0, lc}}; Point(4) = {{0, 1, 0, lc}};
Line(1) = {{1, 2}}; Line(2) = {{2, 3}}; Line(3) = {{3, 4}}; Line(4) = {{4, 1}};
Curve Loop(1) = {{1, 2, 3, 4}}; Plane Surface(1) = {{1}};
e[] = Extrude {{0, 0, 1}} {{ Surface{{1}}; Layers{{{}}}; Recombine; }};
)", 1.0 / n, n) + cube_groups("e[1]", "e[5]", "e[3]", "e[2]", "e[4]", "1", "e[0]");
}

/// The unit cube in four cell types: prisms (z < 0.3), tetrahedra with pyramids where they
/// meet the hexahedra (0.3 < z < 0.7), hexahedra (z > 0.7); about n cells across.
inline std::string cube_four_types(int n)
{
    const int layers = n * 3 / 10 > 0 ? n * 3 / 10 : 1;
    return fmt::format(R"(lc = {};
Point(1) = {{0, 0, 0.3, lc}}; Point(2) = {{1, 0, 0.3, lc}}; Point(3) = {{1, 1, 0.3, lc}}; Point(4) = {{0, 1, 0.3, lc}};
Point(5) = {{0, 0, 0.7, lc}}; Point(6) = {{1, 0, 0.7, lc}}; Point(7) = {{1, 1, 0.7, lc}}; Point(8) = {{0, 1, 0.7, lc}};
Line(1) = {{1, 2}}; Line(2) = {{2, 3}}; Line(3) = {{3, 4}}; Line(4) = {{4, 1}};
Line(5) = {{5, 6}}; Line(6) = {{6, 7}}; Line(7) = {{7, 8}}; Line(8) = {{8, 5}};
Line(9) = {{1, 5}}; Line(10) = {{2, 6}}; Line(11) = {{3, 7}}; Line(12) = {{4, 8}};
Curve Loop(1) = {{1, 2, 3, 4}}; Plane Surface(1) = {{1}};
Curve Loop(2) = {{5, 6, 7, 8}}; Plane Surface(2) = {{2}};
Curve Loop(3) = {{1, 10, -5, -9}}; Plane Surface(3) = {{3}};
Curve Loop(4) = {{2, 11, -6, -10}}; Plane Surface(4) = {{4}};
Curve Loop(5) = {{3, 12, -7, -11}}; Plane Surface(5) = {{5}};
Curve Loop(6) = {{4, 9, -8, -12}}; Plane Surface(6) = {{6}};
Surface Loop(1) = {{1, 2, 3, 4, 5, 6}};
Volume(1) = {{1}};
Transfinite Curve{{5, 6, 7, 8}} = {};
Transfinite Surface{{2}};
Recombine Surface{{2}};
low[] = Extrude {{0, 0, -0.3}} {{ Surface{{1}}; Layers{{{}}}; Recombine; }};
high[] = Extrude {{0, 0, 0.3}} {{ Surface{{2}}; Layers{{{}}}; Recombine; }};
Mesh.Algorithm3D = 1;
)", 1.0 / n, n + 1, layers, layers) +
           cube_groups("1, low[1], high[1]", "6, low[5], high[5]", "4, low[3], high[3]", "3, low[2], high[2]",
                       "5, low[4], high[4]", "low[0]", "high[0]");
}

/// The cylinder of radius 1 around the z axis, 0 < z < 1: a disk (size lc, in triangles, or
/// mostly quadrilaterals when recombined) extruded in two layers into prisms (or hexahedra and
/// prisms). Groups: "cylinder", "side" (curved), "ends" (flat).
inline std::string cylinder_extruded(double lc, bool recombined)
{
    return fmt::format(R"(lc = {};
Point(1) = {{0, 0, 0, lc}}; Point(2) = {{1, 0, 0, lc}}; Point(3) = {{0, 1, 0, lc}};
Point(4) = {{-1, 0, 0, lc}}; Point(5) = {{0, -1, 0, lc}};
Circle(1) = {{2, 1, 3}}; Circle(2) = {{3, 1, 4}}; Circle(3) = {{4, 1, 5}}; Circle(4) = {{5, 1, 2}};
Curve Loop(1) = {{1, 2, 3, 4}}; Plane Surface(1) = {{1}};
{}e[] = Extrude {{0, 0, 1}} {{ Surface{{1}}; Layers{{2}}; Recombine; }};
Physical Volume("cylinder") = {{e[1]}};
Physical Surface("side") = {{e[2], e[3], e[4], e[5]}};
Physical Surface("ends") = {{1, e[0]}};
)", lc, recombined ? "Recombine Surface{1};\n" : "");
}

/// The same cylinder in four cell types: hexahedra and prisms (a recombined disk extruded in
/// layers, z < 0.5), tetrahedra above, and pyramids where the tetrahedra meet the hexahedra.
inline std::string cylinder_four_types(double lc)
{
    return fmt::format(R"(lc = {};
Point(1) = {{0, 0, 0, lc}}; Point(2) = {{1, 0, 0, lc}}; Point(3) = {{0, 1, 0, lc}};
Point(4) = {{-1, 0, 0, lc}}; Point(5) = {{0, -1, 0, lc}};
Circle(1) = {{2, 1, 3}}; Circle(2) = {{3, 1, 4}}; Circle(3) = {{4, 1, 5}}; Circle(4) = {{5, 1, 2}};
Curve Loop(1) = {{1, 2, 3, 4}}; Plane Surface(1) = {{1}};
Recombine Surface{{1}};
low[] = Extrude {{0, 0, 0.5}} {{ Surface{{1}}; Layers{{2}}; Recombine; }};
high[] = Extrude {{0, 0, 0.5}} {{ Surface{{low[0]}}; }};
Mesh.Algorithm3D = 1;
Physical Volume("cylinder") = {{low[1], high[1]}};
Physical Surface("side") = {{low[2], low[3], low[4], low[5], high[2], high[3], high[4], high[5]}};
Physical Surface("ends") = {{1, high[0]}};
)", lc);
}

}  // namespace gpufem::test
