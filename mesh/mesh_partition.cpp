#include "mesh/mesh_partition.hpp"

#include <algorithm>
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

DualGraph dual_graph(const Mesh& mesh)
{
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

}  // namespace

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
    } else {
        DualGraph graph = dual_graph(mesh);
        partition.part = metis_parts(graph, parts);
        partition.edge_cut = count_edge_cut(graph, partition.part);
    }
    partition.cells_per_part.assign(static_cast<std::size_t>(parts), 0);
    for (int p : partition.part) ++partition.cells_per_part[static_cast<std::size_t>(p)];
    return partition;
}

}  // namespace gpufem
