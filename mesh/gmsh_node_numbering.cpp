#include "mesh/gmsh_node_numbering.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <parallel/algorithm>

#include <gmsh.h>

#include "mesh/gmsh_session.hpp"

namespace gpufem {

GmshNodeNumbering::GmshNodeNumbering(const std::vector<std::size_t>& cell_node_tags,
                                     const std::string& source)
{
    std::vector<std::size_t> tags;
    std::vector<double> coords, parametric;
    gmsh::model::mesh::getNodes(tags, coords, parametric, -1, -1, /*includeBoundary=*/false,
                                /*returnParametricCoord=*/false);
    const std::size_t total = tags.size();

    // Sort the model's nodes by tag (Gmsh returns them entity by entity).
    std::vector<std::size_t> order(total);
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (!std::is_sorted(tags.begin(), tags.end()))  // libstdc++'s OpenMP sort: tags are unique or refused below
        __gnu_parallel::sort(order.begin(), order.end(),
                             [&](std::size_t a, std::size_t b) { return tags[a] < tags[b] || (tags[a] == tags[b] && a < b); });
    sorted_tags_.resize(total);
    for (std::size_t i = 0; i < total; ++i) sorted_tags_[i] = tags[order[i]];
    for (std::size_t i = 1; i < total; ++i)
        if (sorted_tags_[i] == sorted_tags_[i - 1])
            throw MeshSourceError("mesh '" + source + "' has two nodes with tag " +
                                  std::to_string(sorted_tags_[i]));
    contiguous_ = total > 0 && sorted_tags_.back() - sorted_tags_.front() + 1 == total;

    // Mark the nodes the cells use, then number them in increasing tag order.
    compact_.assign(total, -1);
    const auto cell_tags = static_cast<long long>(cell_node_tags.size());
    long long undefined = cell_tags;  // the first tag the file does not define
#pragma omp parallel for reduction(min : undefined) schedule(static)
    for (long long i = 0; i < cell_tags; ++i) {
        const std::ptrdiff_t pos = position(cell_node_tags[static_cast<std::size_t>(i)]);
        if (pos < 0) undefined = std::min(undefined, i);
        else std::atomic_ref<index_type>(compact_[static_cast<std::size_t>(pos)]).store(0, std::memory_order_relaxed);
    }
    if (undefined < cell_tags)
        throw MeshSourceError("mesh '" + source + "': a cell refers to node " +
                              std::to_string(cell_node_tags[static_cast<std::size_t>(undefined)]) +
                              ", which the file does not define");
    std::int64_t next = 0;
    for (std::size_t i = 0; i < total; ++i)
        if (compact_[i] == 0) compact_[i] = static_cast<index_type>(next++);
    count_ = checked_index(next, "number of nodes of mesh '" + source + "'");

    coordinates_.resize(3 * static_cast<std::size_t>(count_));
    for (std::size_t i = 0; i < total; ++i) {
        if (compact_[i] < 0) continue;
        const double* from = &coords[3 * order[i]];
        std::copy(from, from + 3, &coordinates_[3 * static_cast<std::size_t>(compact_[i])]);
    }
}

index_type GmshNodeNumbering::index(std::size_t tag) const
{
    const std::ptrdiff_t pos = position(tag);
    return pos < 0 ? -1 : compact_[static_cast<std::size_t>(pos)];
}

std::ptrdiff_t GmshNodeNumbering::position(std::size_t tag) const
{
    if (sorted_tags_.empty() || tag < sorted_tags_.front() || tag > sorted_tags_.back()) return -1;
    if (contiguous_) return static_cast<std::ptrdiff_t>(tag - sorted_tags_.front());
    const auto it = std::lower_bound(sorted_tags_.begin(), sorted_tags_.end(), tag);
    return it != sorted_tags_.end() && *it == tag ? it - sorted_tags_.begin() : -1;
}

}  // namespace gpufem
