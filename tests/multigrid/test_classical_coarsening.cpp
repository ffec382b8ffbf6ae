// Classical coarsening: the strength of connection, the PMIS splitting and the extended+i
// interpolation against their definitions on random weighted Laplacians.
#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "amg_test_support.hpp"
#include "random_values.hpp"
#include "solver/multigrid/classical_coarsening.hpp"

namespace gpufem {
namespace {

ExecPtr host() { return Executor::create_cpu(); }

/// A splitting read back to the host.
struct HostSplit {
    std::vector<index_type> coarse_of;
    index_type count = 0;
    int rounds = 0;
};

/// classical_strength, read back to the host.
std::vector<std::uint8_t> strength_of(const Csr<double>& a, double theta)
{
    return classical_strength(a, theta).to_host();
}

/// pmis_splitting of a host strength, read back to the host.
HostSplit split_of(const Csr<double>& a, const std::vector<std::uint8_t>& strong)
{
    const CoarseSplitting s = pmis_splitting(a, Array<std::uint8_t>::from_host(a.executor(), strong));
    return {s.coarse_of.to_host(), s.count, s.rounds};
}

/// extended_interpolation of a host strength and splitting.
Csr<double> interpolate(const Csr<double>& a, const std::vector<std::uint8_t>& strong, const HostSplit& s,
                        int entries)
{
    const CoarseSplitting on{Array<index_type>::from_host(a.executor(), s.coarse_of), s.count, s.rounds};
    return extended_interpolation(a, Array<std::uint8_t>::from_host(a.executor(), strong), on, entries);
}

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
    std::vector<std::uint8_t> strong = strength_of(a, 0.25);
    HostSplit s = split_of(a, strong);
};

TEST(ClassicalCoarsening, StrengthKeepsTheNegativeCouplingsAboveTheThresholdOfTheRowsLargest)
{
    const unsigned seed = test::random_seed();
    const Csr<double> a = test::weighted_laplacian_3d<double>(host(), 9, 8, 7, seed);
    const test::HostMatrix h = test::to_host(a);
    for (const double theta : {0.25, 0.6, 0.9}) {
        const std::vector<std::uint8_t> strong = strength_of(a, theta);
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
        for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k)
            on_coarse = on_coarse || (strong[k] && s.coarse_of[h.col[k]] >= 0);
        EXPECT_TRUE(influences[i] == 0 || on_coarse) << "F point " << i << " seed " << seed;
    }
    EXPECT_EQ(numbered, s.count);
    EXPECT_EQ(split_of(a, strong).coarse_of, s.coarse_of) << "deterministic";
}

