#pragma once
// Cases with coefficients per region for the region tests on both backends: the unit square
// or cube cut at x = 0.5 into the regions "soft" (x < 0.5) and "hard" (x > 0.5), meshed
// conforming to the cut, and manufactured solutions for a kappa that jumps there.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mesh/mesh.hpp"

namespace gpufem::test {

/// Writes halves.geo into dir: the unit square (dim 2: triangles, or quadrilaterals when
/// quads) or cube (dim 3: tetrahedra) of cell size h, regions "soft" and "hard", boundary
/// group "boundary". Returns its file name.
inline std::string write_halves_geo(const std::filesystem::path& dir, int dim, double h, bool quads = false)
{
    const std::string name = fmt::format("halves{}{}.geo", dim, quads ? "q" : "");
    std::ofstream geo(dir / name);
    geo << "SetFactory(\"OpenCASCADE\");\n";
    if (dim == 2)
        geo << "Rectangle(1) = {0, 0, 0, 0.5, 1};\nRectangle(2) = {0.5, 0, 0, 0.5, 1};\n"
               "BooleanFragments{ Surface{1}; Delete; }{ Surface{2}; Delete; }\n"
               "Physical Surface(\"soft\") = {1};\nPhysical Surface(\"hard\") = {2};\n"
               "Physical Curve(\"boundary\") = CombinedBoundary{ Surface{1, 2}; };\n"
            << (quads ? "Mesh.RecombineAll = 1;\nMesh.Algorithm = 6;\n" : "Mesh.Algorithm = 6;\n");
    else
        geo << "Box(1) = {0, 0, 0, 0.5, 1, 1};\nBox(2) = {0.5, 0, 0, 0.5, 1, 1};\n"
               "BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }\n"
               "Physical Volume(\"soft\") = {1};\nPhysical Volume(\"hard\") = {2};\n"
               "Physical Surface(\"boundary\") = CombinedBoundary{ Volume{1, 2}; };\nMesh.Algorithm3D = 1;\n";
    geo << "Mesh.MeshSizeFromPoints = 0;\nMesh.MeshSizeMax = " << h << ";\nMesh.MeshSizeMin = " << h << ";\n";
    return name;
}

/// kappa 1 on "soft" and 10 on "hard", u = (sin(x - 1/2) / kappa + 1) e^y (3D: times cos z):
/// u and kappa du/dx are continuous across x = 1/2; Dirichlet data on the whole boundary.
inline std::string piecewise_problem(int dim)
{
    const auto u = [&](const char* k) {
        return fmt::format("(sin(x - 0.5)/{} + 1)*exp(y){}", k, dim == 3 ? "*cos(z)" : "");
    };
    const std::string exact = "x < 0.5 ? " + u("1") + " : " + u("10");
    const std::string f = dim == 2 ? "{soft: \"-exp(y)\", hard: \"-10*exp(y)\"}" : "\"sin(x - 0.5)*exp(y)*cos(z)\"";
    return fmt::format("problem:\n  kappa: {{soft: 1, hard: 10}}\n  f: {}\n  exact: \"{}\"\n  dirichlet: {{boundary: \"{}\"}}\n",
                       f, exact, exact);
}

/// A mesh of n cells of one node each whose cells hold tags drawn from `tags`, in runs of
/// random length (the cells of a region mostly follow each other in a mesh), with `strays`
/// single cells of tag 999 at random places: the input for present_region_tags.
inline Mesh mesh_with_random_regions(std::size_t n, const std::vector<int>& tags, int strays, unsigned seed)
{
    std::mt19937 rng(seed);
    Mesh mesh;
    mesh.dim = 3;
    mesh.nodes_per_cell = 1;
    mesh.cells.resize(n);
    mesh.cell_group.resize(n);
    std::size_t c = 0;
    while (c < n) {
        const int tag = tags[rng() % tags.size()];
        const std::size_t run = std::min<std::size_t>(n - c, 1 + rng() % 5000);
        std::fill_n(mesh.cell_group.begin() + static_cast<long>(c), run, tag);
        c += run;
    }
    for (int k = 0; k < strays; ++k) mesh.cell_group[rng() % n] = 999;
    for (std::size_t k = 0; k < n; ++k) mesh.cells[k] = 0;
    return mesh;
}

/// The distinct values of `groups`, increasing (the oracle of the tags the cells hold).
template <typename Vector>
std::vector<int> distinct_tags(const Vector& groups)
{
    std::vector<int> tags(groups.begin(), groups.end());
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    return tags;
}

}  // namespace gpufem::test
