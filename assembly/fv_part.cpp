#include "assembly/fv_part.hpp"

#include <algorithm>

#include "linalg/executor.hpp"
#include "mesh/kernel_shapes.hpp"

namespace gpufem {
namespace {

/// The cells through each node's corners (CSR: offsets per node, then the cells in ascending
/// order).
struct NodeCells {
    std::vector<long long> offsets;
    HostVector<index_type> cells;
};

/// Corners of cell c of mesh (its first nodes).
int cell_corners(const Mesh& mesh, const KernelShapes& shapes, index_type c)
{
    const std::uint8_t* types = mesh.is_mixed() ? mesh.cell_types.data() : nullptr;
    return shape_of_cell(shapes, types, mesh.cell_type, c).corners;
}

NodeCells node_cells(const Mesh& mesh)
{
    const KernelShapes shapes = kernel_shapes();
    const auto npc = static_cast<std::size_t>(mesh.nodes_per_cell);
    const long long cells = mesh.num_cells();
    NodeCells out;
    out.offsets.assign(static_cast<std::size_t>(mesh.num_nodes()) + 1, 0);
    long long* count = out.offsets.data() + 1;
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < cells; ++c)
        for (int k = 0, n = cell_corners(mesh, shapes, static_cast<index_type>(c)); k < n; ++k) {
#pragma omp atomic
            ++count[mesh.cells[static_cast<std::size_t>(c) * npc + k]];
        }
    for (std::size_t i = 1; i < out.offsets.size(); ++i) out.offsets[i] += out.offsets[i - 1];
    out.cells.resize(static_cast<std::size_t>(out.offsets.back()));
    std::vector<long long> next(out.offsets.begin(), out.offsets.end() - 1);
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < cells; ++c)
        for (int k = 0, n = cell_corners(mesh, shapes, static_cast<index_type>(c)); k < n; ++k) {
            long long slot = 0;
            long long& at = next[static_cast<std::size_t>(mesh.cells[static_cast<std::size_t>(c) * npc + k])];
#pragma omp atomic capture
            slot = at++;
            out.cells[static_cast<std::size_t>(slot)] = static_cast<index_type>(c);
        }
    // The threads filled each node's run in any order: ascending, as one thread would.
    const auto nodes = static_cast<long long>(out.offsets.size()) - 1;
#pragma omp parallel for schedule(dynamic, 4096)
    for (long long n = 0; n < nodes; ++n)
        std::sort(out.cells.begin() + out.offsets[static_cast<std::size_t>(n)],
                  out.cells.begin() + out.offsets[static_cast<std::size_t>(n) + 1]);
    return out;
}

/// Corners of a facet row (its first nodes; a triangle in a mixed group ends with -1).
int facet_corners(const BoundaryFacets& group, const index_type* facet)
{
    const int corners = element_node_count(group.type);
    return corners == 4 && facet[3] < 0 ? 3 : corners;
}

/// The (at most two) cells whose corners include every corner of the facet.
std::array<index_type, 2> cells_of_facet(const Mesh& mesh, const NodeCells& around, const KernelShapes& shapes,
                                         const index_type* facet, int corners)
{
    std::array<index_type, 2> found{-1, -1};
    int count = 0;
    const auto first = static_cast<std::size_t>(facet[0]);
    const auto npc = static_cast<std::size_t>(mesh.nodes_per_cell);
    for (long long k = around.offsets[first]; k < around.offsets[first + 1] && count < 2; ++k) {
        const index_type c = around.cells[static_cast<std::size_t>(k)];
        const index_type* nodes = &mesh.cells[static_cast<std::size_t>(c) * npc];
        const int n = cell_corners(mesh, shapes, c);
        bool all = true;
        for (int j = 0; j < corners && all; ++j) all = std::find(nodes, nodes + n, facet[j]) != nodes + n;
        if (all) found[static_cast<std::size_t>(count++)] = c;
    }
    return found;
}

/// The own cells of part, then its ghosts by owner (whole-mesh order within each); own: how
/// many are its own.
std::vector<index_type> share_cells(const FvWholeFaces& faces, const CellPartition& partition, int part, index_type& own)
{
    const auto n = static_cast<index_type>(partition.part.size());
    std::vector<int> ghost_of(static_cast<std::size_t>(n), -1);  // the ghost's owner, -1: not a ghost
    std::vector<index_type> cells;
    for (index_type c = 0; c < n; ++c) {
        if (partition.part[static_cast<std::size_t>(c)] != part) continue;
        cells.push_back(c);
        for (int f = 0; f < faces.faces_per_cell; ++f) {
            const index_type m = faces.neighbour[static_cast<std::size_t>(c) * faces.faces_per_cell + f];
            if (m >= 0 && partition.part[static_cast<std::size_t>(m)] != part)
                ghost_of[static_cast<std::size_t>(m)] = partition.part[static_cast<std::size_t>(m)];
        }
    }
    own = static_cast<index_type>(cells.size());
    for (int owner = 0; owner < partition.parts; ++owner)
        for (index_type c = 0; c < n; ++c)
            if (ghost_of[static_cast<std::size_t>(c)] == owner) cells.push_back(c);
    return cells;
}

