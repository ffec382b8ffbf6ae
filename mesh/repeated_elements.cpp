#include "mesh/repeated_elements.hpp"

#include <algorithm>
#include <cstdint>
#include <parallel/algorithm>
#include <stdexcept>
#include <utility>

namespace gpufem {
namespace {

/// The element's nodes, sorted, into `nodes` (resized to npe; reused between calls).
void sorted_nodes(const index_type* connectivity, int npe, std::size_t e,
                  std::vector<index_type>& nodes)
{
    const index_type* first = connectivity + e * npe;
    nodes.assign(first, first + npe);
    std::sort(nodes.begin(), nodes.end());
}

/// A 64-bit hash (FNV-1a over the node indices) of a sorted node set.
std::uint64_t hash_nodes(const std::vector<index_type>& nodes)
{
    std::uint64_t h = 14695981039346656037ull;
    for (index_type n : nodes) {
        h ^= static_cast<std::uint32_t>(n);
        h *= 1099511628211ull;
    }
    return h;
}

/// The (hash of the sorted nodes, element) key of every element, on all threads.
std::vector<std::pair<std::uint64_t, std::size_t>> element_keys(const index_type* connectivity, int npe,
                                                                std::size_t count)
{
    std::vector<std::pair<std::uint64_t, std::size_t>> keys(count);
    const auto elements = static_cast<long long>(count);
#pragma omp parallel
    {
        std::vector<index_type> nodes;
#pragma omp for schedule(static)
        for (long long e = 0; e < elements; ++e) {
            sorted_nodes(connectivity, npe, static_cast<std::size_t>(e), nodes);
            keys[static_cast<std::size_t>(e)] = {hash_nodes(nodes), static_cast<std::size_t>(e)};
        }
    }
    return keys;
}

}  // namespace

template <typename Connectivity>
std::size_t drop_repeated_elements(Connectivity& connectivity, int nodes_per_element,
                                   std::vector<int>* per_element)
{
    const int npe = nodes_per_element;
    if (npe < 1)
        throw std::invalid_argument("drop_repeated_elements: unsupported nodes per element");
    const std::size_t count = connectivity.size() / npe;

    // Sort (hash, element) pairs; only elements with equal hashes can repeat each other.
    std::vector<index_type> nodes, other;
    std::vector<std::pair<std::uint64_t, std::size_t>> keys = element_keys(connectivity.data(), npe, count);
    __gnu_parallel::sort(keys.begin(), keys.end());  // libstdc++'s OpenMP sort; the keys are distinct

    std::vector<char> repeated(count, 0);
    std::size_t removed = 0;
    for (std::size_t begin = 0; begin < count;) {
        std::size_t end = begin + 1;
        while (end < count && keys[end].first == keys[begin].first) ++end;
        for (std::size_t i = begin + 1; i < end; ++i) {  // within a run, element order rises
            sorted_nodes(connectivity.data(), npe, keys[i].second, nodes);
            for (std::size_t j = begin; j < i; ++j) {
                if (repeated[keys[j].second]) continue;
                sorted_nodes(connectivity.data(), npe, keys[j].second, other);
                if (other == nodes) {
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

template std::size_t drop_repeated_elements(std::vector<index_type>&, int, std::vector<int>*);
template std::size_t drop_repeated_elements(HostVector<index_type>&, int, std::vector<int>*);

}  // namespace gpufem
