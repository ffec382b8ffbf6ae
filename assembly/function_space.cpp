#include "assembly/function_space.hpp"

#include <fmt/format.h>

#include "mesh/mesh.hpp"

namespace gpufem {

const char* unknown_location_name(UnknownLocation location)
{
    switch (location) {
    case UnknownLocation::nodes: return "nodes";
    case UnknownLocation::cells: return "cells";
    case UnknownLocation::rows: return "rows";
    }
    return "?";
}

index_type DofLayout::ghosts() const
{
    index_type total = 0;
    for (const GhostBlock& block : ghost_blocks) total += block.count;
    return total;
}

index_type DofLayout::ghost_begin(std::size_t block) const
{
    index_type begin = owned;
    for (std::size_t b = 0; b < block && b < ghost_blocks.size(); ++b) begin += ghost_blocks[b].count;
    return begin;
}

DofLayout owned_layout(index_type n)
{
    DofLayout layout;
    layout.owned = n;
    return layout;
}

std::string FunctionSpace::describe() const
{
    const std::string ghosts =
        layout.has_ghosts() ? fmt::format(" ({} owned, {} ghosts)", layout.owned, layout.ghosts()) : "";
    switch (location) {
    case UnknownLocation::nodes:
        return fmt::format("degree-{} Lagrange space on {} nodes{}", degree, layout.size(), ghosts);
    case UnknownLocation::cells: return fmt::format("cell space on {} cells{}", layout.size(), ghosts);
    case UnknownLocation::rows: return fmt::format("{} rows{}", layout.size(), ghosts);
    }
    return "?";
}

FunctionSpace isoparametric_space(const Mesh& mesh)
{
    return {UnknownLocation::nodes, &mesh, mesh.degree, owned_layout(mesh.num_nodes())};
}

FunctionSpace cell_space(const Mesh& mesh)
{
    return {UnknownLocation::cells, &mesh, 0, owned_layout(mesh.num_cells())};
}

FunctionSpace row_space(index_type rows)
{
    return {UnknownLocation::rows, nullptr, 0, owned_layout(rows)};
}

}  // namespace gpufem
