#include "assembly/pa_coarse_level.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "assembly/pa_operator.hpp"
#include "assembly/pa_transfer.hpp"
#include "linalg/blas1.hpp"
#include "linalg/split_kernels.hpp"

namespace gpufem {
namespace {

/// Transfer table entries below this are the exact zeros of a coarse basis function at a
/// fine node, evaluated in rounding (lagrange_interpolation drops its entries below it too).
constexpr double table_zero = 1e-14;

/// One byte per coarse unknown: set where the coarse basis function is non-zero at one of
/// fine's Dirichlet nodes (the restriction of their indicator with |table|, all terms
/// non-negative, so a sum is zero only when every term is); empty when fine has none.
template <typename V>
Array<std::uint8_t> coarse_dirichlet_mask(const PaOperator<V>& fine, const PaTransferData<V>& t)
{
    const Array<std::uint8_t>& fine_mask = fine.dirichlet_mask();
    if (fine_mask.empty()) return {};
    const ExecPtr& exec = t.exec;
    const Executor& e = *exec;
    std::vector<V> table = t.table.to_host();
    for (V& w : table) w = std::abs(w) < table_zero ? V(0) : std::abs(w);
    const Array<V> absolute = Array<V>::from_host(exec, table);
    Array<V> indicator(exec, static_cast<std::size_t>(t.fine_size));
    Array<V> sums(exec, static_cast<std::size_t>(t.coarse_size));
    GPUFEM_DISPATCH(e, mask_to_values(e, t.fine_size, fine_mask.data(), indicator.data()));
    fill(sums, V(0));
    PaTransferArgs<V> args = t.args();
    args.table = absolute.data();
    GPUFEM_DISPATCH(e, pa_restrict(e, args, V(1), indicator.data(), sums.data()));
    Array<std::uint8_t> mask(exec, static_cast<std::size_t>(t.coarse_size));
    GPUFEM_DISPATCH(e, values_to_mask(e, t.coarse_size, sums.data(), mask.data()));
    exec->synchronize();  // the table and the sums are freed on return
    return mask;
}

/// Replaces first by the same transfer over the coarse unknowns `coarse`, in which the coarse
/// Dirichlet nodes are marked: held at zero there. Copies the data of t (first's, freed with
/// the old pair).
template <typename V>
void hold_transfer_at_zero(TransferOperators<V>& first, const PaTransferData<V>& t, const Array<index_type>& coarse)
{
    auto data = t.template same_shape<V>();
    data->fine = t.fine.clone_to(t.exec);
    data->coarse = coarse.clone_to(t.exec);
    data->table = t.table.clone_to(t.exec);
    first.prolongation = std::make_unique<PaTransfer<V>>(data, false);
    first.restriction = std::make_unique<PaTransfer<V>>(std::move(data), true);
}

}  // namespace

template <typename V>
bool pa_coarse_level_applies(const LinearOperator<V>& fine, const TransferOperators<V>& first)
{
    const auto* op = dynamic_cast<const PaOperator<V>*>(&fine);
    const auto* transfer = dynamic_cast<const PaTransfer<V>*>(first.prolongation.get());
    if (!op || !transfer || op->has_robin()) return false;
    const PaTransferData<V>& t = transfer->data();
    const ExecPtr& exec = t.exec;
    return t.pc >= 3 && exec->backend() == op->executor()->backend() &&
           exec->device_id() == op->executor()->device_id() && t.cells == op->cells() && t.fine_size == op->rows() &&
           t.points_1d == op->points_1d() &&
           t.coarse_basis.size() ==
               static_cast<std::size_t>(op->points_per_direction()) * static_cast<std::size_t>(t.pc);
}

template <typename V>
std::unique_ptr<LinearOperator<V>> pa_coarse_level(const LinearOperator<V>& fine, TransferOperators<V>& first)
{
    if (!pa_coarse_level_applies(fine, first)) return nullptr;
    const auto& op = dynamic_cast<const PaOperator<V>&>(fine);
    const PaTransferData<V>& t = dynamic_cast<const PaTransfer<V>&>(*first.prolongation).data();
    const ExecPtr exec = t.exec;
    Array<std::uint8_t> mask = coarse_dirichlet_mask(op, t);
    const int per_cell = t.dim == 2 ? t.pc * t.pc : t.pc * t.pc * t.pc;
    std::vector<int> identity(static_cast<std::size_t>(per_cell));
    for (int l = 0; l < per_cell; ++l) identity[static_cast<std::size_t>(l)] = l;
    const Array<int> order = Array<int>::from_host(exec, identity);
    Array<index_type> nodes(exec, t.coarse.size());
    const Executor& e = *exec;
    GPUFEM_DISPATCH(e, pa_lexicographic_nodes(e, t.cells, per_cell, t.coarse.data(), order.data(),
                                              mask.empty() ? nullptr : mask.data(), nodes.data()));
    const bool held = !mask.empty();
    if (held) hold_transfer_at_zero(first, t, nodes);  // t, first's old data, is gone after this
    const PaTransferData<V>& now = dynamic_cast<const PaTransfer<V>&>(*first.prolongation).data();
    std::unique_ptr<LinearOperator<V>> out = op.coarse_level(now.pc, now.coarse_basis, now.coarse_derivative,
                                                             std::move(nodes), now.coarse_size, std::move(mask));
    exec->synchronize();  // the order is freed on return
    return out;
}

template bool pa_coarse_level_applies(const LinearOperator<float>&, const TransferOperators<float>&);
template bool pa_coarse_level_applies(const LinearOperator<double>&, const TransferOperators<double>&);
template std::unique_ptr<LinearOperator<float>> pa_coarse_level(const LinearOperator<float>&,
                                                                 TransferOperators<float>&);
template std::unique_ptr<LinearOperator<double>> pa_coarse_level(const LinearOperator<double>&,
                                                                  TransferOperators<double>&);

}  // namespace gpufem
