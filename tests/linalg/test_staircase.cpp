// Staircase SELL (Wikberg 2025, §4.3) on the CPU: row order, grouping and merging
// (Algorithm 3), the slice layout, and the SpMV in the new numbering against the CSR reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <tuple>

#include "linalg/format_build.hpp"
#include "linalg/reordering.hpp"
#include "linalg/staircase.hpp"
#include "spmv_checks.hpp"
#include "value_types.hpp"

using namespace gpufem;

namespace {

using Groups = std::vector<StaircaseGroup>;

/// (length, row_start, rows, offset) of every group, for readable expectations.
std::vector<std::tuple<int, int, int, int>> summary(const Groups& groups)
{
    std::vector<std::tuple<int, int, int, int>> out;
    for (const auto& g : groups) out.emplace_back(g.length, g.row_start, g.rows, g.offset);
    return out;
}
using T4 = std::tuple<int, int, int, int>;

/// Rows 0..19 with lengths 2 (3 rows), 3 (9 rows), 5 (1 row), 7 (7 rows), shuffled over the
/// rows; row i holds its diagonal and the next columns cyclically.
test::HostCsr<double> hand_made_matrix(std::vector<int>& lengths)
{
    lengths = {3, 7, 2, 3, 3, 7, 5, 3, 2, 7, 3, 3, 7, 2, 7, 3, 3, 7, 3, 7};
    test::HostCsr<double> m;
    m.rows = m.cols = static_cast<index_type>(lengths.size());
    m.ptr = {0};
    for (index_type i = 0; i < m.rows; ++i) {
        std::vector<index_type> cols;
        for (int k = 0; k < lengths[i]; ++k) cols.push_back((i + k) % m.rows);
        std::sort(cols.begin(), cols.end());
        for (index_type c : cols) {
            m.col.push_back(c);
            m.val.push_back(1.0 + i + 0.01 * c);
        }
        m.ptr.push_back(static_cast<index_type>(m.col.size()));
    }
    return m;
}

}  // namespace

// h[L] = rows with L entries: lengths 2 (3 rows), 3 (9), 5 (1), 7 (7); n = 20.
TEST(StaircaseGroups, Algorithm3OnHandMadeHistogram)
{
    const std::vector<index_type> h{0, 0, 3, 9, 0, 1, 0, 7};
    // alpha n = 2 rows, sh = 4: length 2 keeps no full slice, its 3 rows go up to length 3
    // (12 rows, 3 slices); length 5 (1 row) is merged into 7 (8 rows, 2 slices).
    EXPECT_EQ(summary(staircase_groups(h, 0.1, 4)), (std::vector<T4>{{3, 0, 12, 0}, {7, 12, 8, 36}}));
    // alpha = 0: nothing merged, only the rows left over from full slices move up.
    EXPECT_EQ(summary(staircase_groups(h, 0.0, 2)),
              (std::vector<T4>{{2, 0, 2, 0}, {3, 2, 10, 4}, {7, 12, 8, 34}}));
    EXPECT_EQ(summary(staircase_groups(h, 0.0, 1)),
              (std::vector<T4>{{2, 0, 3, 0}, {3, 3, 9, 6}, {5, 12, 1, 33}, {7, 13, 7, 38}}));
    // alpha n = 13: lengths 2 and 3 (12 rows) are merged into 5 (13 rows: 12 kept, 1 up).
    EXPECT_EQ(summary(staircase_groups(h, 0.65, 4)), (std::vector<T4>{{5, 0, 12, 0}, {7, 12, 8, 60}}));
    // alpha large: one group, ELLPACK in the new order; 20 rows in slices of 3 -> 1 padding row.
    EXPECT_EQ(summary(staircase_groups(h, 5.0, 3)), (std::vector<T4>{{7, 0, 21, 0}}));
    EXPECT_EQ(summary(staircase_groups(h, 1.0, 32)), (std::vector<T4>{{7, 0, 32, 0}}));
}

