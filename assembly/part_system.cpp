#include "assembly/part_system.hpp"

#include <algorithm>
#include <memory>
#include <span>

#include "assembly/lma_kernels.hpp"
#include "linalg/array_prefix.hpp"
#include "linalg/split_kernels.hpp"
#include "mesh/cell_fields.hpp"

namespace gpufem {
namespace {

/// The cells whose nodes are all owned, applied beside the halo, with the Dirichlet rows.
template <typename V>
class PartInterior final : public LinearOperator<V> {
public:
    PartInterior(std::shared_ptr<const LinearOperator<V>> whole, PartCellsApply<V> apply, std::size_t cell_bytes,
                 index_type owned, Array<index_type> dirichlet)
        : whole_(std::move(whole)), apply_(std::move(apply)), cell_bytes_(cell_bytes), owned_(owned),
          dirichlet_(std::move(dirichlet))
    {
        this->set_diagonal(leading(whole_->diagonal(), static_cast<std::size_t>(owned)));
    }

    index_type rows() const override { return owned_; }
    index_type cols() const override { return owned_; }
    const ExecPtr& executor() const override { return whole_->executor(); }
    std::string format() const override { return whole_->format(); }
    /// The whole part's operator (the boundary cells' included: they share its arrays).
    std::size_t bytes_stored() const override { return whole_->bytes_stored(); }
    std::size_t spmv_min_bytes() const override
    {
        return 2 * static_cast<std::size_t>(owned_) * sizeof(V) +
               dirichlet_.size() * (sizeof(index_type) + 3 * sizeof(V)) + cell_bytes_;
    }
    std::string parameters() const override { return whole_->parameters(); }
    bool graph_capturable() const override { return whole_->graph_capturable(); }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override
    {
        const Executor& e = *executor();
        GPUFEM_DISPATCH(e, lma_prepare(e, owned_, alpha, x.data(), beta, y.data(), dirichlet_.data(),
                                       static_cast<index_type>(dirichlet_.size()), this->diagonal_.data()));
        apply_(true, alpha, x.data(), y.data());
    }

private:
    std::shared_ptr<const LinearOperator<V>> whole_;
    PartCellsApply<V> apply_;
    std::size_t cell_bytes_;
    index_type owned_;
    Array<index_type> dirichlet_;  ///< the owned Dirichlet rows
};

/// The cells that hold a ghost node: they read and write a staging vector in the part's
/// numbering (the owned values they read copied in, the ghosts after them), and their owned
/// rows are added into y.
template <typename V>
class PartBoundary final : public GhostColumns<V> {
public:
    PartBoundary(const ExecPtr& exec, PartCellsApply<V> apply, std::size_t cell_bytes, index_type cells,
                 index_type owned, index_type ghosts, Array<index_type> rows)
        : apply_(std::move(apply)), cell_bytes_(cell_bytes), cells_(cells), owned_(owned), ghosts_(ghosts),
          rows_(std::move(rows)), staged_x_(exec, static_cast<std::size_t>(owned + ghosts)),
          staged_y_(exec, static_cast<std::size_t>(owned + ghosts))
    {
        zero_bytes(*exec, staged_y_.data(), staged_y_.bytes());
    }

    void apply(V alpha, const Array<V>& x, const Array<V>& ghosts, Array<V>& y) const override
    {
        const Executor& e = *staged_x_.executor();
        const auto n = static_cast<index_type>(rows_.size());
        GPUFEM_DISPATCH(e, stage_boundary_values(e, n, rows_.data(), x.data(), owned_, ghosts_, ghosts.data(),
                                                 staged_x_.data()));
        apply_(false, alpha, staged_x_.data(), staged_y_.data());
        GPUFEM_DISPATCH(e, add_boundary_rows(e, n, rows_.data(), staged_y_.data(), owned_, ghosts_, y.data()));
    }
    /// The staging vectors and the rows' numbers (the operator counts with the interior's).
    std::size_t bytes_stored() const override { return staged_x_.bytes() + staged_y_.bytes() + rows_.bytes(); }
    std::size_t spmv_min_bytes() const override
    {
        return rows_.size() * (sizeof(index_type) + 5 * sizeof(V)) + 3 * ghosts_ * sizeof(V) + cell_bytes_;
    }
    std::string parameters() const override { return std::to_string(cells_) + " cells after the halo"; }

private:
    PartCellsApply<V> apply_;
    std::size_t cell_bytes_;
    index_type cells_, owned_, ghosts_;
    Array<index_type> rows_;  ///< the owned nodes of the cells after the halo, ascending
    mutable Array<V> staged_x_, staged_y_;
};

/// Whether cell c has a node past the owned ones (a ghost).
bool holds_ghost(const Mesh& mesh, index_type c, index_type owned)
{
    const index_type* row = &mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell];
    return std::any_of(row, row + mesh.nodes_per_cell, [owned](index_type node) { return node >= owned; });
}

}  // namespace