TEST(ClassicalCoarsening, InterpolationIsTheIdentityOnCPointsAndKeepsConstantsWhereRowsSumToZero)
{
    const SplitLaplacian split;
    const auto& [seed, a, h, strong, s] = split;
    int checked = 0, direct = 0;
    for (const int entries : {0, 4, 2}) {
        const test::HostMatrix p = test::to_host(interpolate(a, strong, s, entries));
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
            for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k)
                strong_fine = strong_fine || (strong[k] && s.coarse_of[h.col[k]] < 0);
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

/// The extended+i weights of F row i written out from the formula (dense lookups, sets), the
/// oracle of extended_interpolation: column (fine index) -> weight; empty when C-hat is.
std::map<index_type, double> extended_row_oracle(const test::HostMatrix& h, const std::vector<std::uint8_t>& strong,
                                                 const HostSplit& s, index_type i)
{
    const auto entry = [&](index_type r, index_type c) {
        for (index_type k = h.ptr[r]; k < h.ptr[r + 1]; ++k)
            if (h.col[k] == c) return h.val[k];
        return 0.0;
    };
    const auto bar = [&](index_type r, index_type c) {  // a_rc if of the opposite sign to a_rr
        const double v = entry(r, c);
        return (entry(r, r) < 0 ? -v : v) < 0 ? v : 0.0;
    };
    std::set<index_type> hat, strong_fine;
    for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k) {
        if (!strong[k]) continue;
        if (s.coarse_of[h.col[k]] >= 0) {
            hat.insert(h.col[k]);
            continue;
        }
        strong_fine.insert(h.col[k]);
        for (index_type q = h.ptr[h.col[k]]; q < h.ptr[h.col[k] + 1]; ++q)
            if (strong[q] && s.coarse_of[h.col[q]] >= 0) hat.insert(h.col[q]);
    }
    std::map<index_type, double> w;
    if (hat.empty()) return w;
    double diag = entry(i, i);
    for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k)
        if (h.col[k] != i && !hat.count(h.col[k]) && !strong_fine.count(h.col[k])) diag += h.val[k];
    for (index_type j : hat) w[j] = entry(i, j);
    for (index_type k : strong_fine) {
        double total = bar(k, i);
        for (index_type l : hat) total += bar(k, l);
        if (total == 0) {
            diag += entry(i, k);
            continue;
        }
        diag += entry(i, k) * bar(k, i) / total;
        for (index_type j : hat) w[j] += entry(i, k) * bar(k, j) / total;
    }
    for (auto& [j, v] : w) v = -v / diag;
    return w;
}

TEST(ClassicalCoarsening, InterpolationEqualsTheFormulaWithPositiveCouplingsAndUnequalRowSums)
{
    // A weighted Laplacian with a fifth of its couplings turned positive (weak, of the diagonal's
    // sign) and its diagonal raised: rows that do not sum to zero, as P2 and P3 matrices have.
    const unsigned seed = test::random_seed();
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const Csr<double> base = test::weighted_laplacian_3d<double>(host(), 10, 9, 8, seed);
    std::vector<double> values = base.values.to_host();
    const std::vector<index_type> ptr = base.row_ptr.to_host(), col = base.col_idx.to_host();
    for (index_type i = 0; i < base.rows; ++i)
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k)
            if (col[k] == i)
                values[k] *= 1 + unit(random);
            else if (unit(random) < 0.2)
                values[k] = 0.3 * std::abs(values[k]);
    const Csr<double> a{base.rows, base.cols, base.row_ptr.clone_to(host()), base.col_idx.clone_to(host()),
                        Array<double>::from_host(host(), values)};
    const test::HostMatrix h = test::to_host(a);
    const std::vector<std::uint8_t> strong = strength_of(a, 0.25);
    const HostSplit s = split_of(a, strong);
    std::vector<index_type> fine_of(static_cast<std::size_t>(s.count));
    for (index_type i = 0; i < h.rows; ++i)
        if (s.coarse_of[i] >= 0) fine_of[s.coarse_of[i]] = i;
    const test::HostMatrix p = test::to_host(interpolate(a, strong, s, 0));
    const test::HostMatrix cut = test::to_host(interpolate(a, strong, s, 3));
    int rows = 0, distance_two = 0;
    for (index_type i = 0; i < h.rows; ++i) {
        if (s.coarse_of[i] >= 0) continue;
        const std::map<index_type, double> expected = extended_row_oracle(h, strong, s, i);
        ASSERT_EQ(p.ptr[i + 1] - p.ptr[i], static_cast<index_type>(expected.size())) << "row " << i << " seed " << seed;
        for (index_type k = p.ptr[i]; k < p.ptr[i + 1]; ++k) {
            const auto at = expected.find(fine_of[p.col[k]]);
            ASSERT_NE(at, expected.end()) << "row " << i;
            EXPECT_NEAR(p.val[k], at->second, 1e-12 * (1 + std::abs(at->second))) << "row " << i << " seed " << seed;
        }
        bool beyond = false;  // does row i reach a C point that is not its neighbour?
        for (const auto& [j, v] : expected) {
            bool neighbour = false;
            for (index_type k = h.ptr[i]; k < h.ptr[i + 1]; ++k) neighbour = neighbour || h.col[k] == j;
            beyond = beyond || !neighbour;
        }
        distance_two += beyond ? 1 : 0;
        ++rows;
        // Truncated to 3: the 3 largest weights, positive and negative parts each keeping their sum.
        if (expected.size() <= 3) continue;
        std::vector<double> magnitudes;
        double positive = 0, negative = 0;
        for (const auto& [j, v] : expected) {
            magnitudes.push_back(std::abs(v));
            (v > 0 ? positive : negative) += v;
        }
        std::sort(magnitudes.rbegin(), magnitudes.rend());
        ASSERT_EQ(cut.ptr[i + 1] - cut.ptr[i], 3) << "row " << i;
        double kept_positive = 0, kept_negative = 0, kept_positive_before = 0, kept_negative_before = 0;
        for (index_type k = cut.ptr[i]; k < cut.ptr[i + 1]; ++k) {
            const double before = expected.at(fine_of[cut.col[k]]);
            EXPECT_GE(std::abs(before), magnitudes[2] * (1 - 1e-12)) << "row " << i << " keeps a small weight";
            (cut.val[k] > 0 ? kept_positive : kept_negative) += cut.val[k];
            (before > 0 ? kept_positive_before : kept_negative_before) += before;
        }
        if (kept_positive_before != 0) EXPECT_NEAR(kept_positive, positive, 1e-12) << "row " << i;
        if (kept_negative_before != 0) EXPECT_NEAR(kept_negative, negative, 1e-12) << "row " << i;
    }
    std::cout << "[ classical] " << rows << " F rows against the formula, " << distance_two
              << " reaching C points beyond their neighbours (seed " << seed << ")\n";
    EXPECT_GT(distance_two, 10);
}

