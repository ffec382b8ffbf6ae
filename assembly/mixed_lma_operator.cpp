#include "assembly/mixed_lma_operator.hpp"

#include <stdexcept>

#include "linalg/blas1.hpp"

namespace gpufem {

template <typename V>
MixedLmaOperator<V>::MixedLmaOperator(std::vector<std::unique_ptr<LmaOperator<V>>> blocks,
                                      std::vector<ElementType> types, Array<std::uint8_t> dirichlet_mask)
    : blocks_(std::move(blocks)), types_(std::move(types)), mask_(std::move(dirichlet_mask))
{
    if (blocks_.empty() || types_.size() != blocks_.size())
        throw std::invalid_argument("MixedLmaOperator: one cell type per block, at least one block");
    for (const auto& block : blocks_)
        if (block->rows() != rows() || block->executor() != executor())
            throw std::invalid_argument("MixedLmaOperator: blocks of different sizes or executors");
    Array<V> diagonal = blocks_.front()->diagonal().clone_to(executor());
    for (std::size_t b = 1; b < blocks_.size(); ++b) axpy(V(1), blocks_[b]->diagonal(), diagonal);
    this->set_diagonal(std::move(diagonal));
}

template <typename V>
std::unique_ptr<LinearOperator<float>> MixedLmaOperator<V>::float_copy() const
{
    std::vector<std::unique_ptr<LmaOperator<float>>> blocks;
    for (const auto& block : blocks_) blocks.push_back(block->lma_float_copy());
    Array<std::uint8_t> mask = mask_.empty() ? Array<std::uint8_t>() : mask_.clone_to(mask_.executor());
    return std::make_unique<MixedLmaOperator<float>>(std::move(blocks), types_, std::move(mask));
}

template <typename V>
std::size_t MixedLmaOperator<V>::bytes_stored() const
{
    std::size_t bytes = this->diagonal_.bytes() + mask_.bytes();
    for (const auto& block : blocks_) bytes += block->bytes_stored();
    return bytes;
}

template <typename V>
std::size_t MixedLmaOperator<V>::spmv_min_bytes() const
{
    std::size_t bytes = 0;
    for (const auto& block : blocks_) bytes += block->spmv_min_bytes();
    return bytes;
}

template <typename V>
std::string MixedLmaOperator<V>::parameters() const
{
    std::string text;
    for (std::size_t b = 0; b < blocks_.size(); ++b)
        text += (b ? "; " : "") + std::string(element_type_plural(types_[b])) + ": " + blocks_[b]->parameters();
    return text;
}

template <typename V>
bool MixedLmaOperator<V>::graph_capturable() const
{
    for (const auto& block : blocks_)
        if (!block->graph_capturable()) return false;
    return true;
}

template <typename V>
void MixedLmaOperator<V>::eliminate_dirichlet(const Array<V>& g, Array<V>& rhs) const
{
    if (mask_.empty()) return;
    for (const auto& block : blocks_) block->lift_dirichlet(g, rhs);
    const Executor& exec = *executor();
    GPUFEM_DISPATCH(exec, lma_dirichlet_rows(exec, rows(), mask_.data(), this->diagonal_.data(), g.data(),
                                             rhs.data()));
}

template <typename V>
void MixedLmaOperator<V>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    blocks_.front()->apply(alpha, x, beta, y);
    for (std::size_t b = 1; b < blocks_.size(); ++b) blocks_[b]->apply(alpha, x, V(1), y);
}

template class MixedLmaOperator<float>;
template class MixedLmaOperator<double>;

}  // namespace gpufem
