#pragma once
// p-multigrid's transfer between the mesh's own space and its first lower degree on a mesh of
// quadrilaterals or hexahedra, applied by sum factorisation (assembly/pa_transfer_kernels.hpp)
// instead of a stored interpolation matrix: from degree 8 to 4 in 3D the stored P holds about
// 64 entries a row (and R = P^T as many again), the matrix-free one reads each cell's indices
// and one 1D table.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "assembly/pa_transfer_kernels.hpp"
#include "linalg/array.hpp"
#include "linalg/float_copy.hpp"
#include "linalg/transfer_operators.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// What a transfer's prolongation and restriction share: each cell's fine and coarse
/// unknowns in lexicographic order (the fine ones marked where another cell owns them) and
/// the 1D table, on one executor.
template <typename V>
struct PaTransferData {
    ExecPtr exec;
    int dim = 0, pf = 0, pc = 0;
    index_type cells = 0;
    index_type fine_size = 0, coarse_size = 0;  ///< the two spaces' unknowns
    Array<index_type> fine, coarse;
    Array<V> table;
    /// The coarse 1D basis and its derivative at the fine operator's 1D quadrature points
    /// (points_1d; q1 x pc, on the host): a coarse level on the fine cells' factors.
    std::vector<double> points_1d, coarse_basis, coarse_derivative;

    /// A copy of the executor, the sizes and the host tables in W, its arrays left empty.
    template <typename W>
    std::shared_ptr<PaTransferData<W>> same_shape() const
    {
        auto out = std::make_shared<PaTransferData<W>>();
        out->exec = exec;
        out->dim = dim;
        out->pf = pf;
        out->pc = pc;
        out->cells = cells;
        out->fine_size = fine_size;
        out->coarse_size = coarse_size;
        out->points_1d = points_1d;
        out->coarse_basis = coarse_basis;
        out->coarse_derivative = coarse_derivative;
        return out;
    }

    /// The kernels' view.
    PaTransferArgs<V> args() const
    {
        return {dim, pf, pc, cells, fine.data(), coarse.data(), table.data()};
    }
};

/// The interpolation P (fine x coarse) from the coarser space, or with `transposed` the
/// restriction P^T, as an operator. Equals the stored lagrange_interpolation to rounding (its
/// entries below 1e-14 dropped there).
template <typename V>
class PaTransfer final : public LinearOperator<V>, public FloatCopyable {
public:
    PaTransfer(std::shared_ptr<const PaTransferData<V>> data, bool transposed)
        : data_(std::move(data)), transposed_(transposed)
    {
    }
    index_type rows() const override { return transposed_ ? data_->coarse_size : data_->fine_size; }
    index_type cols() const override { return transposed_ ? data_->fine_size : data_->coarse_size; }
    const ExecPtr& executor() const override { return data_->exec; }
    std::string format() const override { return transposed_ ? "pa-restriction" : "pa-prolongation"; }
    /// The index arrays and the table (shared by the pair).
    std::size_t bytes_stored() const override;
    /// The index arrays once, the input gathered per cell node it is read at, the output
    /// read and written once.
    std::size_t spmv_min_bytes() const override;
    /// e.g. "nodes 9 -> 5 per direction".
    std::string parameters() const override;
    /// The same transfer in float (its own copy of the indices, the table rounded): a float
    /// multigrid cycle's.
    std::unique_ptr<LinearOperator<float>> float_copy() const override;
    /// The cells' unknowns and tables the pair shares.
    const PaTransferData<V>& data() const { return *data_; }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override;

private:
    std::shared_ptr<const PaTransferData<V>> data_;
    bool transposed_;
};

/// The transfer from the lower degree coarse_degree (0: the first of
/// pmg_coarse_degrees(mesh.degree)) into the mesh's space, rows and columns numbered as
/// lagrange_interpolation numbers them, on exec; nullopt unless the mesh is of quadrilaterals
/// only or hexahedra only, of degree >= 2, with a tensor-product element.
template <typename V>
std::optional<TransferOperators<V>> pa_first_transfer(const Mesh& mesh, const ExecPtr& exec, int coarse_degree = 0);

}  // namespace gpufem
