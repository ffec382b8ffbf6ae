#include "assembly/fv_part.hpp"

#include <algorithm>
#include <atomic>

#include "linalg/cpu/chunked_loops.hpp"
#include "linalg/executor.hpp"
#include "mesh/kernel_shapes.hpp"

namespace gpufem {
namespace {

using kernels::cpu::chunked_for;

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

/// The i in [0, n) with keep(i), in order: the range scanned in chunks by the host's threads.
template <typename Keep>
std::vector<index_type> ordered_selection(long long n, Keep&& keep)
{
    constexpr long long chunk = 1 << 16;
    const long long chunks = (n + chunk - 1) / chunk;
    std::vector<std::vector<index_type>> found(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(dynamic, 1)
    for (long long k = 0; k < chunks; ++k)
        for (long long i = k * chunk; i < std::min(n, (k + 1) * chunk); ++i)
            if (keep(i)) found[static_cast<std::size_t>(k)].push_back(static_cast<index_type>(i));
    std::vector<index_type> out;
    for (const std::vector<index_type>& run : found) out.insert(out.end(), run.begin(), run.end());
    return out;
}

/// The own cells of part, then its ghosts by owner (whole-mesh order within each); own: how
/// many are its own.
std::vector<index_type> share_cells(const FvWholeFaces& faces, const CellPartition& partition, int part, index_type& own)
{
    const auto n = static_cast<long long>(partition.part.size());
    const auto part_of = [&](long long c) { return partition.part[static_cast<std::size_t>(c)]; };
    std::vector<index_type> cells = ordered_selection(n, [&](long long c) { return part_of(c) == part; });
    own = static_cast<index_type>(cells.size());
    HostVector<int> ghost_of(static_cast<std::size_t>(n));  // the ghost's owner, -1: not a ghost
    chunked_for(n, [&](long long c) { ghost_of[static_cast<std::size_t>(c)] = -1; });
    // Every writer of a ghost stores its owner.
    chunked_for(static_cast<long long>(own), [&](long long k) {
        const auto c = static_cast<std::size_t>(cells[static_cast<std::size_t>(k)]);
        for (std::size_t f = 0; f < static_cast<std::size_t>(faces.faces_per_cell); ++f) {
            const index_type m = faces.neighbour[c * static_cast<std::size_t>(faces.faces_per_cell) + f];
            if (m >= 0 && part_of(m) != part)
                std::atomic_ref<int>(ghost_of[static_cast<std::size_t>(m)]).store(part_of(m), std::memory_order_relaxed);
        }
    });
    const std::vector<index_type> ghosts =
        ordered_selection(n, [&](long long c) { return ghost_of[static_cast<std::size_t>(c)] >= 0; });
    for (int owner = 0; owner < partition.parts; ++owner)
        for (index_type c : ghosts)
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
    const std::vector<index_type>& cells = share.global_cells;
    HostVector<index_type> local_cell(static_cast<std::size_t>(whole.num_cells()));
    chunked_for(whole.num_cells(), [&](long long c) { local_cell[static_cast<std::size_t>(c)] = -1; });
    chunked_for(static_cast<long long>(cells.size()), [&](long long k) {
        local_cell[static_cast<std::size_t>(cells[static_cast<std::size_t>(k)])] = static_cast<index_type>(k);
    });
    HostVector<char> used(static_cast<std::size_t>(whole.num_nodes()));
    chunked_for(whole.num_nodes(), [&](long long i) { used[static_cast<std::size_t>(i)] = 0; });
    const auto npc = static_cast<std::size_t>(whole.nodes_per_cell);
    // Every writer of a node stores the same 1.
    chunked_for(static_cast<long long>(cells.size()), [&](long long k) {
        for (std::size_t j = 0; j < npc; ++j) {
            const index_type node = whole.cells[static_cast<std::size_t>(cells[static_cast<std::size_t>(k)]) * npc + j];
            if (node >= 0) std::atomic_ref<char>(used[static_cast<std::size_t>(node)]).store(1, std::memory_order_relaxed);
        }
    });
    const std::vector<index_type> nodes =
        ordered_selection(whole.num_nodes(), [&](long long i) { return used[static_cast<std::size_t>(i)] != 0; });
    std::vector<index_type> local_node(used.size(), -1);
    chunked_for(static_cast<long long>(nodes.size()), [&](long long k) {
        local_node[static_cast<std::size_t>(nodes[static_cast<std::size_t>(k)])] = static_cast<index_type>(k);
    });
    share.mesh = cut_cells(whole, share.global_cells, nodes, local_node);
    share.global_nodes = nodes;
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
