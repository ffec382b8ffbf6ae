#pragma once
// Classical (Ruge-Stueben style) coarsening of one AMG level, on the matrix's executor: the
// strength of connection on the couplings of the opposite sign to the diagonal, a C/F
// splitting by PMIS (De Sterck, Yang and Heys 2006) and the extended+i interpolation (De
// Sterck, Falgout, Nolting and Yang 2008), truncated to a few entries a row. The coarse points
// are a subset of the fine ones; their interpolation rows are the identity. The CPU and CUDA
// backends make the same strength, splitting and interpolation (classical_kernels.hpp).
#include <cstdint>

#include "linalg/array.hpp"
#include "linalg/csr.hpp"

namespace gpufem {

/// The C/F splitting of one level.
struct CoarseSplitting {
    Array<index_type> coarse_of;  ///< coarse number of each C point, -1 for F points
    index_type count = 0;         ///< C points = rows of the next level
    int rounds = 0;               ///< rounds of the independent set
};

/// Per stored entry of a: 1 where strong (row i depends on column j), for the off-diagonal
/// a_ij of the opposite sign to a_ii with |a_ij| >= theta max_k |a_ik| over the row's entries
/// of that sign. A row without such an entry depends on nothing. Rows' columns sorted.
template <typename V>
Array<std::uint8_t> classical_strength(const Csr<V>& a, double theta);

/// PMIS: the points ranked by how many depend on them (plus a fixed pseudo-random fraction);
/// each round, undecided points ranked above every undecided point they depend on or that
/// depends on them become C, and the undecided points that depend on a new C point become F.
/// Points on which nothing depends are F from the start. Deterministic.
template <typename V>
CoarseSplitting pmis_splitting(const Csr<V>& a, const Array<std::uint8_t>& strong);

/// The extended+i interpolation of the splitting over the strong couplings `strong` (rows: a's
/// points, columns: the C points), each F row truncated to its max_entries largest weights
/// (0: all; the kept positive and negative weights rescaled to their parts' sums). An F row
/// interpolates from nothing when it reaches no C point or its lumped diagonal vanishes.
template <typename V>
Csr<V> extended_interpolation(const Csr<V>& a, const Array<std::uint8_t>& strong, const CoarseSplitting& splitting,
                              int max_entries);

}  // namespace gpufem
