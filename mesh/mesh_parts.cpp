#include "mesh/mesh_parts.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "mesh/cell_description.hpp"

namespace gpufem {
namespace {

/// Disjoint sets of cells (union by index, path halving): linear in practice.
class CellSets {
public:
    explicit CellSets(long long n) : parent_(static_cast<std::size_t>(n)) { std::iota(parent_.begin(), parent_.end(), 0); }
    index_type find(index_type c)
    {
        while (parent_[static_cast<std::size_t>(c)] != c) {
            parent_[static_cast<std::size_t>(c)] = parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(c)])];
            c = parent_[static_cast<std::size_t>(c)];
        }
        return c;
    }
    void join(index_type a, index_type b)
    {
        a = find(a);
        b = find(b);
        if (a != b) parent_[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    }
    /// The sets numbered in the order of their first cells.
    MeshParts parts()
    {
        MeshParts out;
        out.of_cell.assign(parent_.size(), -1);
        std::vector<index_type> number(parent_.size(), -1);
        for (std::size_t c = 0; c < parent_.size(); ++c) {
            const auto root = static_cast<std::size_t>(find(static_cast<index_type>(c)));
            if (number[root] < 0) number[root] = out.count++;
            out.of_cell[c] = number[root];
        }
        return out;
    }

private:
    std::vector<index_type> parent_;
};

}  // namespace

MeshParts parts_through_nodes(const Mesh& mesh)
{
    const long long n = mesh.num_cells();
    CellSets sets(n);
    std::vector<index_type> first_cell(static_cast<std::size_t>(mesh.num_nodes()), -1);
    for (long long c = 0; c < n; ++c) {
        const index_type* row = &mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell];
        for (int k = 0; k < mesh.nodes_per_cell && row[k] >= 0; ++k) {
            index_type& first = first_cell[static_cast<std::size_t>(row[k])];
            if (first < 0) first = static_cast<index_type>(c);
            else sets.join(first, static_cast<index_type>(c));
        }
    }
    return sets.parts();
}

MeshParts parts_through_faces(const Mesh& mesh, const FaceSlots& faces)
{
    CellSets sets(mesh.num_cells());
    const long long slots = static_cast<long long>(faces.neighbour.size());
    for (long long s = 0; s < slots; ++s) {
        const index_type other = faces.neighbour[static_cast<std::size_t>(s)];
        if (other >= 0) sets.join(static_cast<index_type>(s / faces.faces_per_cell), other);
    }
    return sets.parts();
}

std::string part_text(const Mesh& mesh, const MeshParts& parts, index_type part)
{
    long long cells = 0, first = -1;
    std::set<int> tags;
    for (std::size_t c = 0; c < parts.of_cell.size(); ++c) {
        if (parts.of_cell[c] != part) continue;
        if (first < 0) first = static_cast<long long>(c);
        ++cells;
        if (c < mesh.cell_group.size()) tags.insert(mesh.cell_group[c]);
    }
    std::string groups;
    for (const int tag : tags)
        for (const PhysicalGroup& g : mesh.subdomains)
            if (g.tag == tag) groups += (groups.empty() ? "'" : ", '") + g.name + "'";
    return fmt::format("part of {} cells ({}first {})", cells,
                       groups.empty() ? "" : "subdomain " + groups + "; ", cell_text(mesh, first));
}

}  // namespace gpufem
