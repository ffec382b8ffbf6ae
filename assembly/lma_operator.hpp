#pragma once
// The `lma` format: the local matrix approach (Reguly & Giles 2012, §8.2). Element matrices
// are kept as computed, element-interleaved (see lma_kernels.hpp), and applied as
// y = alpha P^T K_e P x + beta y, with atomics or one launch per element colour.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "assembly/lma_kernels.hpp"
#include "linalg/float_copy.hpp"
#include "linalg/host_vector.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// How the cells' contributions are added into y.
enum class LmaScatter {
    atomic,  ///< all cells in one launch, atomicAdd into y
    colour,  ///< one launch per colour, plain adds: bitwise reproducible
};

/// Options of the LMA operator (the `lma` format's format_options.lma).
struct LmaOptions {
    LmaScatter scatter = LmaScatter::atomic;
    bool symmetric = false;  ///< store only the upper triangle of each element matrix
    LmaKernel kernel = LmaKernel::automatic;  ///< CUDA apply kernel (the CPU has one)
};

/// Element matrices already in the operator's interleaved layout for the cells in their own
/// order (kernels::*::element_matrices_interleaved with stride lma_stride(cells)).
template <typename V>
struct InterleavedElementMatrices {
    Array<V> values;
};

/// A = sum_e P_e^T K_e P_e with Dirichlet nodes eliminated symmetrically (the operator of the
/// assembled matrix after apply_dirichlet: masked rows and columns zero except a_ii). Its
/// diagonal() is the assembled one, a_ii = sum_e K_e(i, i) (kept on Dirichlet rows too).
template <typename V>
class LmaOperator final : public LinearOperator<V>, public FloatCopyable {
public:
    /// See make_lma_operator.
    LmaOperator(const ExecPtr& exec, const Array<index_type>& cells, int npe, index_type num_nodes,
                const Array<V>& element_matrices, const Array<std::uint8_t>& dirichlet_mask,
                LmaOptions options, index_type colour_split = -1);
    /// See make_lma_operator with interleaved matrices (atomic scatter only).
    LmaOperator(const ExecPtr& exec, const Array<index_type>& cells, int npe, index_type num_nodes,
                InterleavedElementMatrices<V> matrices, const Array<std::uint8_t>& dirichlet_mask,
                LmaOptions options);

    index_type rows() const override { return num_nodes_; }
    index_type cols() const override { return num_nodes_; }
    const ExecPtr& executor() const override { return exec_; }
    std::string format() const override { return "lma"; }
    /// Matrices, interleaved connectivity (padding slots included), colour offsets, diagonal,
    /// mask and Dirichlet node list.
    std::size_t bytes_stored() const override;
    /// Matrices once, connectivity once, x gathered once per cell-node, y read and written
    /// once (and the Dirichlet nodes' index, x, diagonal and y once).
    std::size_t spmv_min_bytes() const override;
    /// e.g. "scatter=colour symmetric=no kernel=tile colours=4 npe=9".
    std::string parameters() const override;
    /// The operator with its element matrices and diagonal rounded to float (the same cells,
    /// order, kernel and Dirichlet nodes), for a float multigrid cycle.
    std::unique_ptr<LinearOperator<float>> float_copy() const override;
    /// float_copy as an LmaOperator (a mixed mesh's blocks).
    std::unique_ptr<LmaOperator<float>> lma_float_copy() const;

    /// Number of colours (1 for the atomic variant).
    int num_colours() const { return static_cast<int>(colour_begin_.size()); }
    /// Colours of the cells before the colour split (make_lma_operator): colours
    /// [0, colours_before_split()) hold only those cells, the others only the cells after it
    /// (num_colours() without a split).
    int colours_before_split() const { return colours_before_split_; }
    /// y += alpha sum of K_e x_e over the cells of colours [first, last) (raw arrays on the
    /// executor, in the operator's numbering; Dirichlet rows untouched): one launch per colour,
    /// with the operator's scatter. apply is the diagonal's Dirichlet rows plus every colour.
    void apply_colours(int first, int last, V alpha, const V* x, V* y) const;
    /// The apply kernel in use (automatic resolved).
    LmaKernel kernel() const { return kernel_; }
    /// The stored element matrices, for readers of the layout (p-multigrid's coarse
    /// operators): interleaved, entry k of the cell at slot p at k * stride() + p (symmetric:
    /// the packed upper triangle), the cells in their own order (slot e = cell e) with the
    /// atomic scatter; connectivity() alike, Dirichlet nodes as ~node.
    LmaArgs<V> stored() const { return args(); }
    /// Whether slot e holds cell e (the atomic scatter; the colour variant reorders).
    bool cells_in_own_order() const { return options_.scatter == LmaScatter::atomic; }
    /// Switches the apply kernel (benchmarks: one operator, every kernel); automatic resolves
    /// as in the constructor. Throws if the device cannot run it for this npe.
    void set_kernel(LmaKernel kernel);
    /// The eliminated right-hand side from the unconstrained one: on Dirichlet rows
    /// rhs_i = a_ii g_i; on the others rhs_i -= sum over Dirichlet j of a_ij g_j, the a_ij of
    /// the full (not eliminated) operator. g: one value per node (only Dirichlet ones read).
    void eliminate_dirichlet(const Array<V>& g, Array<V>& rhs) const;
    /// Its first half alone: rhs_i -= sum over Dirichlet j of a_ij g_j on the rows that are
    /// not Dirichlet (what several operators of one matrix add up, MixedLmaOperator).
    void lift_dirichlet(const Array<V>& g, Array<V>& rhs) const;

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override;

private:
    template <typename W>
    friend class LmaOperator;
    struct InPrecision {};
    /// A copy of from in V's precision (float_copy).
    template <typename W>
    LmaOperator(const LmaOperator<W>& from, InPrecision);