TEST(StaircaseGroups, EmptyRowsAndDegenerateCases)
{
    // 5 empty rows, 6 of length 1: with sh = 4 one slice of empty rows, the rest goes up.
    EXPECT_EQ(summary(staircase_groups({5, 6}, 0.0, 4)), (std::vector<T4>{{0, 0, 4, 0}, {1, 4, 8, 0}}));
    EXPECT_EQ(summary(staircase_groups({7}, 0.01, 4)), (std::vector<T4>{{0, 0, 8, 0}}));
    EXPECT_TRUE(staircase_groups({}, 0.01, 4).empty());
    EXPECT_TRUE(staircase_groups({0}, 0.01, 4).empty());
    EXPECT_THROW(staircase_groups({1}, 0.01, 0), std::invalid_argument);
    EXPECT_THROW(staircase_groups({1}, -1.0, 4), std::invalid_argument);
    // Every group but the last is whole slices; the groups tile the rows.
    std::mt19937 rng(3);
    for (int trial = 0; trial < 50; ++trial) {
        std::vector<index_type> h(1 + rng() % 30);
        index_type n = 0;
        for (auto& r : h) n += (r = static_cast<index_type>(rng() % 50));
        if (n == 0) continue;
        const index_type sh = 1 + static_cast<index_type>(rng() % 40);
        const double alpha = (rng() % 4) * 0.05;
        const Groups groups = staircase_groups(h, alpha, sh);
        ASSERT_FALSE(groups.empty());
        index_type row = 0, offset = 0;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            EXPECT_EQ(groups[g].row_start, row);
            EXPECT_EQ(groups[g].offset, offset);
            EXPECT_EQ(groups[g].rows % sh, 0);
            EXPECT_GT(groups[g].rows, 0);
            if (g > 0) EXPECT_GT(groups[g].length, groups[g - 1].length);
            row += groups[g].rows;
            offset += groups[g].rows * groups[g].length;
        }
        EXPECT_GE(row, n);
        EXPECT_LT(row - n, sh);
        index_type longest = static_cast<index_type>(h.size()) - 1;
        while (h[longest] == 0) --longest;
        EXPECT_EQ(groups.back().length, longest);
    }
}

TEST(StaircaseOrder, StableSortByLengthKeepsTheGivenOrderAsTieBreak)
{
    // Lengths of old rows 0..5: 2, 0, 3, 2, 0, 1.
    const std::vector<index_type> row_ptr{0, 2, 2, 5, 7, 7, 8};
    const std::vector<index_type> cm{3, 5, 0, 4, 2, 1};
    EXPECT_EQ(staircase_row_order(cm, row_ptr), (std::vector<index_type>{4, 1, 5, 3, 0, 2}));
}

TEST(StaircaseLayout, SlicesAreColumnMajorAndPadded)
{
    // A CSR already in the new order (row lengths below), laid out in slices of 2 rows; every
    // stored slot is checked against the layout formula.
    const std::vector<int> lengths{1, 0, 2, 1, 2, 2, 2, 3, 3};
    test::HostCsr<double> m;
    m.rows = m.cols = static_cast<index_type>(lengths.size());
    m.ptr = {0};
    for (index_type i = 0; i < m.rows; ++i) {
        for (int k = 0; k < lengths[i]; ++k) {
            m.col.push_back(k);
            m.val.push_back(100.0 * i + k + 1);
        }
        m.ptr.push_back(static_cast<index_type>(m.col.size()));
    }
    const index_type sh = 2;
    const auto exec = Executor::create_cpu();
    // Histogram {1, 2, 4, 2} with alpha = 0: length 0 (1 row) keeps no slice, goes up; length 1
    // gets 3 rows -> 1 slice + 1 up; length 2 gets 5 -> 2 slices + 1 up; length 3 gets 3 -> 2
    // slices (1 padding row).
    const Groups groups = staircase_groups({1, 2, 4, 2}, 0.0, sh);
    ASSERT_EQ(summary(groups), (std::vector<T4>{{1, 0, 2, 0}, {2, 2, 4, 2}, {3, 6, 4, 10}}));
    const auto a = make_staircase_matrix(test::to_csr(m, exec), groups, sh);
    ASSERT_EQ(a.stored_entries(), 22u);
    const auto col = a.col_idx.to_host();
    const auto val = a.values.to_host();
    for (const auto& g : groups) {
        for (index_type j = 0; j < g.rows; ++j) {
            const index_type row = g.row_start + j;
            const int len = row < m.rows ? lengths[row] : 0;
            for (index_type k = 0; k < g.length; ++k) {
                const index_type idx = g.offset + (j / sh) * g.length * sh + k * sh + j % sh;
                if (k < len) {
                    EXPECT_EQ(col[idx], k) << "row " << row << " k " << k;
                    EXPECT_EQ(val[idx], 100.0 * row + k + 1) << "row " << row << " k " << k;
                } else {
                    EXPECT_EQ(col[idx], -1) << "row " << row << " k " << k;
                    EXPECT_EQ(val[idx], 0.0) << "row " << row << " k " << k;
                }
            }
        }
    }
    // Spot checks of the column-major slice: slice 0 of group 2 (rows 2,3) is
    // [r2k0, r3k0, r2k1, pad]; group 3, slice 1 is row 8 and a padding row.
    EXPECT_EQ((std::vector<double>(val.begin() + 2, val.begin() + 6)),
              (std::vector<double>{201, 301, 202, 0}));
    EXPECT_EQ((std::vector<double>(val.begin() + 16, val.begin() + 22)),
              (std::vector<double>{801, 0, 802, 0, 803, 0}));
}

