#include "assembly/pa_transfer.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "assembly/interpolation_kernels.hpp"
#include "assembly/lagrange_interpolation.hpp"
#include "assembly/lagrange_space.hpp"
#include "assembly/pa_tensor_basis.hpp"
#include "assembly/poisson_assembly.hpp"
#include "linalg/blas1.hpp"

namespace gpufem {

template <typename V>
std::size_t PaTransfer<V>::bytes_stored() const
{
    return data_->fine.bytes() + data_->coarse.bytes() + data_->table.bytes();
}

template <typename V>
std::size_t PaTransfer<V>::spmv_min_bytes() const
{
    const PaTransferData<V>& d = *data_;
    const std::size_t gathered = transposed_ ? d.fine.size() : d.coarse.size();
    return d.fine.bytes() + d.coarse.bytes() + gathered * sizeof(V) + 2 * sizeof(V) * static_cast<std::size_t>(rows());
}

template <typename V>
std::string PaTransfer<V>::parameters() const
{
    return fmt::format("nodes {} -> {} per direction", data_->pf, data_->pc);
}

template <typename V>
std::unique_ptr<LinearOperator<float>> PaTransfer<V>::float_copy() const
{
    const PaTransferData<V>& d = *data_;
    auto copy = d.template same_shape<float>();
    copy->fine = d.fine.clone_to(d.exec);
    copy->coarse = d.coarse.clone_to(d.exec);
    const std::vector<V> table = d.table.to_host();
    copy->table = Array<float>::from_host(d.exec, std::vector<float>(table.begin(), table.end()));
    return std::make_unique<PaTransfer<float>>(std::move(copy), transposed_);
}

template <typename V>
void PaTransfer<V>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    const Executor& exec = *data_->exec;
    if (beta == V(0)) fill(y, V(0));
    else if (beta != V(1)) scale(beta, y);
    if (transposed_) GPUFEM_DISPATCH(exec, pa_restrict(exec, data_->args(), alpha, x.data(), y.data()));
    else GPUFEM_DISPATCH(exec, pa_prolongate(exec, data_->args(), alpha, x.data(), y.data()));
}

namespace {

/// unknowns (per_cell a cell, in the element's node order) in lexicographic order (of_lex),
/// marked where owner says another slot owns them (owner empty: none marked).
Array<index_type> lexicographic_unknowns(const ExecPtr& exec, index_type cells, int per_cell,
                                         const index_type* unknowns, const std::vector<int>& of_lex,
                                         const Array<long long>& owner)
{
    const Executor& e = *exec;
    const int n = static_cast<int>(of_lex.size());
    const Array<int> order = Array<int>::from_host(exec, of_lex);
    Array<index_type> out(exec, static_cast<std::size_t>(cells) * n);
    GPUFEM_DISPATCH(e, pa_transfer_unknowns(e, cells, per_cell, unknowns, order.data(), n,
                                            owner.empty() ? nullptr : owner.data(), out.data()));
    return out;
}

}  // namespace

template <typename V>
std::optional<TransferOperators<V>> pa_first_transfer(const Mesh& mesh, const ExecPtr& exec, int coarse_degree)
{
    if (!has_box_cells(mesh) || mesh.degree < 2) return std::nullopt;
    PaTensorBasis fine;
    try {
        fine = make_pa_tensor_basis(assembly_reference_element(mesh));
    } catch (const std::logic_error&) {  // not a tensor-product element: the stored transfer
        return std::nullopt;
    }
    const LagrangeSpace space =
        lagrange_space(mesh, coarse_degree > 0 ? coarse_degree : pmg_coarse_degrees(mesh.degree).front(), exec, true);
    const std::optional<PaCoarseTables> tables =
        pa_coarse_tables(fine, mesh.cell_type, space.dofs_per_cell, space.embedding.weights);
    if (!tables) return std::nullopt;
    const Executor& e = *exec;
    const MeshOnExec on_exec(mesh, exec, MeshOnExec::Parts::cells_only);
    CoarseLatticeView view;
    view.cells = on_exec.cells;
    view.num_cells = mesh.num_cells();
    view.nodes_per_cell = mesh.nodes_per_cell;
    view.num_nodes = mesh.num_nodes();
    Array<long long> owner(exec, static_cast<std::size_t>(mesh.num_nodes()));
    GPUFEM_DISPATCH(e, node_owner_slots(e, view, owner.data()));

    auto data = std::make_shared<PaTransferData<V>>();
    data->exec = exec;
    data->dim = mesh.dim;
    data->pf = fine.p1;
    data->pc = tables->pc;
    data->cells = mesh.num_cells();
    data->fine_size = mesh.num_nodes();
    data->coarse_size = space.size();
    data->fine = lexicographic_unknowns(exec, data->cells, mesh.nodes_per_cell, on_exec.cells, fine.gmsh_of_lex, owner);
    data->coarse = lexicographic_unknowns(exec, data->cells, space.dofs_per_cell, space.cell_dofs.data(),
                                          tables->local_of_lex, {});
    data->table = Array<V>::from_host(exec, std::vector<V>(tables->at_nodes.begin(), tables->at_nodes.end()));
    data->points_1d = fine.points_1d;
    data->coarse_basis = tables->basis;
    data->coarse_derivative = tables->derivative;
    exec->synchronize();  // the temporaries above go out of scope
    TransferOperators<V> out;
    out.prolongation = std::make_unique<PaTransfer<V>>(data, false);
    out.restriction = std::make_unique<PaTransfer<V>>(std::move(data), true);
    return out;
}

template class PaTransfer<float>;
template class PaTransfer<double>;
template std::optional<TransferOperators<float>> pa_first_transfer(const Mesh&, const ExecPtr&, int);
template std::optional<TransferOperators<double>> pa_first_transfer(const Mesh&, const ExecPtr&, int);

}  // namespace gpufem