    LmaArgs<V> args() const;
    /// Appends the colours of cells [first, last) (host connectivity) to order, each colour
    /// from an aligned slot, and their slots to colour_begin_/colour_end_.
    void append_colouring(std::span<const index_type> cells, index_type first, index_type last,
                          HostVector<index_type>& order);
    /// Sets num_cells_; throws on a connectivity or mask of the wrong size.
    void check_inputs(const Array<index_type>& cells, const Array<std::uint8_t>& dirichlet_mask);
    /// connectivity_ (and mask_) for the slots' cells (order null: cell p at slot p).
    void interleave_connectivity(const Array<index_type>& cells,
                                 const Array<std::uint8_t>& dirichlet_mask, const index_type* order);
    /// The Dirichlet list, the apply kernel's configuration and the diagonal.
    void finish_setup(const Array<std::uint8_t>& dirichlet_mask);

    ExecPtr exec_;
    int npe_;
    index_type num_cells_;
    index_type num_nodes_;
    index_type stride_ = 0;           ///< slots per entry row (cells + alignment padding)
    LmaOptions options_;
    LmaKernel kernel_;
    Array<index_type> connectivity_;  ///< interleaved, cells in colour order, ~node if Dirichlet
    Array<V> matrices_;               ///< interleaved, cells in colour order
    Array<std::uint8_t> mask_;        ///< empty: no Dirichlet nodes
    Array<index_type> dirichlet_;     ///< the Dirichlet nodes, ascending
    std::vector<index_type> colour_begin_, colour_end_;  ///< each colour's slots
    int colours_before_split_ = 0;  ///< the colours of the cells before the split (colour scatter)
};

/// The nodes whose mask byte is non-zero, ascending, on exec: the Dirichlet rows a
/// matrix-free operator (lma, pa) applies as a_dd x_d.
Array<index_type> masked_nodes(const ExecPtr& exec, const Array<std::uint8_t>& mask);

/// Builds the LMA operator on exec from the cell connectivity (npe nodes per cell, cell-major,
/// on exec; copied into the operator's own interleaved order) and the element matrices as
/// kernels::*::element_matrices writes them (cell-major, row-major per cell). dirichlet_mask:
/// one byte per node (non-zero = Dirichlet), or empty. Symmetric storage assumes symmetric
/// element matrices (it keeps the upper triangle). colour_split (colour scatter, 0 <= split <=
/// cells): the cells before it and those from it on are coloured apart, the first group's
/// colours first, so that each group can be applied alone (a rank's cells before and after the
/// halo); -1: one colouring of all cells.
template <typename V>
std::unique_ptr<LmaOperator<V>> make_lma_operator(const ExecPtr& exec,
                                                  const Array<index_type>& cells, int npe,
                                                  index_type num_nodes,
                                                  const Array<V>& element_matrices,
                                                  const Array<std::uint8_t>& dirichlet_mask,
                                                  LmaOptions options, index_type colour_split = -1);

/// Builds the LMA operator on exec (atomic scatter) from element matrices already interleaved
/// (InterleavedElementMatrices, on exec; taken over, no copy), so that no cell-major copy of
/// the matrices is ever held.
template <typename V>
std::unique_ptr<LmaOperator<V>> make_lma_operator(const ExecPtr& exec,
                                                  const Array<index_type>& cells, int npe,
                                                  index_type num_nodes,
                                                  InterleavedElementMatrices<V> matrices,
                                                  const Array<std::uint8_t>& dirichlet_mask,
                                                  LmaOptions options);

}  // namespace gpufem
