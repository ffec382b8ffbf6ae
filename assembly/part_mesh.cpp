#include "assembly/part_mesh.hpp"

#include <atomic>
#include <stdexcept>

#include "linalg/cpu/chunked_loops.hpp"
#include "mesh/cell_fields.hpp"

namespace gpufem {
namespace {

using kernels::cpu::chunked_for;

/// The part's own cells, then the other cells around its owned nodes (global numbers).
std::vector<index_type> part_cells(const Mesh& whole, const CellPartition& partition, const std::vector<int>& owners,
                                   int part, index_type& own)
{
    // 1: the part's own, 2: around a node it owns, 0: neither (decided cell by cell in parallel).
    std::vector<char> kind(static_cast<std::size_t>(whole.num_cells()));
#pragma omp parallel for schedule(static)
    for (index_type c = 0; c < whole.num_cells(); ++c)
        kind[static_cast<std::size_t>(c)] = partition.part[static_cast<std::size_t>(c)] == part ? 1
                                            : holds_owned_node(whole, c, owners, part)      ? 2
                                                                                            : 0;
    std::vector<index_type> cells;
    for (char wanted : {1, 2}) {
        for (index_type c = 0; c < whole.num_cells(); ++c)
            if (kind[static_cast<std::size_t>(c)] == wanted) cells.push_back(c);
        if (wanted == 1) own = static_cast<index_type>(cells.size());
    }
    return cells;
}

/// The local number of every global node the part holds (-1 elsewhere).
std::vector<index_type> local_numbers(const Mesh& whole, const PartNumbering& numbering)
{
    std::vector<index_type> local(static_cast<std::size_t>(whole.num_nodes()), -1);
    for (std::size_t l = 0; l < numbering.global.size(); ++l)
        local[static_cast<std::size_t>(numbering.global[l])] = static_cast<index_type>(l);
    return local;
}

/// Node indices of src (global) mapped through local; -1 stays -1 (past a mixed cell's nodes).
void map_nodes(const index_type* src, int count, const std::vector<index_type>& local, std::vector<index_type>& out,
               const char* what)
{
    for (int j = 0; j < count; ++j) {
        const index_type g = src[j];
        if (g < 0) {
            out.push_back(-1);
            continue;
        }
        const index_type l = local[static_cast<std::size_t>(g)];
        if (l < 0) throw std::logic_error(std::string("part_mesh: ") + what + " reaches a node the part does not hold");
        out.push_back(l);
    }
}

/// The cells (with their types and groups) of whole listed in cells, renumbered.
void copy_cells(const Mesh& whole, const std::vector<index_type>& cells, const std::vector<index_type>& local,
                Mesh& mesh)
{
    const auto npc = static_cast<std::size_t>(whole.nodes_per_cell);
    mesh.cells.resize(cells.size() * npc);
    std::atomic<bool> outside{false};  // a node the part does not hold: a logic error, reported after
    chunked_for(static_cast<long long>(cells.size()), [&](long long k) {
        const index_type* src = &whole.cells[static_cast<std::size_t>(cells[static_cast<std::size_t>(k)]) * npc];
        index_type* dst = &mesh.cells[static_cast<std::size_t>(k) * npc];
        for (std::size_t j = 0; j < npc; ++j) {
            dst[j] = src[j] < 0 ? -1 : local[static_cast<std::size_t>(src[j])];
            if (src[j] >= 0 && dst[j] < 0) outside.store(true, std::memory_order_relaxed);
        }
    });
    if (outside) throw std::logic_error("part_mesh: a cell reaches a node the part does not hold");
    if (whole.is_mixed())
        for (index_type c : cells) mesh.cell_types.push_back(whole.cell_types[static_cast<std::size_t>(c)]);
    if (!whole.cell_group.empty()) {
        mesh.cell_group.resize(cells.size());
        chunked_for(static_cast<long long>(cells.size()), [&](long long k) {
            mesh.cell_group[static_cast<std::size_t>(k)] = whole.cell_group[static_cast<std::size_t>(cells[static_cast<std::size_t>(k)])];
        });
    }
    mesh.cell_fields = cell_fields_of(whole.cell_fields, cells);
}

/// Whether every node of a facet row is held by the part (-1 entries aside).
bool facet_in_part(const index_type* facet, int count, const std::vector<index_type>& local)
{
    for (int j = 0; j < count; ++j)
        if (facet[j] >= 0 && local[static_cast<std::size_t>(facet[j])] < 0) return false;
    return true;
}

/// A boundary group's facets that lie in the part, renumbered.
BoundaryFacets part_facets(const BoundaryFacets& group, const std::vector<index_type>& local)
{
    BoundaryFacets out = group;
    out.connectivity.clear();
    std::vector<index_type> mapped;
    const int npf = group.nodes_per_facet;
    for (std::size_t f = 0; f < group.size(); ++f) {
        const index_type* facet = &group.connectivity[f * npf];
        if (facet_in_part(facet, npf, local)) map_nodes(facet, npf, local, out.connectivity, "a facet");
    }
    return out;
}

}  // namespace

Mesh cut_cells(const Mesh& whole, const std::vector<index_type>& cells, const std::vector<index_type>& nodes,
               const std::vector<index_type>& local)
{
    Mesh mesh;
    mesh.dim = whole.dim;
    mesh.cell_type = whole.cell_type;
    mesh.degree = whole.degree;
    mesh.nodes_per_cell = whole.nodes_per_cell;
    mesh.subdomains = whole.subdomains;
    mesh.ignored_boundaries = whole.ignored_boundaries;
    mesh.source = whole.source;
    mesh.coordinates.resize(nodes.size() * 3);
    chunked_for(static_cast<long long>(nodes.size()), [&](long long l) {
        for (std::size_t k = 0; k < 3; ++k)
            mesh.coordinates[3 * static_cast<std::size_t>(l) + k] =
                whole.coordinates[3 * static_cast<std::size_t>(nodes[static_cast<std::size_t>(l)]) + k];
    });
    copy_cells(whole, cells, local, mesh);
    return mesh;
}

PartMesh part_mesh(const Mesh& whole, const CellPartition& partition, const std::vector<int>& owners,
                   const PartNumbering& numbering)
{
    PartMesh part;
    part.global_cells = part_cells(whole, partition, owners, numbering.part, part.own_cells);
    const std::vector<index_type> local = local_numbers(whole, numbering);
    part.mesh = cut_cells(whole, part.global_cells, numbering.global, local);
    for (const BoundaryFacets& group : whole.boundaries) part.mesh.boundaries.push_back(part_facets(group, local));
    return part;
}

OwnPiece own_piece(const PartMesh& part)
{
    const Mesh& mesh = part.mesh;
    const int npc = mesh.nodes_per_cell;
    const long long entries = static_cast<long long>(part.own_cells) * npc;
    std::vector<index_type> piece_of(static_cast<std::size_t>(mesh.num_nodes()), -1);
    // Every writer of a node stores the same 0 (-1 entries: past a mixed cell's nodes).
    chunked_for(entries, [&](long long k) {
        const index_type node = mesh.cells[static_cast<std::size_t>(k)];
        if (node >= 0) std::atomic_ref<index_type>(piece_of[static_cast<std::size_t>(node)]).store(0, std::memory_order_relaxed);
    });
    OwnPiece piece;
    for (std::size_t n = 0; n < piece_of.size(); ++n)
        if (piece_of[n] == 0) {
            piece_of[n] = static_cast<index_type>(piece.nodes.size());
            piece.nodes.push_back(static_cast<index_type>(n));
        }
    Mesh& out = piece.mesh;
    out.dim = mesh.dim;
    out.cell_type = mesh.cell_type;
    out.degree = mesh.degree;
    out.nodes_per_cell = npc;
    out.source = mesh.source;
    out.subdomains = mesh.subdomains;
    out.coordinates.resize(piece.nodes.size() * 3);
    chunked_for(static_cast<long long>(piece.nodes.size()), [&](long long k) {
        for (int d = 0; d < 3; ++d)
            out.coordinates[3 * k + d] = mesh.node_coordinates()[3 * static_cast<std::size_t>(piece.nodes[k]) + d];
    });
    out.cells.resize(static_cast<std::size_t>(entries));
    chunked_for(entries, [&](long long k) {
        const index_type node = mesh.cells[static_cast<std::size_t>(k)];
        out.cells[static_cast<std::size_t>(k)] = node < 0 ? -1 : piece_of[static_cast<std::size_t>(node)];
    });
    if (mesh.is_mixed()) out.cell_types.assign(mesh.cell_types.begin(), mesh.cell_types.begin() + part.own_cells);
    if (!mesh.cell_group.empty()) out.cell_group.assign(mesh.cell_group.begin(), mesh.cell_group.begin() + part.own_cells);
    return piece;
}

}  // namespace gpufem
