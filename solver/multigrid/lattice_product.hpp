#pragma once
// The Galerkin products of grid transfers by windows on the coarse grid's lattice
// (lattice_product_kernels.hpp): A P and R (A P) for p-multigrid's levels down a generated
// grid's halvings, on one process and across ranks, with the general sparse product where a
// row does not fit its window.
#include <vector>

#include "linalg/csr.hpp"
#include "mesh/structured_grid.hpp"
#include "solver/multigrid/amg_kernels.hpp"
#include "solver/multigrid/lattice_product_kernels.hpp"

namespace gpufem {

/// A coarse grid level's unknowns as lattice points, on an executor (empty: not a grid level).
struct CoarseLattice {
    Array<std::uint64_t> points;  ///< per unknown (global number), packed_point
    int dim = 0;
    /// The same points in 32 bits (narrow_point) when every coordinate is below
    /// 2^narrow_axis_bits - 1, else empty: what the products read then.
    Array<std::uint32_t> narrow;

    bool empty() const { return points.empty(); }
};

/// The lattice of a grid's node numbering (one process: box_grid's numbers), on exec; empty
/// when an axis has more points than a packed point holds.
CoarseLattice coarse_lattice(const StructuredGrid& grid, const ExecPtr& exec);

/// The lattice of parts' boxes numbered part after part (offsets: part q's first number, then
/// the total), on exec; empty when an axis reaches past a packed point's range.
CoarseLattice coarse_lattice(const std::vector<index_type>& offsets, const std::vector<GridBox>& boxes, int dim,
                             const ExecPtr& exec);

/// C = A B for B's columns on lattice: by windows around each row's centre (see WindowCentre;
/// first: the number of row 0's point for row_point), or by sparse_product when a row does not
/// fit its window or the lattice is empty. The same C either way (columns sorted, structural
/// entries kept); on a's executor. A with 64-bit row offsets (O = wide_offset_type: a rank's
/// rows past 2^31 - 1 entries) has no general product to fall back on: then a row that leaves
/// its window throws std::invalid_argument.
template <typename V, typename O>
Csr<V> lattice_product(const Csr<V, O>& a, const Csr<V>& b, const CoarseLattice& lattice, WindowCentre centre,
                       index_type first = 0);

/// C = [local | ghost] B (a rank's owned rows: its owned columns, then its ghost columns
/// numbered after them) as lattice_product of the joined rows gives it, without a joined copy
/// of the rank's matrix when every row fits its window; else the general product of the
/// joined rows (with 64-bit offsets: std::invalid_argument as above).
template <typename V, typename O>
Csr<V> lattice_product(const Csr<V, O>& local, const Csr<V>& ghost, const Csr<V>& b, const CoarseLattice& lattice,
                       WindowCentre centre);

/// [left | right]: each row's entries of left, then right's with their columns after left's
/// (left's row offsets' type O), on left's executor.
template <typename V, typename O>
Csr<V, O> joined(const Csr<V, O>& left, const Csr<V>& right);

/// R A P for the transfer p into lattice's grid and r = P^T (lattice_product twice; empty
/// lattice: sparse products). a's row offsets of type O (64 bits: no general product to fall
/// back on, as lattice_product).
template <typename V, typename O>
Csr<V> lattice_galerkin(const Csr<V>& r, const Csr<V, O>& a, const Csr<V>& p, const CoarseLattice& lattice);

/// R A P in float from A's entries in double, each rounded to float as the product reads it:
/// the same matrix as lattice_galerkin(r, rounded_to_float(a), p, lattice), without the
/// rounded copy of A (where a row leaves its window the copy is made for the general product).
Csr<float> lattice_galerkin(const Csr<float>& r, const Csr<double>& a, const Csr<float>& p,
                            const CoarseLattice& lattice);

}  // namespace gpufem
