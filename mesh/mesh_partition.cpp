#include "mesh/mesh_partition.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <stdexcept>
#include <string>

#include <metis.h>

#include "mesh/cell_faces.hpp"

namespace gpufem {
namespace {

/// The cells' face-adjacency graph in METIS's CSR form (each face between two cells appears
/// in both cells' lists).
struct DualGraph {
    std::vector<idx_t> offsets;
    std::vector<idx_t> neighbours;
};

/// The mesh's cells by their corners only (a first-order mesh on the same nodes): the face
/// adjacency is a matter of corners, and is found for first-order cells of every shape.
Mesh corner_mesh(const Mesh& mesh)
{
    Mesh corners;
    corners.dim = mesh.dim;
    corners.cell_type = mesh.cell_type;
    corners.cell_types = mesh.cell_types;
    corners.coordinates = mesh.coordinates;
    int npc = 0;
    for (int t = 0; t < element_type_count; ++t)
        if (mesh.has_cells_of(static_cast<ElementType>(t)))
            npc = std::max(npc, element_node_count(static_cast<ElementType>(t)));
    corners.nodes_per_cell = npc;
    corners.cells.assign(static_cast<std::size_t>(mesh.num_cells()) * npc, -1);
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        const int count = element_node_count(mesh.type_of_cell(c));
        for (int j = 0; j < count; ++j)
            corners.cells[static_cast<std::size_t>(c) * npc + j] =
                mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell + j];
    }
    return corners;
}

DualGraph dual_graph(const Mesh& mesh)
{
    if (mesh.degree > 1) return dual_graph(corner_mesh(mesh));
    const std::vector<int> no_groups;  // boundary groups play no part in the adjacency
    const CellFaces faces = cell_faces(mesh, Executor::create_cpu(), &no_groups);
    const std::vector<index_type> across = faces.neighbour.to_host();
    const long long cells = mesh.num_cells();
    const int per_cell = faces.faces_per_cell;
    DualGraph graph;
    graph.offsets.assign(static_cast<std::size_t>(cells) + 1, 0);
    graph.neighbours.reserve(static_cast<std::size_t>(2 * faces.interior_faces));
    for (long long c = 0; c < cells; ++c) {
        for (int f = 0; f < per_cell; ++f) {
            const index_type other = across[static_cast<std::size_t>(c * per_cell + f)];
            if (other >= 0) graph.neighbours.push_back(static_cast<idx_t>(other));
        }
        graph.offsets[static_cast<std::size_t>(c) + 1] = static_cast<idx_t>(graph.neighbours.size());
    }
    return graph;
}

/// The faces whose two cells lie in different parts.
long long count_edge_cut(const DualGraph& graph, const std::vector<int>& part)
{
    long long cut = 0;
    for (std::size_t c = 0; c + 1 < graph.offsets.size(); ++c)
        for (idx_t k = graph.offsets[c]; k < graph.offsets[c + 1]; ++k)
            cut += part[c] != part[static_cast<std::size_t>(graph.neighbours[k])];
    return cut / 2;
}

/// METIS's k-way partition of graph into parts.
std::vector<int> metis_parts(DualGraph& graph, int parts)
{
    idx_t vertices = static_cast<idx_t>(graph.offsets.size() - 1), constraints = 1, nparts = parts, cut = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;
    options[METIS_OPTION_NUMBERING] = 0;
    std::vector<idx_t> part(static_cast<std::size_t>(vertices), 0);
    const int status = METIS_PartGraphKway(&vertices, &constraints, graph.offsets.data(), graph.neighbours.data(),
                                           nullptr, nullptr, nullptr, &nparts, nullptr, nullptr, options, &cut,
                                           part.data());
    if (status != METIS_OK)
        throw std::runtime_error("METIS could not partition the mesh's " + std::to_string(vertices) +
                                 " cells into " + std::to_string(parts) + " parts (status " +
                                 std::to_string(status) + ")");
    return std::vector<int>(part.begin(), part.end());
}

/// Each cell's centre (the mean of its nodes), 3 per cell.
std::vector<double> cell_centres(const Mesh& mesh)
{
    const int npc = mesh.nodes_per_cell;
    std::vector<double> centre(3 * static_cast<std::size_t>(mesh.num_cells()), 0.0);
#pragma omp parallel for schedule(static)
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        int count = 0;
        for (int j = 0; j < npc; ++j) {
            const index_type node = mesh.cells[static_cast<std::size_t>(c) * npc + j];
            if (node < 0) continue;
            ++count;
            for (int d = 0; d < 3; ++d) centre[3 * static_cast<std::size_t>(c) + d] += mesh.node_coordinates()[3 * static_cast<std::size_t>(node) + d];
        }
        for (int d = 0; d < 3; ++d) centre[3 * static_cast<std::size_t>(c) + d] /= count;
    }
    return centre;
}

/// Recursive coordinate bisection of cells[begin, end) into parts first_part .. first_part +
/// parts - 1: split across the widest extent of their centres, the cell counts in proportion
/// to the parts on each side.
void bisect(const std::vector<double>& centre, std::vector<index_type>& cells, std::size_t begin, std::size_t end,
            int first_part, int parts, std::vector<int>& part)
{
    if (parts == 1) {
        for (std::size_t k = begin; k < end; ++k) part[static_cast<std::size_t>(cells[k])] = first_part;
        return;
    }
    double low[3] = {1e300, 1e300, 1e300}, high[3] = {-1e300, -1e300, -1e300};
    for (std::size_t k = begin; k < end; ++k)
        for (int d = 0; d < 3; ++d) {
            const double x = centre[3 * static_cast<std::size_t>(cells[k]) + d];
            low[d] = std::min(low[d], x), high[d] = std::max(high[d], x);
        }
    int axis = 0;
    for (int d = 1; d < 3; ++d)
        if (high[d] - low[d] > high[axis] - low[axis]) axis = d;
    const int left = parts / 2;
    const std::size_t middle = begin + (end - begin) * left / parts;
    std::nth_element(cells.begin() + begin, cells.begin() + middle, cells.begin() + end, [&](index_type a, index_type b) {
        const double xa = centre[3 * static_cast<std::size_t>(a) + axis], xb = centre[3 * static_cast<std::size_t>(b) + axis];
        return xa < xb || (xa == xb && a < b);
    });
    bisect(centre, cells, begin, middle, first_part, left, part);
    bisect(centre, cells, middle, end, first_part + left, parts - left, part);
}

