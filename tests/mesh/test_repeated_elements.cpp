// Removal of elements listed more than once, against a plain reference: random tetrahedra
// over few nodes (so that some repeat, in any node order), each with a value carried along.
#include <algorithm>
#include <array>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "mesh/repeated_elements.hpp"
#include "random_values.hpp"

namespace gpufem {
namespace {

TEST(RepeatedElements, EveryRepeatIsDroppedAndTheFirstKept)
{
    std::mt19937 rng(test::random_seed());
    for (const std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{5000}, std::size_t{200000}}) {
        SCOPED_TRACE(count);
        // Node sets drawn from 12 nodes: many tetrahedra share theirs when there are thousands.
        std::uniform_int_distribution<index_type> node(0, 11);
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
