#include "mesh/mesh_parts.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "mesh/cell_description.hpp"

namespace gpufem {
namespace {

/// Disjoint sets of cells, joined from several threads at once: a set's root is its lowest
/// cell, a join links the higher root to the lower by compare-and-swap (retried when another
/// thread linked it first), and a find halves its path. Every parent is an ancestor with a
/// lower or equal index, so the concurrent halving and linking keep the sets exact.
class CellSets {
public:
    explicit CellSets(long long n) : parent_(static_cast<std::size_t>(n)) { std::iota(parent_.begin(), parent_.end(), 0); }
    /// The root (lowest cell) of c's set.
    index_type find(index_type c)
    {
        for (;;) {
            const index_type p = parent(c).load(std::memory_order_relaxed);
            if (p == c) return c;
            const index_type g = parent(p).load(std::memory_order_relaxed);
            if (g != p) parent(c).store(g, std::memory_order_relaxed);  // an ancestor either way
            c = g;
        }
    }
    /// Joins the sets of a and b; safe from several threads at once.
    void join(index_type a, index_type b)
    {
        for (;;) {
            a = find(a);
            b = find(b);
            if (a == b) return;
            if (a < b) std::swap(a, b);
            index_type expected = a;  // a still a root: link it below b
            if (parent(a).compare_exchange_weak(expected, b, std::memory_order_relaxed)) return;
        }
    }
    /// The sets numbered in the order of their first cells.
    MeshParts parts()
    {
        const auto n = static_cast<long long>(parent_.size());
        MeshParts out;
        out.of_cell.resize(parent_.size());
#pragma omp parallel for schedule(static)
        for (long long c = 0; c < n; ++c) out.of_cell[static_cast<std::size_t>(c)] = find(static_cast<index_type>(c));
        // A root is its set's lowest cell: the roots met in cell order number the sets.
        std::vector<index_type> number(parent_.size(), -1);
        for (std::size_t c = 0; c < parent_.size(); ++c) {
            index_type& root = out.of_cell[c];
            if (number[static_cast<std::size_t>(root)] < 0) number[static_cast<std::size_t>(root)] = out.count++;
            root = number[static_cast<std::size_t>(root)];
        }
        return out;
    }

private:
    std::atomic_ref<index_type> parent(index_type c)
    {
        return std::atomic_ref<index_type>(parent_[static_cast<std::size_t>(c)]);
    }

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
#pragma omp parallel for schedule(static)
    for (long long s = 0; s < slots; ++s) {
        const index_type other = faces.neighbour[static_cast<std::size_t>(s)];
        const auto cell = static_cast<index_type>(s / faces.faces_per_cell);
        if (other > cell) sets.join(cell, other);  // each interior face once, from its lower cell
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
