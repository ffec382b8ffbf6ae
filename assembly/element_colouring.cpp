#include "assembly/element_colouring.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <future>
#include <optional>
#include <stdexcept>
#include <system_error>

namespace gpufem {
namespace {

/// The cells as npe node indices each.
struct CellNodes {
    std::span<const index_type> cells;
    std::size_t npe = 0;
    index_type num_cells = 0;
    index_type num_nodes = 0;
    /// The npe nodes of cell e.
    const index_type* nodes_of(index_type e) const { return cells.data() + static_cast<std::size_t>(e) * npe; }
};

/// A greedy colouring: each cell's colour, and each node's set of its cells' colours (`words`
/// 64-bit words per node). The cells at a node have distinct colours, so a node's cell count is
/// the size of its set.
struct Greedy {
    HostVector<int> colour;
    HostVector<std::uint64_t> used;
    int words = 1;
    /// The number of cells at node.
    index_type valence(index_type node) const
    {
        index_type count = 0;
        for (int w = 0; w < words; ++w) count += std::popcount(used[static_cast<std::size_t>(node) * words + w]);
        return count;
    }
    /// Twice as many words per node, the sets kept.
    void widen()
    {
        const std::size_t nodes = used.size() / words;
        HostVector<std::uint64_t> wider(used.size() * 2);
        for (std::size_t node = 0; node < nodes; ++node)
            for (int w = 0; w < 2 * words; ++w)
                wider[node * 2 * words + w] = w < words ? used[node * words + w] : 0;
        used.swap(wider);
        words *= 2;
    }
};

/// The smallest colour in none of the nodes' sets (Words 64-bit words each; 0: words given at
/// run time), or -1 when all are taken. One word, the common case, is its own loop.
template <int Words>
int first_free_colour(const std::uint64_t* used, const index_type* nodes, std::size_t npe, int words = Words)
{
    for (int w = 0; w < words; ++w) {
        std::uint64_t taken = 0;
        for (std::size_t i = 0; i < npe; ++i) taken |= used[static_cast<std::size_t>(nodes[i]) * words + w];
        if (~taken != 0) return 64 * w + std::countr_one(taken);
    }
    return -1;
}

/// Greedy colouring visiting the cells in order (all cells when order is empty): each takes the
/// smallest colour none of the cells sharing a node with it has. A node keeps the colours of
/// its coloured cells as a bit set, so a cell's forbidden colours are the union of its nodes'
/// sets: no cell-to-cell adjacency is built. The sets start at one 64-bit word per node and
/// are widened, where they stand, when a cell finds all their colours taken. Throws
/// std::out_of_range on a node outside [0, num_nodes). Nothing once stop (if given) is set.
std::optional<Greedy> greedy_colouring(const CellNodes& m, std::span<const index_type> order,
                                       const std::atomic<bool>* stop = nullptr)
{
    Greedy g{HostVector<int>(m.num_cells), HostVector<std::uint64_t>(static_cast<std::size_t>(m.num_nodes)), 1};
    std::fill(g.used.begin(), g.used.end(), 0);
    const index_type count = order.empty() ? m.num_cells : static_cast<index_type>(order.size());
    for (index_type k = 0; k < count; ++k) {
        if (stop && k % 65536 == 0 && stop->load(std::memory_order_relaxed)) return std::nullopt;
        const index_type e = order.empty() ? k : order[k];
        const index_type* nodes = m.nodes_of(e);
        for (std::size_t i = 0; i < m.npe; ++i)
            if (nodes[i] < 0 || nodes[i] >= m.num_nodes)
                throw std::out_of_range("colour_elements: node index out of range");
        int c = -1;
        while ((c = g.words == 1 ? first_free_colour<1>(g.used.data(), nodes, m.npe)
                                 : first_free_colour<0>(g.used.data(), nodes, m.npe, g.words)) < 0)
            g.widen();
        const std::uint64_t bit = std::uint64_t(1) << (c % 64);
        for (std::size_t i = 0; i < m.npe; ++i) g.used[static_cast<std::size_t>(nodes[i]) * g.words + c / 64] |= bit;
        g.colour[e] = c;
    }
    return g;
}

/// The number of colours of a colouring (its largest colour plus one; greedy leaves no gaps).
int count_colours(const HostVector<int>& colour)
{
    return colour.empty() ? 0 : *std::max_element(colour.begin(), colour.end()) + 1;
}

/// The cells by decreasing degree (stable), the degree counted through the nodes: the sum over
/// a cell's nodes of the other cells there (a neighbour sharing several nodes counts several
/// times; cheap, and close to the distinct count for ordering). A counting sort.
HostVector<index_type> largest_degree_first(const CellNodes& m, const std::atomic<bool>& stop)
{
    HostVector<index_type> valence(m.num_nodes);
    std::fill(valence.begin(), valence.end(), 0);
    for (index_type node : m.cells)
        if (node >= 0 && node < m.num_nodes) ++valence[node];  // the greedy pass refuses the others
    if (stop.load()) return {};
    HostVector<index_type> degree(m.num_cells);
    index_type max_degree = 0;
    for (index_type e = 0; e < m.num_cells; ++e) {
        const index_type* nodes = m.nodes_of(e);
        degree[e] = 0;
        for (std::size_t i = 0; i < m.npe; ++i)
            if (nodes[i] >= 0 && nodes[i] < m.num_nodes) degree[e] += valence[nodes[i]] - 1;
        max_degree = std::max(max_degree, degree[e]);
    }
    if (stop.load()) return {};
    std::vector<index_type> start(static_cast<std::size_t>(max_degree) + 2, 0);
    for (index_type e = 0; e < m.num_cells; ++e) ++start[max_degree - degree[e] + 1];
    for (index_type d = 0; d <= max_degree; ++d) start[d + 1] += start[d];
    HostVector<index_type> order(m.num_cells);
    for (index_type e = 0; e < m.num_cells; ++e) order[start[max_degree - degree[e]]++] = e;
    return order;
}

}  // namespace

ElementColouring colour_elements(std::span<const index_type> cells, int npe, index_type num_nodes)
{
    if (npe <= 0 || cells.size() % static_cast<std::size_t>(npe) != 0)
        throw std::invalid_argument("colour_elements: connectivity size is not a multiple of npe");
    const CellNodes m{cells, static_cast<std::size_t>(npe), static_cast<index_type>(cells.size() / npe), num_nodes};

    // Cell order (optimal on structured grids) and, on another thread meanwhile, largest degree
    // first (Welsh-Powell; better on unstructured simplices); the better one is kept. When cell
    // order needs no more colours than the most cells at one node (they form a clique: a lower
    // bound), the other is stopped.
    std::atomic<bool> stop{false};
    const auto other_order = [&m, &stop]() -> std::optional<Greedy> {
        const HostVector<index_type> order = largest_degree_first(m, stop);
        return stop.load() ? std::nullopt : greedy_colouring(m, order, &stop);
    };
    std::future<std::optional<Greedy>> largest_first;
    try {
        largest_first = std::async(std::launch::async, other_order);
    } catch (const std::system_error&) {  // no thread to be had: the other order runs after, if needed
        largest_first = std::async(std::launch::deferred, other_order);
    }
    std::optional<Greedy> natural;
    try {
        natural = greedy_colouring(m, {});
    } catch (...) {
        stop = true;  // the future's destructor waits for the other thread, which then stops
        throw;
    }
    HostVector<int> colour = std::move(natural->colour);
    int num_colours = count_colours(colour);
    index_type clique = 0;
    for (index_type node = 0; node < num_nodes; ++node) clique = std::max(clique, natural->valence(node));
    // Once stopped, the other order's result (or failure) is of no use: the future's
    // destructor waits for its thread, or never runs it when deferred.
    stop = num_colours <= clique;
    if (std::optional<Greedy> other = stop ? std::nullopt : largest_first.get()) {
        if (const int other_colours = count_colours(other->colour); other_colours < num_colours) {
            num_colours = other_colours;
            colour.swap(other->colour);
        }
    }

    ElementColouring result;
    result.colour_offsets.assign(static_cast<std::size_t>(num_colours) + 1, 0);
    for (index_type e = 0; e < m.num_cells; ++e) ++result.colour_offsets[colour[e] + 1];
    for (int c = 0; c < num_colours; ++c) result.colour_offsets[c + 1] += result.colour_offsets[c];
    result.cells.resize(m.num_cells);
    std::vector<index_type> fill(result.colour_offsets.begin(), result.colour_offsets.end() - 1);
    for (index_type e = 0; e < m.num_cells; ++e) result.cells[fill[colour[e]]++] = e;
    return result;
}

}  // namespace gpufem