TEST(StaircaseBuild, RowsLandInTheExpectedGroups)
{
    std::vector<int> lengths;
    const auto m = hand_made_matrix(lengths);
    const auto exec = Executor::create_cpu();
    const auto cm = cuthill_mckee_order(m.rows, m.ptr, m.col, false);
    struct Case {
        double alpha;
        int sh;
        std::vector<int> group_lengths;
        std::vector<int> group_rows;  // stored rows per group
    };
    for (const Case& c : {Case{0.1, 4, {3, 7}, {12, 8}}, Case{0.65, 4, {5, 7}, {12, 8}},
                          Case{0.0, 2, {2, 3, 7}, {2, 10, 8}}, Case{5.0, 3, {7}, {21}}}) {
        StaircaseOptions options;
        options.alpha = c.alpha;
        options.slice_height = c.sh;
        const auto build = build_staircase_format(test::to_csr(m, exec), options);
        const auto perm = build.permutation.to_host();
        // sigma = CM order stably sorted by length.
        EXPECT_EQ(perm, staircase_row_order(cm, m.ptr));
        // Group of each new row, from the stored rows per group.
        std::vector<int> group_of;
        for (std::size_t g = 0; g < c.group_rows.size(); ++g)
            group_of.insert(group_of.end(), c.group_rows[g], static_cast<int>(g));
        for (index_type i = 0; i < m.rows; ++i) {
            const int len = lengths[perm[i]];
            const int g = group_of[i];
            EXPECT_LE(len, c.group_lengths[g]) << "alpha " << c.alpha << " new row " << i;
            if (c.alpha == 0.1) EXPECT_EQ(g, len <= 3 ? 0 : 1);   // 2,3 | 5,7
            if (c.alpha == 0.65) EXPECT_EQ(g, len <= 3 ? 0 : 1);  // 2,3 padded to 5 | 5,7
            if (c.alpha == 0.0) {  // the first two length-2 rows in CM order | rest of 2, 3 | 5, 7
                EXPECT_EQ(g, i < 2 ? 0 : (len <= 3 ? 1 : 2));
                if (i < 2) EXPECT_EQ(len, 2);
            }
            if (c.alpha == 5.0) EXPECT_EQ(g, 0);
        }
        std::string lens;
        for (int l : c.group_lengths) {
            if (!lens.empty()) lens += ',';
            lens += std::to_string(l);
        }
        EXPECT_NE(build.op->parameters().find("groups=" + std::to_string(c.group_lengths.size()) +
                                              " (lengths " + lens + ")"),
                  std::string::npos)
            << build.op->parameters();
    }
}

GPUFEM_VALUE_TYPED_SUITE(StaircaseSpmvCpu);

