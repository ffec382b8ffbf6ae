#include "solver/run/refined_parts.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "assembly/part_mesh.hpp"
#include "assembly/part_numbering.hpp"
#include "linalg/halo.hpp"
#include "linalg/rank_messages.hpp"
#include "mesh/cell_fields.hpp"

namespace gpufem {
namespace {

/// The cells around each node of a mesh (the cells holding it), as offsets and a list.
struct NodeCells {
    std::vector<std::size_t> offsets;
    std::vector<index_type> cells;
};

NodeCells node_cells(const Mesh& mesh)
{
    NodeCells out;
    const auto npc = static_cast<std::size_t>(mesh.nodes_per_cell);
    out.offsets.assign(static_cast<std::size_t>(mesh.num_nodes()) + 1, 0);
    for (index_type node : mesh.cells)
        if (node >= 0) ++out.offsets[static_cast<std::size_t>(node) + 1];
    for (std::size_t n = 1; n < out.offsets.size(); ++n) out.offsets[n] += out.offsets[n - 1];
    out.cells.resize(out.offsets.back());
    std::vector<std::size_t> at(out.offsets.begin(), out.offsets.end() - 1);
    for (std::size_t c = 0; c < mesh.cells.size() / npc; ++c)
        for (std::size_t j = 0; j < npc; ++j) {
            const index_type node = mesh.cells[c * npc + j];
            if (node >= 0) out.cells[at[static_cast<std::size_t>(node)]++] = static_cast<index_type>(c);
        }
    return out;
}

/// in[c] = 1 for the cells of part p and every cell within two layers of them (sharing a
/// node with one of them, or with such a cell).
std::vector<std::uint8_t> layer_mask(const Mesh& mesh, const NodeCells& around, const CellPartition& partition, int p)
{
    const auto npc = static_cast<std::size_t>(mesh.nodes_per_cell);
    std::vector<std::uint8_t> in(static_cast<std::size_t>(mesh.num_cells()), 0), seen(static_cast<std::size_t>(mesh.num_nodes()), 0);
    std::vector<index_type> frontier;
    for (index_type c = 0; c < mesh.num_cells(); ++c)
        if (partition.part[static_cast<std::size_t>(c)] == p) in[static_cast<std::size_t>(c)] = 1, frontier.push_back(c);
    for (int layer = 0; layer < 2; ++layer) {
        std::vector<index_type> next;
        for (index_type c : frontier)
            for (std::size_t j = 0; j < npc; ++j) {
                const index_type node = mesh.cells[static_cast<std::size_t>(c) * npc + j];
                if (node < 0 || seen[static_cast<std::size_t>(node)]) continue;
                seen[static_cast<std::size_t>(node)] = 1;
                for (std::size_t k = around.offsets[node]; k < around.offsets[node + 1]; ++k)
                    if (!in[around.cells[k]]) in[around.cells[k]] = 1, next.push_back(around.cells[k]);
            }
        frontier = std::move(next);
    }
    return in;
}

/// Whether some cell with in[c] holds every node of the facet row (-1 entries aside).
bool facet_of_layer(const Mesh& mesh, const NodeCells& around, const std::vector<std::uint8_t>& in,
                    const index_type* facet, int count)
{
    const auto npc = static_cast<std::size_t>(mesh.nodes_per_cell);
    for (std::size_t k = around.offsets[facet[0]]; k < around.offsets[facet[0] + 1]; ++k) {
        const index_type c = around.cells[k];
        if (!in[c]) continue;
        const index_type* row = &mesh.cells[static_cast<std::size_t>(c) * npc];
        const bool holds = std::all_of(facet, facet + count, [&](index_type n) {
            return n < 0 || std::find(row, row + npc, n) != row + npc;
        });
        if (holds) return true;
    }
    return false;
}

/// The facets of the whole mesh's curved geometry that the layer's cells hold, with their
/// points, numbered by the layer's nodes (`local`). Only for a mesh refined parent by parent:
/// one with curved maps numbers its facets by the maps' nodes, not the mesh's, and is refined
/// whole on one rank instead.
std::shared_ptr<const CadBoundary> layer_cad_boundary(const Mesh& mesh, const NodeCells& around,
                                                      const std::vector<std::uint8_t>& in,
                                                      const std::vector<index_type>& local)
{
    if (!refines_parent_by_parent(mesh))
        throw std::logic_error("layer_cad_boundary: a mesh with curved maps is not refined by layers");
    const CadBoundary& whole = *mesh.cad_boundary;
    auto out = std::make_shared<CadBoundary>();
    out->facet_type = whole.facet_type;
    out->facet_degree = whole.facet_degree;
    out->refinements = whole.refinements;
    out->lattice_order = whole.lattice_order;
    const int per = lagrange_node_count(whole.facet_type, whole.facet_degree);
    const std::size_t facets = whole.facets.size() / static_cast<std::size_t>(per);
    const std::size_t points = facets == 0 ? 0 : whole.points.size() / facets;
    for (std::size_t f = 0; f < facets; ++f) {
        const index_type* facet = &whole.facets[f * static_cast<std::size_t>(per)];
        if (!facet_of_layer(mesh, around, in, facet, per)) continue;
        for (int j = 0; j < per; ++j) out->facets.push_back(local[static_cast<std::size_t>(facet[j])]);
        out->points.insert(out->points.end(), whole.points.begin() + static_cast<std::ptrdiff_t>(f * points),
                           whole.points.begin() + static_cast<std::ptrdiff_t>((f + 1) * points));
    }
    return out;
}

/// The layer's cells (in[c]) as a mesh: its nodes renumbered in the whole mesh's order, the
/// boundary facets its cells hold.
CoarseLayer layer_of(const Mesh& mesh, const NodeCells& around, const CellPartition& partition,
                     const std::vector<std::uint8_t>& in)
{
    CoarseLayer layer;
    layer.parts = partition.parts;
    Mesh& out = layer.mesh;
    out.dim = mesh.dim, out.cell_type = mesh.cell_type, out.degree = mesh.degree;
    out.nodes_per_cell = mesh.nodes_per_cell, out.subdomains = mesh.subdomains;
    out.ignored_boundaries = mesh.ignored_boundaries, out.source = mesh.source;
    const auto npc = static_cast<std::size_t>(mesh.nodes_per_cell);
    std::vector<index_type> local(static_cast<std::size_t>(mesh.num_nodes()), -1);
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        if (!in[static_cast<std::size_t>(c)]) continue;
        layer.global_cells.push_back(c);
        layer.cell_part.push_back(partition.part[static_cast<std::size_t>(c)]);
        if (!mesh.cell_group.empty()) out.cell_group.push_back(mesh.cell_group[static_cast<std::size_t>(c)]);
        for (std::size_t j = 0; j < npc; ++j) local[static_cast<std::size_t>(mesh.cells[c * npc + j])] = 0;
    }
    out.cell_fields = cell_fields_of(mesh.cell_fields, layer.global_cells);
    index_type next = 0;
    for (std::size_t n = 0; n < local.size(); ++n)
        if (local[n] == 0) {
            local[n] = next++;
            out.coordinates.insert(out.coordinates.end(), &mesh.node_coordinates()[3 * n], &mesh.node_coordinates()[3 * n + 3]);
        }
    for (index_type c : layer.global_cells)
        for (std::size_t j = 0; j < npc; ++j)
            out.cells.push_back(local[static_cast<std::size_t>(mesh.cells[static_cast<std::size_t>(c) * npc + j])]);
    for (const BoundaryFacets& group : mesh.boundaries) {
        BoundaryFacets kept = group;
        kept.connectivity.clear();
        for (std::size_t f = 0; f < group.size(); ++f) {
            const index_type* facet = &group.connectivity[f * group.nodes_per_facet];
            if (!facet_of_layer(mesh, around, in, facet, group.nodes_per_facet)) continue;
            for (int j = 0; j < group.nodes_per_facet; ++j) kept.connectivity.push_back(local[facet[j]]);
        }
        out.boundaries.push_back(std::move(kept));
    }
    if (mesh.cad_boundary) out.cad_boundary = layer_cad_boundary(mesh, around, in, local);
    return layer;
}

/// Each node's name (see the header): the smallest over the refined cells holding it of
/// (ancestor's global number, child, node's place in the cell).
std::vector<std::int64_t> node_keys(const Mesh& fine, const CoarseLayer& layer, index_type children)
{
    const auto npc = static_cast<std::size_t>(fine.nodes_per_cell);
    std::vector<std::int64_t> keys(static_cast<std::size_t>(fine.num_nodes()), std::numeric_limits<std::int64_t>::max());
    for (std::size_t c = 0; c < static_cast<std::size_t>(fine.num_cells()); ++c) {
        const std::int64_t ancestor = layer.global_cells[c / static_cast<std::size_t>(children)];
        const std::int64_t cell = ancestor * children + static_cast<std::int64_t>(c % static_cast<std::size_t>(children));
        for (std::size_t j = 0; j < npc; ++j) {
            std::int64_t& key = keys[static_cast<std::size_t>(fine.cells[c * npc + j])];
            key = std::min(key, cell * static_cast<std::int64_t>(npc) + static_cast<std::int64_t>(j));
        }
    }
    return keys;
}

/// The global numbers of the part's unknowns: the owned ones after every lower rank's owned
/// ones, the ghosts' from their owners through the halo.
std::vector<index_type> global_numbers(const PartNumbering& numbering, const HaloPlan& halo, const Communicator& host)
{
    const double owned = numbering.layout.owned;
    const std::vector<double> counts = gather_on_every_rank(host, std::span<const double>(&owned, 1));
    double first = 0;
    for (int r = 0; r < host.rank(); ++r) first += counts[static_cast<std::size_t>(r)];
    const ExecPtr cpu = Executor::create_cpu();
    std::vector<double> mine(static_cast<std::size_t>(numbering.layout.owned));
    for (std::size_t l = 0; l < mine.size(); ++l) mine[l] = first + static_cast<double>(l);
    const Array<double> owned_numbers = Array<double>::from_host(cpu, mine);
    Array<double> ghost_numbers(cpu, static_cast<std::size_t>(halo.ghosts()));
    HaloExchange<double>(halo, cpu, host).update(owned_numbers, ghost_numbers);
    std::vector<index_type> out(mine.begin(), mine.end());
    for (double g : ghost_numbers.to_host()) out.push_back(static_cast<index_type>(g));
    return out;
}

}  // namespace

