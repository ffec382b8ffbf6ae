#pragma once
// Internal to mesh/: the pieces that number a mesh's topological entities (edges, faces) on
// an executor, shared by the lattice numbering (mesh_refinement.cpp) and the cells' face
// adjacency (cell_faces.cpp).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "linalg/array.hpp"
#include "linalg/types.hpp"
#include "mesh/lattice_kernels.hpp"
#include "mesh/lattice_table.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// A LatticeTable copied to an executor.
struct ShapeOnExec {
    Array<int> points, edges, faces, edge_of_pair;
    LatticeShapeView view;

    ShapeOnExec(const LatticeTable& table, bool with_faces, const ExecPtr& exec)
    {
        std::vector<int> p, e, f, pair(64, -1);
        for (const LatticePoint& point : table.points)
            p.insert(p.end(), {point.dim, point.entity, point.s, point.t, point.interior});
        for (const auto& edge : table.edges) {
            e.insert(e.end(), edge.begin(), edge.end());
            pair[8 * edge[0] + edge[1]] = pair[8 * edge[1] + edge[0]] =
                static_cast<int>(e.size() / 2 - 1);
        }
        if (with_faces)
            for (const auto& face : table.faces) f.insert(f.end(), face.begin(), face.end());
        points = Array<int>::from_host(exec, p);
        edges = Array<int>::from_host(exec, e);
        faces = Array<int>::from_host(exec, f);
        edge_of_pair = Array<int>::from_host(exec, pair);
        view.points = points.data();
        view.num_points = static_cast<int>(table.points.size());
        view.order = table.order;
        view.dim = element_dimension(table.type);
        view.edges = edges.data();
        view.num_edges = static_cast<int>(table.edges.size());
        view.faces = faces.data();
        view.num_faces = static_cast<int>(f.size() / 4);
        view.edge_of_pair = edge_of_pair.data();
    }
};

/// Bits that hold every number below `count`.
inline int bits_for(long long count)
{
    int bits = 1;
    while (bits < 63 && (1LL << bits) <= count) ++bits;
    return bits;
}

/// The edges or faces of a mesh's cells: a key per cell slot, then each distinct key numbered.
struct EntityNumbers {
    Array<std::uint64_t> slot_keys;  ///< a key per (cell, local entity), filled by the caller
    Array<index_type> of_slot;       ///< the number of each slot's entity
    Array<std::uint64_t> keys;       ///< the distinct keys, increasing (first `count` valid)
    Array<index_type> owner;         ///< the first slot of each entity
    long long slots = 0;

    EntityNumbers(const ExecPtr& exec, long long slots, const std::string& what) : slots(slots)
    {
        checked_index(slots, what);
        slot_keys = Array<std::uint64_t>(exec, static_cast<std::size_t>(slots));
        of_slot = Array<index_type>(exec, static_cast<std::size_t>(slots));
        keys = Array<std::uint64_t>(exec, static_cast<std::size_t>(slots));
        owner = Array<index_type>(exec, static_cast<std::size_t>(slots));
    }
    /// Numbers the slots' keys (below 2^key_bits); returns the count and frees slot_keys.
    long long number(const ExecPtr& exec, int key_bits)
    {
        const long long count = GPUFEM_DISPATCH(
            *exec, number_entities(*exec, slot_keys.data(), slots, key_bits, of_slot.data(),
                                           keys.data(), owner.data()));
        slot_keys = Array<std::uint64_t>();
        return count;
    }
};

}  // namespace gpufem