template <typename V>
void split_part_operator(PartMatrixFreeSystem<V>& out, std::shared_ptr<const LinearOperator<V>> whole,
                         PartCellsApply<V> apply, PartCellBytes bytes, index_type owned, index_type ghosts,
                         const std::vector<index_type>& dirichlet, const std::vector<index_type>& after_rows)
{
    const ExecPtr exec = whole->executor();
    out.interior = std::make_unique<PartInterior<V>>(whole, apply, bytes.before_halo, owned,
                                                     Array<index_type>::from_host(exec, dirichlet));
    out.boundary = std::make_unique<PartBoundary<V>>(exec, std::move(apply), bytes.after_halo, out.boundary_cells,
                                                     owned, ghosts, Array<index_type>::from_host(exec, after_rows));
    out.dirichlet_count = static_cast<index_type>(dirichlet.size());
}

Mesh interior_cells_first(const Mesh& mesh, index_type owned, index_type& interior)
{
    std::vector<index_type> order, later;
    for (index_type c = 0; c < mesh.num_cells(); ++c) (holds_ghost(mesh, c, owned) ? later : order).push_back(c);
    interior = static_cast<index_type>(order.size());
    order.insert(order.end(), later.begin(), later.end());
    // Field by field: a copy of the whole Mesh copied its arrays element by element on one
    // thread (76 ms for a part of 0.5M nodes on two cores), here the host's threads copy them.
    Mesh out;
    out.dim = mesh.dim;
    out.cell_type = mesh.cell_type;
    out.degree = mesh.degree;
    out.nodes_per_cell = mesh.nodes_per_cell;
    out.coordinates = HostVector<double>(mesh.node_coordinates().size());
    const auto values = static_cast<long long>(mesh.node_coordinates().size());
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < values; ++i) out.coordinates[i] = mesh.node_coordinates()[i];
    const auto npc = static_cast<std::size_t>(mesh.nodes_per_cell);
    const auto cells = static_cast<long long>(order.size());
    out.cells = HostVector<index_type>(mesh.cells.size());
#pragma omp parallel for schedule(static)
    for (long long k = 0; k < cells; ++k)
        std::copy_n(&mesh.cells[static_cast<std::size_t>(order[k]) * npc], npc, &out.cells[k * npc]);
    if (mesh.is_mixed()) {
        out.cell_types = HostVector<std::uint8_t>(order.size());
        for (std::size_t k = 0; k < order.size(); ++k) out.cell_types[k] = mesh.cell_types[order[k]];
    }
    if (!mesh.cell_group.empty()) {
        out.cell_group.resize(order.size());
        for (std::size_t k = 0; k < order.size(); ++k) out.cell_group[k] = mesh.cell_group[order[k]];
    }
    out.subdomains = mesh.subdomains;
    out.boundaries = mesh.boundaries;
    out.ignored_boundaries = mesh.ignored_boundaries;
    out.cell_fields = cell_fields_of(mesh.cell_fields, order);
    out.source = mesh.source;
    out.build_times = mesh.build_times;
    if (mesh.device) {
        // The device copy follows: the same coordinates (copied on the device), the cells in
        // their new order, so that assembly uploads nothing from the host.
        auto device = std::make_shared<MeshOnDevice>();
        device->coordinates = mesh.device->coordinates.clone_to(mesh.device->coordinates.executor());
        device->cells = Array<index_type>::from_host(mesh.device->cells.executor(),
                                                     std::span<const index_type>(out.cells.data(), out.cells.size()));
        out.device = std::move(device);
    }
    return out;  // no generated grid, no refinement parents: the cells are in another order
}

std::vector<index_type> owned_nodes_of_cells(const Mesh& mesh, index_type owned,
                                             const std::function<bool(index_type)>& take)
{
    std::vector<std::uint8_t> marked(static_cast<std::size_t>(owned), 0);
    const auto npc = static_cast<std::size_t>(mesh.nodes_per_cell);
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        if (!take(c)) continue;
        for (std::size_t k = 0; k < npc; ++k) {
            const index_type node = mesh.cells[static_cast<std::size_t>(c) * npc + k];
            if (node >= 0 && node < owned) marked[static_cast<std::size_t>(node)] = 1;
        }
    }
    std::vector<index_type> out;
    for (index_type i = 0; i < owned; ++i)
        if (marked[static_cast<std::size_t>(i)]) out.push_back(i);
    return out;
}

std::vector<index_type> owned_masked_rows(const std::vector<std::uint8_t>& mask, index_type owned)
{
    std::vector<index_type> out;
    for (index_type i = 0; i < owned && static_cast<std::size_t>(i) < mask.size(); ++i)
        if (mask[static_cast<std::size_t>(i)]) out.push_back(i);
    return out;
}

template void split_part_operator(PartMatrixFreeSystem<float>&, std::shared_ptr<const LinearOperator<float>>,
                                  PartCellsApply<float>, PartCellBytes, index_type, index_type,
                                  const std::vector<index_type>&, const std::vector<index_type>&);
template void split_part_operator(PartMatrixFreeSystem<double>&, std::shared_ptr<const LinearOperator<double>>,
                                  PartCellsApply<double>, PartCellBytes, index_type, index_type,
                                  const std::vector<index_type>&, const std::vector<index_type>&);

}  // namespace gpufem
