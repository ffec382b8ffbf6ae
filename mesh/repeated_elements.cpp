#include "mesh/repeated_elements.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

namespace gpufem {
namespace {

constexpr int max_nodes_per_element = 8;
using NodeSet = std::array<index_type, max_nodes_per_element>;

/// The element's nodes, sorted (unused slots hold the largest index and sort last).
NodeSet sorted_nodes(const std::vector<index_type>& connectivity, int npe, std::size_t e)
{
    NodeSet nodes;
    nodes.fill(std::numeric_limits<index_type>::max());
    std::copy_n(connectivity.begin() + static_cast<std::ptrdiff_t>(e * npe), npe, nodes.begin());
    std::sort(nodes.begin(), nodes.end());
    return nodes;
}

/// A 64-bit hash (FNV-1a over the node indices) of a sorted node set.
std::uint64_t hash_nodes(const NodeSet& nodes, int npe)
{
    std::uint64_t h = 14695981039346656037ull;
    for (int i = 0; i < npe; ++i) {
        h ^= static_cast<std::uint32_t>(nodes[i]);
        h *= 1099511628211ull;
    }
    return h;
}

}  // namespace

std::size_t drop_repeated_elements(std::vector<index_type>& connectivity, int nodes_per_element,
                                   std::vector<int>* per_element)
{
    const int npe = nodes_per_element;
    if (npe < 1 || npe > max_nodes_per_element)
        throw std::invalid_argument("drop_repeated_elements: unsupported nodes per element");
    const std::size_t count = connectivity.size() / npe;

    // Sort (hash, element) pairs; only elements with equal hashes can repeat each other.
    std::vector<std::pair<std::uint64_t, std::size_t>> keys(count);
    for (std::size_t e = 0; e < count; ++e)
        keys[e] = {hash_nodes(sorted_nodes(connectivity, npe, e), npe), e};
    std::sort(keys.begin(), keys.end());

    std::vector<char> repeated(count, 0);
    std::size_t removed = 0;
    for (std::size_t begin = 0; begin < count;) {
        std::size_t end = begin + 1;
        while (end < count && keys[end].first == keys[begin].first) ++end;
        for (std::size_t i = begin + 1; i < end; ++i) {  // within a run, element order rises
            const NodeSet nodes = sorted_nodes(connectivity, npe, keys[i].second);
            for (std::size_t j = begin; j < i; ++j) {
                if (!repeated[keys[j].second] &&
                    sorted_nodes(connectivity, npe, keys[j].second) == nodes) {
                    repeated[keys[i].second] = 1;
                    ++removed;
                    break;
                }
            }
        }
        begin = end;
    }
    if (removed == 0) return 0;

    std::size_t kept = 0;
    for (std::size_t e = 0; e < count; ++e) {
        if (repeated[e]) continue;
        std::copy_n(connectivity.begin() + static_cast<std::ptrdiff_t>(e * npe), npe,
                    connectivity.begin() + static_cast<std::ptrdiff_t>(kept * npe));
        if (per_element) (*per_element)[kept] = (*per_element)[e];
        ++kept;
    }
    connectivity.resize(kept * npe);
    if (per_element) per_element->resize(kept);
    return removed;
}

}  // namespace gpufem
