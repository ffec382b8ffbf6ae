#include "mesh/cell_description.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpufem {

std::string node_position_text(const Mesh& mesh, long long node)
{
    const double* x = &mesh.node_coordinates()[3 * static_cast<std::size_t>(node)];
    return fmt::format("({:.6g}, {:.6g}, {:.6g})", x[0], x[1], x[2]);
}

std::string cell_text(const Mesh& mesh, long long cell)
{
    std::string nodes;
    const int shown = std::min(mesh.nodes_per_cell, 4);
    const index_type* row = &mesh.cells[static_cast<std::size_t>(cell) * mesh.nodes_per_cell];
    int listed = 0;
    for (int i = 0; i < shown && row[i] >= 0; ++i, ++listed)
        nodes += (i ? ", " : "") + node_position_text(mesh, row[i]);
    if (listed < mesh.nodes_per_cell && row[listed] >= 0) nodes += ", ...";
    return fmt::format("cell {} (counted from 0; nodes at {})", cell, nodes);
}

}  // namespace gpufem