/// The cell numbering of the share: own, then ghost blocks by owner.
PartNumbering share_numbering(const std::vector<index_type>& cells, index_type own, const CellPartition& partition,
                              int part)
{
    PartNumbering out;
    out.part = part;
    out.global = cells;
    out.layout.owned = own;
    for (std::size_t k = static_cast<std::size_t>(own); k < cells.size(); ++k) {
        const int owner = partition.part[static_cast<std::size_t>(cells[k])];
        if (out.layout.ghost_blocks.empty() || out.layout.ghost_blocks.back().owner != owner)
            out.layout.ghost_blocks.push_back({owner, 0});
        ++out.layout.ghost_blocks.back().count;
    }
    return out;
}

}  // namespace

FvWholeFaces fv_whole_faces(const Mesh& whole, const ExecPtr& exec)
{
    const std::vector<int> no_groups;  // adjacency only: the shares' groups are checked where they are used
    const CellFaces faces = cell_faces(whole, exec, &no_groups);
    FvWholeFaces out{faces.neighbour.to_host(), faces.faces_per_cell, {}};
    const NodeCells around = node_cells(whole);
    const KernelShapes shapes = kernel_shapes();
    for (const BoundaryFacets& group : whole.boundaries) {
        std::vector<std::array<index_type, 2>> cells(group.size(), {-1, -1});
        if (element_dimension(group.type) == whole.dim - 1) {
            const auto facets = static_cast<long long>(group.size());
#pragma omp parallel for schedule(dynamic, 1024)
            for (long long f = 0; f < facets; ++f) {
                const index_type* facet =
                    &group.connectivity[static_cast<std::size_t>(f) * static_cast<std::size_t>(group.nodes_per_facet)];
                cells[static_cast<std::size_t>(f)] = cells_of_facet(whole, around, shapes, facet, facet_corners(group, facet));
            }
        }
        out.facet_cells.push_back(std::move(cells));
    }
    return out;
}

FvPart fv_part(const Mesh& whole, const FvWholeFaces& faces, const CellPartition& partition, int part)
{
    FvPart out;
    PartMesh& share = out.part;
    share.global_cells = share_cells(faces, partition, part, share.own_cells);
    out.numbering = share_numbering(share.global_cells, share.own_cells, partition, part);
    std::vector<index_type> local_cell(static_cast<std::size_t>(whole.num_cells()), -1);
    for (std::size_t k = 0; k < share.global_cells.size(); ++k)
        local_cell[static_cast<std::size_t>(share.global_cells[k])] = static_cast<index_type>(k);
    std::vector<char> used(static_cast<std::size_t>(whole.num_nodes()), 0);
    const auto npc = static_cast<std::size_t>(whole.nodes_per_cell);
    for (index_type c : share.global_cells)
        for (std::size_t k = 0; k < npc; ++k) {
            const index_type node = whole.cells[static_cast<std::size_t>(c) * npc + k];
            if (node >= 0) used[static_cast<std::size_t>(node)] = 1;
        }
    std::vector<index_type> nodes, local_node(used.size(), -1);
    for (std::size_t n = 0; n < used.size(); ++n)
        if (used[n]) {
            local_node[n] = static_cast<index_type>(nodes.size());
            nodes.push_back(static_cast<index_type>(n));
        }
    share.mesh = cut_cells(whole, share.global_cells, nodes, local_node);
    for (std::size_t g = 0; g < whole.boundaries.size(); ++g) {
        const BoundaryFacets& group = whole.boundaries[g];
        BoundaryFacets kept = group;
        kept.connectivity.clear();
        const auto npf = static_cast<std::size_t>(group.nodes_per_facet);
        for (std::size_t f = 0; f < group.size(); ++f) {
            const auto& [a, b] = faces.facet_cells[g][f];
            const bool in_share = (a >= 0 && local_cell[static_cast<std::size_t>(a)] >= 0) ||
                                  (b >= 0 && local_cell[static_cast<std::size_t>(b)] >= 0);
            if (!in_share) continue;
            for (std::size_t j = 0; j < npf; ++j) {
                const index_type node = group.connectivity[f * npf + j];
                kept.connectivity.push_back(node < 0 ? -1 : local_node[static_cast<std::size_t>(node)]);
            }
        }
        share.mesh.boundaries.push_back(std::move(kept));
    }
    return out;
}

}  // namespace gpufem