TYPED_TEST(StaircaseSpmvCpu, NewNumberingMatchesPermutedCsr)
{
    using V = TypeParam;
    const double tol = test::tolerance<V>();
    std::mt19937 rng(21);
    const auto exec = Executor::create_cpu();
    for (const auto& [rows, max_len, long_every] :
         {std::tuple{1, 3, 0}, std::tuple{37, 6, 0}, std::tuple{100, 9, 13}, std::tuple{1003, 27, 101},
          std::tuple{2500, 12, 0}}) {
        const auto m = test::random_csr<V>(rows, rows, max_len, rng, long_every, std::min(rows, 200));
        for (const auto& [alpha, sh] : {std::tuple{0.0, 1}, std::tuple{0.0, 32}, std::tuple{0.01, 32},
                                        std::tuple{0.05, 7}, std::tuple{0.2, 64}, std::tuple{10.0, 33}}) {
            StaircaseOptions options;
            options.alpha = alpha;
            options.slice_height = sh;
            const auto build = build_staircase_format(test::to_csr(m, exec), options);
            const auto perm = build.permutation.to_host();
            ASSERT_EQ(perm.size(), static_cast<std::size_t>(rows));
            {
                auto sorted = perm;
                std::sort(sorted.begin(), sorted.end());
                std::vector<index_type> iota(rows);
                std::iota(iota.begin(), iota.end(), 0);
                ASSERT_EQ(sorted, iota);
            }
            // Fresh x and y in the new numbering; the oracle works in the old one.
            const auto x_new = test::random_vector<V>(rows, rng), y_new = test::random_vector<V>(rows, rng);
            std::vector<V> x_old(rows), y_old(rows);
            for (index_type i = 0; i < rows; ++i) {
                x_old[perm[i]] = x_new[i];
                y_old[perm[i]] = y_new[i];
            }
            for (const auto& [a, b] : {std::pair{V(1), V(0)}, std::pair{V(1.5), V(-0.5)}}) {
                const auto ref_old = test::dense_reference(m, a, x_old, b, y_old);
                std::vector<long double> ref(rows);
                for (index_type i = 0; i < rows; ++i) ref[i] = ref_old[perm[i]];
                const auto x = Array<V>::from_host(exec, x_new);
                auto y = Array<V>::from_host(exec, y_new);
                build.op->apply(a, x, b, y);
                EXPECT_LT(test::relative_max_error(y.to_host(), ref), tol)
                    << rows << " rows, alpha " << alpha << " sh " << sh << " " << build.op->parameters();
            }
        }
    }
}

TEST(StaircaseSpmvCpuMisc, BetaZeroIgnoresNanAndReportsItself)
{
    std::mt19937 rng(8);
    const auto exec = Executor::create_cpu();
    const auto m = test::random_csr<double>(77, 77, 8, rng);
    StaircaseOptions options;
    options.alpha = 0.05;
    options.slice_height = 8;
    options.streams = false;
    const auto build = build_staircase_format(test::to_csr(m, exec), options);
    EXPECT_EQ(test::nans_in_product(*build.op, test::random_vector<double>(77, rng)), 0u);

    EXPECT_EQ(build.op->format(), "staircase");
    const std::string p = build.op->parameters();
    EXPECT_NE(p.find("alpha=0.05 sh=8 groups="), std::string::npos) << p;
    EXPECT_NE(p.find("streams=off"), std::string::npos) << p;
    EXPECT_GT(build.convert_seconds, 0.0);
    EXPECT_FALSE(build.host_steps.empty());
    // Bytes: values and columns of every stored slot (padding included) and the group table;
    // one SpMV reads the slots once, x once, and writes y once.
    std::vector<index_type> h(9, 0);
    for (index_type i = 0; i < 77; ++i) ++h[m.ptr[i + 1] - m.ptr[i]];
    while (h.back() == 0) h.pop_back();
    const auto groups = staircase_groups(h, 0.05, 8);
    const std::size_t stored = static_cast<std::size_t>(groups.back().offset) +
                               static_cast<std::size_t>(groups.back().rows) * groups.back().length;
    EXPECT_GE(stored, m.col.size());
    EXPECT_EQ(build.op->bytes_stored(),
              stored * (sizeof(double) + sizeof(index_type)) + groups.size() * sizeof(StaircaseGroup));
    EXPECT_EQ(build.op->spmv_min_bytes(),
              stored * (sizeof(double) + sizeof(index_type)) + 2 * 77 * sizeof(double));
}

TEST(StaircaseSpmvCpuMisc, RefusesBadInput)
{
    std::mt19937 rng(9);
    const auto exec = Executor::create_cpu();
    const auto rect = test::random_csr<double>(10, 12, 3, rng);
    EXPECT_THROW(build_staircase_format(test::to_csr(rect, exec), StaircaseOptions{}), std::invalid_argument);
    const auto sq = test::random_csr<double>(10, 10, 3, rng);
    StaircaseOptions options;
    options.slice_height = 0;
    EXPECT_THROW(build_staircase_format(test::to_csr(sq, exec), options), std::invalid_argument);
    options.slice_height = 4;
    options.alpha = -0.5;
    EXPECT_THROW(build_staircase_format(test::to_csr(sq, exec), options), std::invalid_argument);
}

TEST(StaircaseSpmvCpuMisc, EmptyMatrix)
{
    const auto exec = Executor::create_cpu();
    test::HostCsr<double> m;
    m.ptr = {0};
    const auto build = build_staircase_format(test::to_csr(m, exec), StaircaseOptions{});
    const Array<double> x(exec, 0);
    Array<double> y(exec, 0);
    build.op->apply(x, y);
    EXPECT_EQ(build.op->rows(), 0);
}
