#include "assembly/cell_blocks.hpp"

#include <string>

#include "mesh/cell_fields.hpp"

namespace gpufem {

std::vector<CellBlock> cell_blocks(const Mesh& mesh) { return cell_blocks(mesh, {}); }

std::vector<CellBlock> cell_blocks(const Mesh& mesh, const std::vector<std::uint8_t>& keep)
{
    std::vector<CellBlock> blocks;
    const index_type cells = mesh.num_cells();
    const int stride = mesh.nodes_per_cell;
    for (int t = 0; t < element_type_count; ++t) {
        const auto type = static_cast<ElementType>(t);
        if (!mesh.is_mixed() && type != mesh.cell_type) continue;
        CellBlock block;
        for (index_type c = 0; c < cells; ++c)
            if (mesh.type_of_cell(c) == type && (keep.empty() || keep[static_cast<std::size_t>(c)]))
                block.cells.push_back(c);
        if (block.cells.empty()) continue;
        Mesh& m = block.mesh;
        m.dim = mesh.dim;
        m.coordinates = mesh.coordinates;
        m.cell_type = type;
        m.degree = mesh.degree;
        m.nodes_per_cell = mesh.is_mixed() ? lagrange_node_count(type, mesh.degree) : stride;
        m.cells.resize(block.cells.size() * static_cast<std::size_t>(m.nodes_per_cell));
        m.cell_group.reserve(block.cells.size());
        for (std::size_t k = 0; k < block.cells.size(); ++k) {
            const std::size_t c = static_cast<std::size_t>(block.cells[k]);
            for (int i = 0; i < m.nodes_per_cell; ++i)
                m.cells[k * m.nodes_per_cell + i] = mesh.cells[c * stride + i];
            if (!mesh.cell_group.empty()) m.cell_group.push_back(mesh.cell_group[c]);
        }
        m.subdomains = mesh.subdomains;
        m.cell_fields = cell_fields_of(mesh.cell_fields, block.cells);
        m.source = mesh.is_mixed() ? mesh.source + " (its " + element_type_plural(type) + ", numbered among themselves)"
                                   : mesh.source;
        blocks.push_back(std::move(block));
    }
    return blocks;
}

Array<index_type> block_cell_map(const ExecPtr& exec, const Mesh& mesh, const CellBlock& block)
{
    std::vector<index_type> map(static_cast<std::size_t>(mesh.num_cells()), -1);
    for (std::size_t k = 0; k < block.cells.size(); ++k)
        map[static_cast<std::size_t>(block.cells[k])] = static_cast<index_type>(k);
    return Array<index_type>::from_host(exec, map);
}

}  // namespace gpufem
