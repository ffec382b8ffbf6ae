#pragma once
// The `lma` format: the local matrix approach (000_… §8.2). Element matrices are kept as
// computed, element-interleaved (see lma_kernels.hpp), and applied as
// y = alpha P^T K_e P x + beta y, with atomics or one launch per element colour.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "linalg/linear_operator.hpp"

namespace gpufem {

/// How the cells' contributions are added into y.
enum class LmaScatter {
    atomic,  ///< all cells in one launch, atomicAdd into y
    colour,  ///< one launch per colour, plain adds: bitwise reproducible
};

/// Options of the LMA operator.
struct LmaOptions {
    LmaScatter scatter = LmaScatter::colour;
    bool symmetric = false;  ///< store only the upper triangle of each element matrix
};

/// A = sum_e P_e^T K_e P_e with Dirichlet nodes eliminated symmetrically (the operator of the
/// assembled matrix after apply_dirichlet: masked rows and columns zero except a_ii).
template <typename V>
class LmaOperator final : public LinearOperator<V> {
public:
    /// See make_lma_operator.
    LmaOperator(const ExecPtr& exec, const Array<index_type>& cells, int npe, index_type num_nodes,
                const Array<V>& element_matrices, const Array<std::uint8_t>& dirichlet_mask,
                LmaOptions options);

    index_type rows() const override { return num_nodes_; }
    index_type cols() const override { return num_nodes_; }
    const ExecPtr& executor() const override { return exec_; }
    std::string format() const override { return "lma"; }
    /// Matrices, interleaved connectivity, colour offsets, diagonal and mask.
    std::size_t bytes_stored() const override;
    /// Matrices once, connectivity once, x gathered once per cell-node, y read and written
    /// once (and, with a mask, the mask and diagonal once).
    std::size_t spmv_min_bytes() const override;
    /// e.g. "scatter=colour symmetric=no colours=4 npe=9".
    std::string parameters() const override;

    /// The assembled diagonal a_ii = sum_e K_e(i, i) (kept on Dirichlet rows too).
    const Array<V>& diagonal() const { return diagonal_; }
    /// Number of colours (1 for the atomic variant).
    int num_colours() const { return static_cast<int>(colour_offsets_.size()) - 1; }
    /// Cell positions of each colour: [colour_offsets()[c], colour_offsets()[c + 1]).
    const std::vector<index_type>& colour_offsets() const { return colour_offsets_; }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override;

private:
    ExecPtr exec_;
    int npe_;
    index_type num_cells_;
    index_type num_nodes_;
    LmaOptions options_;
    Array<index_type> connectivity_;  ///< interleaved, cells in colour order
    Array<V> matrices_;               ///< interleaved, cells in colour order
    Array<V> diagonal_;
    Array<std::uint8_t> mask_;        ///< empty: no Dirichlet nodes
    std::vector<index_type> colour_offsets_;
};

/// Builds the LMA operator on exec from the cell connectivity (npe nodes per cell, cell-major,
/// on exec; copied into the operator's own interleaved order) and the element matrices as
/// kernels::*::element_matrices writes them (cell-major, row-major per cell). dirichlet_mask:
/// one byte per node (non-zero = Dirichlet), or empty.
template <typename V>
std::unique_ptr<LmaOperator<V>> make_lma_operator(const ExecPtr& exec,
                                                  const Array<index_type>& cells, int npe,
                                                  index_type num_nodes,
                                                  const Array<V>& element_matrices,
                                                  const Array<std::uint8_t>& dirichlet_mask,
                                                  LmaOptions options);

}  // namespace gpufem