/// The coarsest mesh a mesh refined by gpufem came from (its cells' corners, no coordinates),
/// and how many cells of mesh each of its cells became; null when mesh was not refined by
/// gpufem, or is mixed.
std::optional<std::pair<Mesh, long long>> coarsest_ancestor(const Mesh& mesh)
{
    if (!mesh.refined_from || mesh.is_mixed()) return std::nullopt;
    const RefinementParents* level = mesh.refined_from.get();
    long long descendants = level->children;
    while (level->previous) {
        level = level->previous.get();
        descendants *= level->children;
    }
    Mesh coarse;
    coarse.dim = mesh.dim;
    coarse.cell_type = mesh.cell_type;
    coarse.degree = 1;
    coarse.nodes_per_cell = element_node_count(mesh.cell_type);
    coarse.source = mesh.source;
    const std::vector<index_type> cells = level->parent_cells.to_host();
    coarse.cells.assign(cells.begin(), cells.end());
    coarse.coordinates.assign(3 * static_cast<std::size_t>(level->parent_nodes), 0.0);
    if (coarse.num_cells() * descendants != mesh.num_cells()) return std::nullopt;
    return std::make_pair(std::move(coarse), descendants);
}

/// METIS's parts of the coarsest ancestor's cells, each refined cell in its ancestor's part
/// (child s of parent c is cell c children + s at every refinement, so cell k descends from
/// coarse cell k / descendants); false when there is no such mesh or it has fewer cells than
/// parts.
bool partition_by_ancestors(const Mesh& mesh, int parts, CellPartition& partition)
{
    const auto ancestor = coarsest_ancestor(mesh);
    if (!ancestor || ancestor->first.num_cells() < parts) return false;
    const auto& [coarse, descendants] = *ancestor;
    DualGraph graph = dual_graph(coarse);
    const std::vector<int> coarse_part = metis_parts(graph, parts);
    partition.part.resize(static_cast<std::size_t>(mesh.num_cells()));
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < mesh.num_cells(); ++c)
        partition.part[static_cast<std::size_t>(c)] = coarse_part[static_cast<std::size_t>(c / descendants)];
    // Each coarse face is cut into descendants^((dim - 1) / dim) faces of the refined mesh.
    const double per_face = std::pow(static_cast<double>(descendants), (mesh.dim - 1.0) / mesh.dim);
    partition.edge_cut = std::llround(static_cast<double>(count_edge_cut(graph, coarse_part)) * per_face);
    partition.method = "METIS k-way of the " + std::to_string(coarse.num_cells()) +
                       " cells gpufem refined, each refined cell with its parent";
    return true;
}

}  // namespace

std::vector<int> coordinate_bisection(const Mesh& mesh, int parts)
{
    const std::vector<double> centre = cell_centres(mesh);
    std::vector<index_type> cells(static_cast<std::size_t>(mesh.num_cells()));
    for (std::size_t c = 0; c < cells.size(); ++c) cells[c] = static_cast<index_type>(c);
    std::vector<int> part(cells.size(), 0);
    bisect(centre, cells, 0, cells.size(), 0, parts, part);
    return part;
}

double CellPartition::imbalance() const
{
    if (cells_per_part.empty()) return 1.0;
    long long total = 0;
    for (index_type n : cells_per_part) total += n;
    const double mean = static_cast<double>(total) / static_cast<double>(cells_per_part.size());
    return mean > 0 ? *std::max_element(cells_per_part.begin(), cells_per_part.end()) / mean : 1.0;
}

CellPartition partition_cells(const Mesh& mesh, int parts)
{
    const index_type cells = mesh.num_cells();
    if (parts < 1 || parts > cells)
        throw std::invalid_argument("cannot partition the " + std::to_string(cells) + " cells of mesh '" +
                                    mesh.source + "' into " + std::to_string(parts) + " parts");
    CellPartition partition;
    partition.parts = parts;
    if (parts == 1) {
        partition.part.assign(static_cast<std::size_t>(cells), 0);
    } else if (!mesh.generated_grid.shape.empty()) {
        // A box grid: boxes of cells by their coordinates, in linear time (METIS on tens of
        // millions of cells would take longer than the solve); the cut is not counted.
        partition.part = coordinate_bisection(mesh, parts);
        partition.method = "coordinate bisection of the generated grid";
        partition.edge_cut = -1;
    } else if (!partition_by_ancestors(mesh, parts, partition)) {
        DualGraph graph = dual_graph(mesh);
        partition.part = metis_parts(graph, parts);
        partition.method = "METIS k-way, cell face graph";
        partition.edge_cut = count_edge_cut(graph, partition.part);
    }
    partition.cells_per_part.assign(static_cast<std::size_t>(parts), 0);
    for (int p : partition.part) ++partition.cells_per_part[static_cast<std::size_t>(p)];
    return partition;
}

}  // namespace gpufem
