#pragma once
// The `lma` operator of a mesh of several cell types: one LMA operator per cell type's block
// of cells (assembly/cell_blocks.hpp), all in the whole mesh's numbering, applied one after
// the other into y.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "assembly/lma_operator.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// A = sum over the blocks of their LMA operators (each A_b = sum over its cells of
/// P_e^T K_e P_e with the same Dirichlet mask): y = alpha A_1 x + beta y, then y += alpha A_b x
/// for the others. Its diagonal is the blocks' sum, the assembled one.
template <typename V>
class MixedLmaOperator final : public LinearOperator<V>, public FloatCopyable {
public:
    /// blocks: at least one, equal sizes, one executor; types: each block's cell type (for
    /// parameters()); dirichlet_mask: the blocks' mask (one byte per node) or empty.
    MixedLmaOperator(std::vector<std::unique_ptr<LmaOperator<V>>> blocks, std::vector<ElementType> types,
                     Array<std::uint8_t> dirichlet_mask);

    index_type rows() const override { return blocks_.front()->rows(); }
    index_type cols() const override { return blocks_.front()->cols(); }
    const ExecPtr& executor() const override { return blocks_.front()->executor(); }
    std::string format() const override { return "lma"; }
    /// The blocks' storage, the summed diagonal and the mask.
    std::size_t bytes_stored() const override;
    /// The blocks' (each reads x and writes y once).
    std::size_t spmv_min_bytes() const override;
    /// "tetrahedra: ...; prisms: ..." (each block's parameters).
    std::string parameters() const override;
    /// Each block's float copy (LmaOperator::float_copy) in one operator, for a float
    /// multigrid cycle.
    std::unique_ptr<LinearOperator<float>> float_copy() const override;
    bool graph_capturable() const override;
    /// The blocks' operators, in the order given.
    const std::vector<std::unique_ptr<LmaOperator<V>>>& blocks() const { return blocks_; }
    /// LmaOperator::eliminate_dirichlet for the sum: each block's lift, then the Dirichlet rows
    /// rhs_i = a_ii g_i with the summed diagonal.
    void eliminate_dirichlet(const Array<V>& g, Array<V>& rhs) const;

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override;

private:
    std::vector<std::unique_ptr<LmaOperator<V>>> blocks_;
    std::vector<ElementType> types_;
    Array<std::uint8_t> mask_;
};

}  // namespace gpufem