bool refined_by_parts(const MeshSpec& spec)
{
    return mesh_needs_gmsh(spec) && spec.refine > 0 && !spec.gmsh_nodes;
}

bool refines_parent_by_parent(const Mesh& coarse)
{
    return !coarse.first_order_only();
}

std::vector<std::vector<std::byte>> coarse_layers(const Mesh& coarse, const CellPartition& partition)
{
    const NodeCells around = node_cells(coarse);
    std::vector<std::vector<std::byte>> messages;
    for (int p = 0; p < partition.parts; ++p)
        messages.push_back(pack_coarse_layer(layer_of(coarse, around, partition, layer_mask(coarse, around, partition, p))));
    return messages;
}

PartPayload refined_part(const CoarseLayer& layer, const MeshSpec& spec, const ExecPtr& exec,
                         const Communicator& host, double& refine_seconds)
{
    const auto start = std::chrono::steady_clock::now();
    const Mesh fine = finish_gmsh_mesh(layer.mesh, spec, exec);
    refine_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const index_type coarse_cells = layer.mesh.num_cells();
    const index_type children = coarse_cells > 0 ? fine.num_cells() / coarse_cells : 1;
    if (children * coarse_cells != fine.num_cells())
        throw std::logic_error("refined_part: the refined cells are not the coarse cells' children");
    CellPartition partition;
    partition.parts = layer.parts;
    partition.part.resize(static_cast<std::size_t>(fine.num_cells()));
    for (std::size_t c = 0; c < partition.part.size(); ++c)
        partition.part[c] = layer.cell_part[c / static_cast<std::size_t>(children)];
    const std::vector<int> owners = node_owners(fine, partition);
    PartPayload out;
    out.numbering = part_node_numbering(fine, partition, owners, host.rank());
    out.part = part_mesh(fine, partition, owners, out.numbering);
    const std::vector<std::int64_t> fine_keys = node_keys(fine, layer, children);
    std::vector<std::int64_t> keys;
    keys.reserve(out.numbering.global.size());
    for (index_type node : out.numbering.global) keys.push_back(fine_keys[static_cast<std::size_t>(node)]);
    out.halo = halo_plan_from_keys(host, out.numbering.layout, keys);
    out.numbering.global = global_numbers(out.numbering, out.halo, host);
    for (index_type& c : out.part.global_cells) {
        const std::int64_t global = static_cast<std::int64_t>(layer.global_cells[static_cast<std::size_t>(c / children)]) *
                                        children + c % children;
        c = global <= std::numeric_limits<index_type>::max() ? static_cast<index_type>(global) : -1;
    }
    return out;
}

}  // namespace gpufem
