#pragma once
// Internal to mesh/: the compact numbering of the Gmsh nodes that a mesh's cells use.
#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "linalg/host_vector.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// Every node of the current Gmsh model, as Gmsh lists them (entity by entity).
struct GmshNodes {
    std::vector<std::size_t> tags;    ///< one Gmsh tag per node
    std::vector<double> coordinates;  ///< x, y, z per node
};

/// Reads every node of the current Gmsh model (a GmshSession must be held). It only reads
/// the model, so it may run on a thread of its own while other threads read the cells.
GmshNodes read_gmsh_nodes();

/// Maps Gmsh node tags to 0..n-1, numbering only the nodes that the cells use, in increasing
/// tag order (which keeps Gmsh's locality), and holds their coordinates (3 per node).
class GmshNodeNumbering {
public:
    /// Numbers the nodes of `nodes` that the tags in `cell_node_tags` (the cells' node
    /// tags, in any number of spans) use. Throws MeshSourceError naming `source` if a cell
    /// refers to a node tag without coordinates or if two nodes share a tag.
    GmshNodeNumbering(GmshNodes nodes, const std::vector<std::span<const std::size_t>>& cell_node_tags,
                      const std::string& source);

    /// Compact index of a node tag, or -1 if no cell uses that node (or no node has the tag).
    index_type index(std::size_t tag) const;
    /// Number of nodes the cells use.
    index_type size() const { return count_; }
    /// The coordinates (x, y, z per node, compact order); leaves this object without them.
    HostVector<double> take_coordinates() { return std::move(coordinates_); }

private:
    /// Position of a tag in sorted_tags_, or -1.
    std::ptrdiff_t position(std::size_t tag) const;
    /// Sets sorted_tags_ from the nodes' tags; returns the Gmsh node at each sorted
    /// position, or nothing when Gmsh listed them in increasing order already.
    std::vector<std::size_t> sort_tags(std::vector<std::size_t>&& tags, const std::string& source);
    /// Marks in compact_ (0) the nodes the cells use, -1 the others, then numbers them.
    void number_used_nodes(const std::vector<std::span<const std::size_t>>& cell_node_tags,
                           const std::string& source);

    std::vector<std::size_t> sorted_tags_;  ///< every node tag of the model, increasing
    bool contiguous_ = false;               ///< sorted_tags_ is first, first + 1, ...
    std::vector<index_type> compact_;       ///< compact index per sorted position; -1 unused
    HostVector<double> coordinates_;
    index_type count_ = 0;
};

}  // namespace gpufem
