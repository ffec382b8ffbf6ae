#include "solver/run/part_spaces.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "assembly/lagrange_interpolation.hpp"
#include "linalg/halo_plan_keys.hpp"
#include "linalg/reordering.hpp"
#include "solver/multigrid/aggregation.hpp"
#include "solver/multigrid/distributed_levels.hpp"

namespace gpufem {
namespace {

/// The n x n matrix that moves column d to column to[d], on exec.
template <typename V>
Csr<V> column_renumbering(const std::vector<index_type>& to, const ExecPtr& exec)
{
    const auto n = static_cast<index_type>(to.size());
    std::vector<index_type> ptr(to.size() + 1);
    std::iota(ptr.begin(), ptr.end(), index_type(0));
    return Csr<V>{n, n, Array<index_type>::from_host(exec, ptr), Array<index_type>::from_host(exec, to),
                  Array<V>::from_host(exec, std::vector<V>(to.size(), V(1)))};
}

/// The global number, in the numbering that starts at first, of each ghost node's unknown
/// (-1 where the ghost carries none): every rank names the unknowns on its owned nodes and
/// the part's halo brings the names to the nodes' other holders.
std::vector<double> ghost_names(const PartPayload& part, const std::vector<index_type>& dof_nodes,
                                const std::vector<index_type>& owned_dofs, index_type first, const Communicator& host)
{
    const ExecPtr cpu = Executor::create_cpu();
    const index_type owned_nodes = part.numbering.layout.owned;
    std::vector<double> named(static_cast<std::size_t>(owned_nodes), -1.0);
    for (std::size_t k = 0; k < owned_dofs.size(); ++k)
        named[static_cast<std::size_t>(dof_nodes[static_cast<std::size_t>(owned_dofs[k])])] =
            static_cast<double>(first) + static_cast<double>(k);
    const HaloExchange<double> halo(part.halo, cpu, host);
    Array<double> ghosts(cpu, static_cast<std::size_t>(part.halo.ghosts()));
    halo.update(Array<double>::from_host(cpu, named), ghosts);
    return ghosts.to_host();
}

/// The space's ghosts (the unknowns on ghost nodes) by increasing global number, their blocks
/// by owner and the halo that brings them; order gets their unknowns appended.
template <typename V>
void number_ghosts(const PartPayload& part, const std::vector<index_type>& dof_nodes, PartSpace<V>& space,
                   std::vector<index_type>& order, const Communicator& host)
{
    const index_type owned_nodes = part.numbering.layout.owned;
    const index_type first = space.offsets[static_cast<std::size_t>(host.rank())];
    const std::vector<double> names = ghost_names(part, dof_nodes, order, first, host);
    std::vector<std::pair<index_type, index_type>> ghosts;  // (global number, unknown)
    for (std::size_t d = 0; d < dof_nodes.size(); ++d) {
        if (dof_nodes[d] < owned_nodes) continue;
        const double name = names[static_cast<std::size_t>(dof_nodes[d] - owned_nodes)];
        if (name < 0) throw std::logic_error("p-multigrid across ranks: a ghost node's owner has no unknown on it");
        ghosts.emplace_back(static_cast<index_type>(name), static_cast<index_type>(d));
    }
    std::sort(ghosts.begin(), ghosts.end());
    std::vector<GhostBlock> blocks;
    std::vector<index_type> keys(static_cast<std::size_t>(space.owned));
    std::iota(keys.begin(), keys.end(), first);
    for (const auto& [global, dof] : ghosts) {
        const auto owner = static_cast<int>(
            std::upper_bound(space.offsets.begin(), space.offsets.end(), global) - space.offsets.begin() - 1);
        if (blocks.empty() || blocks.back().owner != owner) blocks.push_back({owner, 0});
        ++blocks.back().count;
        keys.push_back(global);
        space.ghost_global.push_back(global);
        order.push_back(dof);
    }
    space.halo = halo_plan_from_names(host, space.owned, blocks, keys.data(), [&](index_type key) -> index_type {
        return key >= first && key < first + space.owned ? key - first : -1;
    });
}

}  // namespace

template <typename V>
std::vector<PartSpace<V>> part_spaces(const PartPayload& part, const Array<index_type>& permutation,
                                      const ExecPtr& exec, const Communicator& host)
{
    std::vector<DegreeLevel<V>> levels = degree_levels<V>(part.part.mesh, exec);
    const index_type owned_nodes = part.numbering.layout.owned;
    // The finer space's order: its unknown i (owned first) is row finer_order[i] of the transfer.
    std::vector<index_type> finer_order(static_cast<std::size_t>(part.part.mesh.num_nodes()));
    std::iota(finer_order.begin(), finer_order.end(), index_type(0));
    if (!permutation.empty()) {
        const std::vector<index_type> perm = permutation.to_host();
        std::copy(perm.begin(), perm.end(), finer_order.begin());
    }
    std::vector<PartSpace<V>> out;
    for (DegreeLevel<V>& level : levels) {
        const std::vector<index_type> dof_nodes = level.dof_nodes.to_host();
        PartSpace<V> space;
        space.degree = level.degree;
        std::vector<index_type> order;  // local unknown -> the level's unknown
        for (std::size_t d = 0; d < dof_nodes.size(); ++d)
            if (dof_nodes[d] < owned_nodes) order.push_back(static_cast<index_type>(d));
        space.owned = static_cast<index_type>(order.size());
        space.offsets = rank_offsets(host, space.owned);
        number_ghosts(part, dof_nodes, space, order, host);
        std::vector<index_type> local_of(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) local_of[static_cast<std::size_t>(order[i])] = static_cast<index_type>(i);
        const Csr<V> rows = permute_rows(level.transfer, Array<index_type>::from_host(exec, finer_order));
        space.transfer = sparse_product(rows, column_renumbering<V>(local_of, exec));
        finer_order = std::move(order);
        out.push_back(std::move(space));
    }
    return out;
}

template std::vector<PartSpace<float>> part_spaces(const PartPayload&, const Array<index_type>&, const ExecPtr&,
                                                   const Communicator&);
template std::vector<PartSpace<double>> part_spaces(const PartPayload&, const Array<index_type>&, const ExecPtr&,
                                                    const Communicator&);

}  // namespace gpufem
