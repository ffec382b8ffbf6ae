#include "mesh/repeated_elements.hpp"

#include <algorithm>
#include <cstdint>
#include <bit>
#include <span>
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

/// The hash of the sorted nodes of every element, on all threads.
std::vector<std::uint64_t> element_hashes(const index_type* connectivity, int npe, std::size_t count)
{
    std::vector<std::uint64_t> hashes(count);
    const auto elements = static_cast<long long>(count);
#pragma omp parallel
    {
        std::vector<index_type> nodes;
#pragma omp for schedule(static)
        for (long long e = 0; e < elements; ++e) {
            sorted_nodes(connectivity, npe, static_cast<std::size_t>(e), nodes);
            hashes[static_cast<std::size_t>(e)] = hash_nodes(nodes);
        }
    }
    return hashes;
}

/// The elements grouped by the top `bits` bits of their hashes (a counting sort on all
/// threads): bucket b holds order[start[b] .. start[b + 1]), in no particular order.
struct HashBuckets {
    int bits = 0;
    std::vector<std::size_t> start;
    std::vector<std::size_t> order;
};

HashBuckets bucket_by_hash(const std::vector<std::uint64_t>& hashes)
{
    HashBuckets out;
    const std::size_t count = hashes.size();
    out.bits = std::clamp(static_cast<int>(std::bit_width(count)) - 2, 4, 24);  // a few elements per bucket
    const int shift = 64 - out.bits;
    const std::size_t buckets = std::size_t{1} << out.bits;
    out.start.assign(buckets + 1, 0);
    const auto elements = static_cast<long long>(count);
#pragma omp parallel for schedule(static)
    for (long long e = 0; e < elements; ++e)
        __atomic_fetch_add(&out.start[(hashes[static_cast<std::size_t>(e)] >> shift) + 1], std::size_t{1}, __ATOMIC_RELAXED);
    for (std::size_t b = 0; b < buckets; ++b) out.start[b + 1] += out.start[b];
    std::vector<std::size_t> cursor(out.start.begin(), out.start.end() - 1);
    out.order.resize(count);
#pragma omp parallel for schedule(static)
    for (long long e = 0; e < elements; ++e) {
        const std::size_t at = __atomic_fetch_add(&cursor[hashes[static_cast<std::size_t>(e)] >> shift], std::size_t{1},
                                                  __ATOMIC_RELAXED);
        out.order[at] = static_cast<std::size_t>(e);
    }
    return out;
}

/// Marks in `repeated` every element of one bucket whose node set an element before it has
/// (equal hashes first, then the sorted nodes); returns how many.
std::size_t mark_repeats(std::span<std::size_t> bucket, const std::vector<std::uint64_t>& hashes,
                         const index_type* connectivity, int npe, std::vector<char>& repeated)
{
    std::sort(bucket.begin(), bucket.end(), [&](std::size_t a, std::size_t b) {
        return hashes[a] != hashes[b] ? hashes[a] < hashes[b] : a < b;
    });
    std::vector<index_type> nodes, other;
    std::size_t removed = 0;
    for (std::size_t begin = 0; begin < bucket.size();) {
        std::size_t end = begin + 1;
        while (end < bucket.size() && hashes[bucket[end]] == hashes[bucket[begin]]) ++end;
        for (std::size_t i = begin + 1; i < end; ++i) {  // within a run, element order rises
            sorted_nodes(connectivity, npe, bucket[i], nodes);
            for (std::size_t j = begin; j < i; ++j) {
                if (repeated[bucket[j]]) continue;
                sorted_nodes(connectivity, npe, bucket[j], other);
                if (other == nodes) {
                    repeated[bucket[i]] = 1;
                    ++removed;
                    break;
                }
            }
        }
        begin = end;
    }
    return removed;
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

    // Only elements with equal hashes can repeat each other: group them by their hashes' top
    // bits, then compare within each group.
    const std::vector<std::uint64_t> hashes = element_hashes(connectivity.data(), npe, count);
    HashBuckets buckets = bucket_by_hash(hashes);
    std::vector<char> repeated(count, 0);
    std::size_t removed = 0;
    const auto bucket_count = static_cast<long long>(buckets.start.size() - 1);
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : removed)
    for (long long b = 0; b < bucket_count; ++b) {
        const std::size_t first = buckets.start[static_cast<std::size_t>(b)], last = buckets.start[static_cast<std::size_t>(b) + 1];
        if (last - first < 2) continue;
        removed += mark_repeats(std::span<std::size_t>(buckets.order.data() + first, last - first), hashes,
                                connectivity.data(), npe, repeated);
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
