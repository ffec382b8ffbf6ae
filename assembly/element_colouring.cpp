#include "assembly/element_colouring.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gpufem {

ElementColouring colour_elements(std::span<const index_type> cells, int npe, index_type num_nodes)
{
    if (npe <= 0 || cells.size() % static_cast<std::size_t>(npe) != 0)
        throw std::invalid_argument("colour_elements: connectivity size is not a multiple of npe");
    const index_type num_cells = static_cast<index_type>(cells.size() / npe);
    auto node_of = [&](index_type e, int i) { return cells[static_cast<std::size_t>(e) * npe + i]; };

    // node -> cells lists (CSR by node).
    std::vector<index_type> node_ptr(static_cast<std::size_t>(num_nodes) + 1, 0);
    for (index_type node : cells) {
        if (node < 0 || node >= num_nodes)
            throw std::out_of_range("colour_elements: node index out of range");
        ++node_ptr[node + 1];
    }
    for (index_type i = 0; i < num_nodes; ++i) node_ptr[i + 1] += node_ptr[i];
    std::vector<index_type> node_cells(cells.size());
    {
        std::vector<index_type> fill(node_ptr.begin(), node_ptr.end() - 1);
        for (index_type e = 0; e < num_cells; ++e)
            for (int i = 0; i < npe; ++i) node_cells[fill[node_of(e, i)]++] = e;
    }

    // Distinct neighbours of cell e, each visited once: visit(neighbour) for every cell
    // sharing a node with e (e itself excluded). seen[f] == e marks f as visited for e.
    std::vector<index_type> seen(num_cells, -1);
    auto for_each_neighbour = [&](index_type e, auto&& visit) {
        seen[e] = e;
        for (int i = 0; i < npe; ++i) {
            const index_type node = node_of(e, i);
            for (index_type k = node_ptr[node]; k < node_ptr[node + 1]; ++k) {
                const index_type f = node_cells[k];
                if (seen[f] != e) {
                    seen[f] = e;
                    visit(f);
                }
            }
        }
    };

    // Greedy in the given order: each cell takes the smallest colour no neighbour has
    // (taken[c] == e marks colour c as used by a neighbour of e).
    auto greedy = [&](const std::vector<index_type>& order, std::vector<int>& colour) {
        colour.assign(num_cells, -1);
        std::fill(seen.begin(), seen.end(), -1);
        std::vector<index_type> taken;
        for (index_type e : order) {
            for_each_neighbour(e, [&](index_type f) {
                if (colour[f] >= 0) taken[colour[f]] = e;
            });
            int c = 0;
            while (c < static_cast<int>(taken.size()) && taken[c] == e) ++c;
            if (c == static_cast<int>(taken.size())) taken.push_back(-1);
            colour[e] = c;
        }
        return static_cast<int>(taken.size());
    };

    // Two orders, the better kept: cell order (optimal on structured grids) and largest
    // degree first (Welsh-Powell; better on unstructured simplices).
    std::vector<index_type> natural(num_cells);
    std::iota(natural.begin(), natural.end(), index_type(0));
    std::vector<index_type> degree(num_cells, 0);
    for (index_type e = 0; e < num_cells; ++e) for_each_neighbour(e, [&](index_type) { ++degree[e]; });
    std::vector<index_type> largest_first = natural;
    std::stable_sort(largest_first.begin(), largest_first.end(),
                     [&](index_type a, index_type b) { return degree[a] > degree[b]; });
    std::vector<int> colour, other;
    int num_colours = greedy(natural, colour);
    const int other_colours = greedy(largest_first, other);
    if (other_colours < num_colours) {
        num_colours = other_colours;
        colour.swap(other);
    }

    ElementColouring result;
    result.colour_offsets.assign(static_cast<std::size_t>(num_colours) + 1, 0);
    for (index_type e = 0; e < num_cells; ++e) ++result.colour_offsets[colour[e] + 1];
    for (int c = 0; c < num_colours; ++c) result.colour_offsets[c + 1] += result.colour_offsets[c];
    result.cells.resize(num_cells);
    std::vector<index_type> fill(result.colour_offsets.begin(), result.colour_offsets.end() - 1);
    for (index_type e = 0; e < num_cells; ++e) result.cells[fill[colour[e]]++] = e;
    return result;
}

}  // namespace gpufem
