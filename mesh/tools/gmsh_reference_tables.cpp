// Build step: writes the C++ source of gmsh_reference_table (mesh/gmsh_reference_table.hpp),
// the reference nodes Gmsh gives every MSH element type whose node order gpufem uses, so that
// gpufem reads them without loading Gmsh's library. Usage: gmsh_reference_tables OUTPUT.cpp
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include <gmsh.h>

namespace {

/// The MSH types of ShapeTraits::gmsh_basis_types (mesh/shapes/*_shape.cpp): lines, triangles,
/// quadrangles, tetrahedra, hexahedra, prisms and pyramids, by order.
constexpr int msh_types[] = {1, 8, 26, 27, 28, 62, 63, 64, 2,  9,  21, 23, 3,  10, 36, 37, 38, 47, 48,
                             49, 4, 11, 29, 30, 5, 12, 92, 93, 94, 95, 96, 97, 6, 7, 14, 118, 119};

/// One entry of the table: the type's coordinates as a C++ array.
std::string entry(int type)
{
    std::string name;
    int dim = 0, order = 0, nodes = 0, primary = 0;
    std::vector<double> coordinates;
    gmsh::model::mesh::getElementProperties(type, name, dim, order, nodes, coordinates, primary);
    std::string text = "constexpr double type_" + std::to_string(type) + "[] = {  // " + name + "\n   ";
    char number[40];
    for (const double x : coordinates) {
        std::snprintf(number, sizeof number, " %.17g,", x);
        text += number;
    }
    return text + "\n};\n";
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: gmsh_reference_tables OUTPUT.cpp\n");
        return 1;
    }
    try {
        gmsh::initialize(0, nullptr, false);
        gmsh::option::setNumber("General.Terminal", 0);
        std::string text = "// Written by gmsh_reference_tables when gpufem is built: Gmsh " GMSH_API_VERSION
                           "'s reference nodes.\n#include \"mesh/gmsh_reference_table.hpp\"\n\nnamespace gpufem {\n"
                           "namespace {\n\n";
        for (const int type : msh_types) text += entry(type);
        text += "\n}  // namespace\n\nstd::span<const double> gmsh_reference_table(int gmsh_type)\n{\n"
                "    switch (gmsh_type) {\n";
        for (const int type : msh_types)
            text += "    case " + std::to_string(type) + ": return type_" + std::to_string(type) + ";\n";
        text += "    default: return {};\n    }\n}\n\n}  // namespace gpufem\n";
        gmsh::finalize();
        std::ofstream out(argv[1]);
        out << text;
        return out ? 0 : 1;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "gmsh_reference_tables: %s\n", error.what());
    } catch (...) {
        std::fprintf(stderr, "gmsh_reference_tables: Gmsh failed\n");
    }
    return 1;
}
