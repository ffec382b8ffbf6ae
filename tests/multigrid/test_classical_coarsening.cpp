// Classical coarsening: the strength of connection, the PMIS splitting and the extended+i
// interpolation against their definitions on random weighted Laplacians.
#include <cmath>
#include <iostream>
#include <vector>

#include <gtest/gtest.h>

#include "amg_test_support.hpp"
#include "random_values.hpp"
#include "solver/multigrid/classical_coarsening.hpp"

namespace gpufem {
namespace {

ExecPtr host() { return Executor::create_cpu(); }

/// The strong pattern's symmetric closure: does i depend on j or j on i?
bool strongly_coupled(const test::HostMatrix& h, const std::vector<std::uint8_t>& strong, index_type i, index_type j)
{
    for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k)
        if (h.col[k] == j && strong[k]) return true;
    for (index_type k = h.ptr[j]; k < h.ptr[j + 1]; ++k)
        if (h.col[k] == i && strong[k]) return true;
    return false;
}

/// A random weighted 3D Laplacian (Dirichlet rows on its boundary), its strength at 0.25 and
/// its PMIS splitting.
struct SplitLaplacian {
    unsigned seed = test::random_seed();
    Csr<double> a = test::weighted_laplacian_3d<double>(host(), 12, 11, 10, seed);
    test::HostMatrix h = test::to_host(a);
    std::vector<std::uint8_t> strong = classical_strength(a, 0.25);
    CoarseSplitting s = pmis_splitting(a, strong);
};

TEST(ClassicalCoarsening, StrengthKeepsTheNegativeCouplingsAboveTheThresholdOfTheRowsLargest)
{
    const unsigned seed = test::random_seed();
    const Csr<double> a = test::weighted_laplacian_3d<double>(host(), 9, 8, 7, seed);
    const test::HostMatrix h = test::to_host(a);
    for (const double theta : {0.25, 0.6, 0.9}) {
        const std::vector<std::uint8_t> strong = classical_strength(a, theta);
        ASSERT_EQ(strong.size(), a.nnz());
        for (index_type i = 0; i < h.rows; ++i) {
            double largest = 0;
            for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k)
                if (h.col[k] != i) largest = std::max(largest, -h.val[k]);
            for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k) {
                const bool expected = h.col[k] != i && largest > 0 && -h.val[k] >= theta * largest;
                EXPECT_EQ(strong[k] != 0, expected) << "row " << i << " column " << h.col[k] << " theta " << theta
                                                    << " seed " << seed;
            }
        }
    }
}

TEST(ClassicalCoarsening, PmisChoosesAnIndependentSetAndEveryOtherDependingPointDependsOnIt)
{
    const SplitLaplacian split;
    const auto& [seed, a, h, strong, s] = split;
    ASSERT_EQ(s.coarse_of.size(), static_cast<std::size_t>(h.rows));
    EXPECT_GT(s.count, h.rows / 20) << "seed " << seed;
    EXPECT_LT(s.count, h.rows / 2) << "seed " << seed;
    EXPECT_GE(s.rounds, 1);
    std::vector<int> influences(static_cast<std::size_t>(h.rows), 0);
    for (index_type i = 0; i < h.rows; ++i)
        for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k)
            if (strong[k]) ++influences[h.col[k]];
    index_type numbered = 0;
    for (index_type i = 0; i < h.rows; ++i) {
        if (s.coarse_of[i] >= 0) {
            EXPECT_EQ(s.coarse_of[i], numbered++) << "C points are numbered in order";
            for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k)
                if (h.col[k] != i && s.coarse_of[h.col[k]] >= 0)
                    EXPECT_FALSE(strongly_coupled(h, strong, i, h.col[k])) << "C points " << i << ", " << h.col[k];
            continue;
        }
        // An F point: nothing depends on it, or it depends on a C point.
        bool on_coarse = false;
        for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k) on_coarse = on_coarse || (strong[k] && s.coarse_of[h.col[k]] >= 0);
        EXPECT_TRUE(influences[i] == 0 || on_coarse) << "F point " << i << " seed " << seed;
    }
    EXPECT_EQ(numbered, s.count);
    EXPECT_EQ(pmis_splitting(a, strong).coarse_of, s.coarse_of) << "deterministic";
}

TEST(ClassicalCoarsening, InterpolationIsTheIdentityOnCPointsAndKeepsConstantsWhereRowsSumToZero)
{
    const SplitLaplacian split;
    const auto& [seed, a, h, strong, s] = split;
    int checked = 0, direct = 0;
    for (const int entries : {0, 4, 2}) {
        const test::HostMatrix p = test::to_host(extended_interpolation(a, strong, s, entries, host()));
        ASSERT_EQ(p.rows, h.rows);
        ASSERT_EQ(p.cols, s.count);
        for (index_type i = 0; i < h.rows; ++i) {
            const index_type length = p.ptr[i + 1] - p.ptr[i];
            if (s.coarse_of[i] >= 0) {
                ASSERT_EQ(length, 1) << "C point " << i;
                EXPECT_EQ(p.col[p.ptr[i]], s.coarse_of[i]);
                EXPECT_EQ(p.val[p.ptr[i]], 1.0);
                continue;
            }
            if (entries > 0) EXPECT_LE(length, entries) << "row " << i;
            for (index_type k = p.ptr[i] + 1; k < p.ptr[i + 1]; ++k) EXPECT_LT(p.col[k - 1], p.col[k]);
            double row_sum = 0, diagonal = 0, p_sum = 0;
            for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k) {
                row_sum += h.val[k];
                if (h.col[k] == i) diagonal = h.val[k];
            }
            for (index_type k = p.ptr[i]; k < p.ptr[i + 1]; ++k) p_sum += p.val[k];
            if (length > 0 && std::abs(row_sum) < 1e-14 * diagonal) {
                EXPECT_NEAR(p_sum, 1.0, 1e-13) << "row " << i << " entries " << entries << " seed " << seed;
                ++checked;
            }
            // Without strong F neighbours ext+i is direct interpolation: -a_ij / (a_ii + the
            // couplings to the points it does not interpolate from).
            bool strong_fine = false;
            for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k) strong_fine = strong_fine || (strong[k] && s.coarse_of[h.col[k]] < 0);
            if (entries != 0 || strong_fine || length == 0) continue;
            double lumped = 0;
            for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k)
                if (!(strong[k] && s.coarse_of[h.col[k]] >= 0)) lumped += h.val[k];
            for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k) {
                if (!(strong[k] && s.coarse_of[h.col[k]] >= 0)) continue;
                index_type q = p.ptr[i];
                while (q < p.ptr[i + 1] && p.col[q] != s.coarse_of[h.col[k]]) ++q;
                ASSERT_LT(q, p.ptr[i + 1]) << "row " << i << " misses its strong C neighbour " << h.col[k];
                EXPECT_NEAR(p.val[q], -h.val[k] / lumped, 1e-14) << "row " << i;
                ++direct;
            }
        }
    }
    std::cout << "[ classical] " << checked << " rows with zero sums, " << direct << " direct weights checked (seed "
              << seed << ")\n";
    EXPECT_GT(checked, 500);
    EXPECT_GT(direct, 0);
}

}  // namespace
}  // namespace gpufem
