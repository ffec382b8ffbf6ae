#include "mesh/gmsh_node_numbering.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <parallel/algorithm>

#include <gmsh.h>

#include "mesh/gmsh_session.hpp"

namespace gpufem {

GmshNodes read_gmsh_nodes()
{
    GmshNodes nodes;
    std::vector<double> parametric;
    gmsh::model::mesh::getNodes(nodes.tags, nodes.coordinates, parametric, -1, -1,
                                /*includeBoundary=*/false, /*returnParametricCoord=*/false);
    return nodes;
}

GmshNodeNumbering::GmshNodeNumbering(GmshNodes nodes,
                                     const std::vector<std::span<const std::size_t>>& cell_node_tags,
                                     const std::string& source)
{
    const std::vector<std::size_t> order = sort_tags(std::move(nodes.tags), source);
    number_used_nodes(cell_node_tags, source);

    // The used nodes' coordinates, in compact order.
    coordinates_.resize(3 * static_cast<std::size_t>(count_));
    const auto total = static_cast<long long>(sorted_tags_.size());
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < total; ++i) {
        const index_type to = compact_[static_cast<std::size_t>(i)];
        if (to < 0) continue;
        const std::size_t from = order.empty() ? static_cast<std::size_t>(i) : order[static_cast<std::size_t>(i)];
        std::copy_n(&nodes.coordinates[3 * from], 3, &coordinates_[3 * static_cast<std::size_t>(to)]);
    }
}

std::vector<std::size_t> GmshNodeNumbering::sort_tags(std::vector<std::size_t>&& tags, const std::string& source)
{
    const std::size_t total = tags.size();
    std::vector<std::size_t> order;  // empty: Gmsh's order is the tags' (a freshly meshed model)
    if (std::is_sorted(tags.begin(), tags.end())) {
        sorted_tags_ = std::move(tags);
    } else {  // a mesh file lists its nodes entity by entity, in the file's tags
        order.resize(total);
        std::iota(order.begin(), order.end(), std::size_t{0});
        // libstdc++'s OpenMP sort; tags are unique or refused below
        __gnu_parallel::sort(order.begin(), order.end(),
                             [&](std::size_t a, std::size_t b) { return tags[a] < tags[b] || (tags[a] == tags[b] && a < b); });
        sorted_tags_.resize(total);
        const auto count = static_cast<long long>(total);
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < count; ++i)
            sorted_tags_[static_cast<std::size_t>(i)] = tags[order[static_cast<std::size_t>(i)]];
    }
    const auto count = static_cast<long long>(total);
    long long repeated = count;  // the first sorted position whose tag the one before has
#pragma omp parallel for reduction(min : repeated) schedule(static)
    for (long long i = 1; i < count; ++i)
        if (sorted_tags_[static_cast<std::size_t>(i)] == sorted_tags_[static_cast<std::size_t>(i - 1)])
            repeated = std::min(repeated, i);
    if (repeated < count)
        throw MeshSourceError("mesh '" + source + "' has two nodes with tag " +
                              std::to_string(sorted_tags_[static_cast<std::size_t>(repeated)]));
    contiguous_ = total > 0 && sorted_tags_.back() - sorted_tags_.front() + 1 == total;
    return order;
}

void GmshNodeNumbering::number_used_nodes(const std::vector<std::span<const std::size_t>>& cell_node_tags,
                                          const std::string& source)
{
    compact_.assign(sorted_tags_.size(), -1);
    for (const std::span<const std::size_t> tags : cell_node_tags) {
        const auto cell_tags = static_cast<long long>(tags.size());
        long long undefined = cell_tags;  // the first tag the model does not define
#pragma omp parallel for reduction(min : undefined) schedule(static)
        for (long long i = 0; i < cell_tags; ++i) {
            const std::ptrdiff_t pos = position(tags[static_cast<std::size_t>(i)]);
            if (pos < 0) undefined = std::min(undefined, i);
            else std::atomic_ref<index_type>(compact_[static_cast<std::size_t>(pos)]).store(0, std::memory_order_relaxed);
        }
        if (undefined < cell_tags)
            throw MeshSourceError("mesh '" + source + "': a cell refers to node " +
                                  std::to_string(tags[static_cast<std::size_t>(undefined)]) +
                                  ", which the file does not define");
    }
    std::int64_t next = 0;
    for (index_type& compact : compact_)
        if (compact == 0) compact = static_cast<index_type>(next++);
    count_ = checked_index(next, "number of nodes of mesh '" + source + "'");
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
