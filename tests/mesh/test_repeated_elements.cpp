// Removal of elements listed more than once, against a plain reference: random tetrahedra
// over few nodes (so that some repeat, in any node order), each with a value carried along.
#include <algorithm>
#include <array>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "mesh/repeated_elements.hpp"
#include "random_values.hpp"

namespace gpufem {
namespace {

TEST(RepeatedElements, EveryRepeatIsDroppedAndTheFirstKept)
{
    std::mt19937 rng(test::random_seed());
    // Node sets drawn from 12 nodes: many tetrahedra share theirs when there are thousands;
    // from 60, most are distinct and spread over many hash groups, some repeat.
    for (const auto& [count, nodes] : std::vector<std::pair<std::size_t, index_type>>{
             {1, 12}, {7, 12}, {5000, 12}, {200000, 12}, {300000, 60}}) {
        SCOPED_TRACE(std::to_string(count) + " elements on " + std::to_string(nodes) + " nodes");
        std::uniform_int_distribution<index_type> node(0, nodes - 1);
        std::vector<index_type> cells;
        std::vector<int> values;
        for (std::size_t e = 0; e < count; ++e) {
            std::array<index_type, 4> tet{};
            for (index_type& n : tet) n = node(rng);
            cells.insert(cells.end(), tet.begin(), tet.end());
            values.push_back(static_cast<int>(e));
        }
        // The reference: keep an element when its sorted node set is new.
        std::set<std::array<index_type, 4>> seen;
        std::vector<index_type> expected_cells;
        std::vector<int> expected_values;
        for (std::size_t e = 0; e < count; ++e) {
            std::array<index_type, 4> sorted{};
            std::copy_n(cells.begin() + static_cast<std::ptrdiff_t>(4 * e), 4, sorted.begin());
            std::sort(sorted.begin(), sorted.end());
            if (!seen.insert(sorted).second) continue;
            expected_cells.insert(expected_cells.end(), cells.begin() + static_cast<std::ptrdiff_t>(4 * e),
                                  cells.begin() + static_cast<std::ptrdiff_t>(4 * e + 4));
            expected_values.push_back(values[e]);
        }
        const std::size_t removed = drop_repeated_elements(cells, 4, &values);
        EXPECT_EQ(removed, count - expected_values.size());
        EXPECT_EQ(cells, expected_cells);
        EXPECT_EQ(values, expected_values);
    }
}

}  // namespace
}  // namespace gpufem