TEST(ClassicalCoarsening, ARowWhoseLumpedDiagonalVanishesInterpolatesFromNothingAndSparesTheNext)
{
    // Points 0 and 1 are F, 2 and 3 are C. Row 0 couples to 2 and 3 and its diagonal cancels
    // its weak coupling to 1 (a_00 + a_01 = 0): no interpolation. Row 1 then interpolates from
    // both C points as though row 0 had never been made.
    const std::vector<index_type> ptr{0, 4, 8, 10, 12};
    const std::vector<index_type> col{0, 1, 2, 3, 0, 1, 2, 3, 0, 2, 1, 3};
    const std::vector<double> val{0.2, -0.2, -1.0, -1.0, -0.2, 4.0, -1.0, -3.0, -1.0, 4.0, -3.0, 4.0};
    const Csr<double> a{4, 4, Array<index_type>::from_host(host(), ptr), Array<index_type>::from_host(host(), col),
                        Array<double>::from_host(host(), val)};
    std::vector<std::uint8_t> strong(col.size(), 0);
    for (const std::size_t k : {2, 3, 6, 7}) strong[k] = 1;  // rows 0 and 1 depend on 2 and 3
    const HostSplit s{{-1, -1, 0, 1}, 2, 1};
    const test::HostMatrix p = test::to_host(interpolate(a, strong, s, 0));
    EXPECT_EQ(p.ptr[1] - p.ptr[0], 0);
    ASSERT_EQ(p.ptr[2] - p.ptr[1], 2);
    // Row 1: a_10 weak, lumped: diagonal 4 - 0.2 = 3.8; weights 1 / 3.8 and 3 / 3.8.
    EXPECT_EQ(p.col[p.ptr[1]], 0);
    EXPECT_EQ(p.col[p.ptr[1] + 1], 1);
    EXPECT_NEAR(p.val[p.ptr[1]], 1.0 / 3.8, 1e-15);
    EXPECT_NEAR(p.val[p.ptr[1] + 1], 3.0 / 3.8, 1e-15);
}

}  // namespace
}  // namespace gpufem
