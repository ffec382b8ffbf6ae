#include "assembly/cell_blocks.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "linalg/cpu/chunked_loops.hpp"
#include "mesh/cell_fields.hpp"

namespace gpufem {
namespace {

/// Cells per chunk of the passes below.
constexpr long long block_chunk = 1 << 16;

/// The kept cells of each type, in cell order, by the host's threads: each chunk of cells
/// counted per type, then placed after the chunks before it.
std::array<std::vector<index_type>, element_type_count> cells_of_each_type(const Mesh& mesh,
                                                                           const std::vector<std::uint8_t>& keep)
{
    using Counts = std::array<index_type, element_type_count>;
    const long long cells = mesh.num_cells();
    const long long chunks = (cells + block_chunk - 1) / block_chunk;
    const auto kept = [&](long long c) { return keep.empty() || keep[static_cast<std::size_t>(c)] != 0; };
    const auto type = [&](long long c) { return static_cast<std::size_t>(mesh.type_of_cell(static_cast<index_type>(c))); };
    std::vector<Counts> first(static_cast<std::size_t>(chunks), Counts{});
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < chunks; ++k)
        for (long long c = k * block_chunk; c < std::min(cells, (k + 1) * block_chunk); ++c)
            if (kept(c)) ++first[static_cast<std::size_t>(k)][type(c)];
    std::array<std::vector<index_type>, element_type_count> out;
    for (std::size_t t = 0; t < out.size(); ++t) {
        index_type total = 0;
        for (Counts& counts : first) total += std::exchange(counts[t], total);
        out[t].resize(static_cast<std::size_t>(total));
    }
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < chunks; ++k) {
        Counts next = first[static_cast<std::size_t>(k)];
        for (long long c = k * block_chunk; c < std::min(cells, (k + 1) * block_chunk); ++c)
            if (kept(c)) out[type(c)][static_cast<std::size_t>(next[type(c)]++)] = static_cast<index_type>(c);
    }
    return out;
}

/// The block of the cells `cells` (all of `type`) of mesh.
CellBlock block_of(const Mesh& mesh, ElementType type, std::vector<index_type> cells)
{
    CellBlock block;
    block.cells = std::move(cells);
    Mesh& m = block.mesh;
    m.dim = mesh.dim;
    m.borrowed_coordinates = &mesh.node_coordinates();
    m.cell_type = type;
    m.degree = mesh.degree;
    const std::size_t stride = static_cast<std::size_t>(mesh.nodes_per_cell);
    m.nodes_per_cell = mesh.is_mixed() ? lagrange_node_count(type, mesh.degree) : mesh.nodes_per_cell;
    const std::size_t npc = static_cast<std::size_t>(m.nodes_per_cell), count = block.cells.size();
    m.cells.resize(count * npc);
    if (!mesh.cell_group.empty()) m.cell_group.resize(count);
    kernels::cpu::chunked_for(static_cast<long long>(count), [&](long long k) {
        const std::size_t c = static_cast<std::size_t>(block.cells[static_cast<std::size_t>(k)]);
        std::copy_n(mesh.cells.begin() + static_cast<std::ptrdiff_t>(c * stride), npc,
                    m.cells.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(k) * npc));
        if (!mesh.cell_group.empty()) m.cell_group[static_cast<std::size_t>(k)] = mesh.cell_group[c];
    });
    m.subdomains = mesh.subdomains;
    m.cell_fields = cell_fields_of(mesh.cell_fields, block.cells);
    m.source = mesh.is_mixed() ? mesh.source + " (its " + element_type_plural(type) + ", numbered among themselves)"
                               : mesh.source;
    return block;
}

}  // namespace

std::vector<CellBlock> cell_blocks(const Mesh& mesh) { return cell_blocks(mesh, {}); }

std::vector<CellBlock> cell_blocks(const Mesh& mesh, const std::vector<std::uint8_t>& keep)
{
    std::array<std::vector<index_type>, element_type_count> of_type = cells_of_each_type(mesh, keep);
    std::vector<CellBlock> blocks;
    for (int t = 0; t < element_type_count; ++t)
        if (!of_type[static_cast<std::size_t>(t)].empty())
            blocks.push_back(block_of(mesh, static_cast<ElementType>(t), std::move(of_type[static_cast<std::size_t>(t)])));
    return blocks;
}

BlockDeviceCopy::BlockDeviceCopy(Mesh& block, const Mesh& whole, const ExecPtr& exec) : block_(block)
{
    if (!exec->is_cuda() || !whole.device || whole.device->coordinates.executor() != exec) return;
    auto device = std::make_shared<MeshOnDevice>();
    device->coordinates = whole.device->coordinates.clone_to(exec);
    device->cells = Array<index_type>::from_host(exec, std::span<const index_type>(block.cells.data(), block.cells.size()));
    block_.device = std::move(device);
}

Array<index_type> block_cell_map(const ExecPtr& exec, const Mesh& mesh, const CellBlock& block)
{
    std::vector<index_type> map(static_cast<std::size_t>(mesh.num_cells()), -1);
    for (std::size_t k = 0; k < block.cells.size(); ++k)
        map[static_cast<std::size_t>(block.cells[k])] = static_cast<index_type>(k);
    return Array<index_type>::from_host(exec, map);
}

}  // namespace gpufem
