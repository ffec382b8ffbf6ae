#include "assembly/part_numbering.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include "linalg/halo_plan_keys.hpp"

namespace gpufem {

bool holds_owned_node(const Mesh& mesh, index_type c, const std::vector<int>& owners, int part)
{
    const int npc = mesh.nodes_per_cell;
    for (int j = 0; j < npc; ++j) {
        const index_type node = mesh.cells[static_cast<std::size_t>(c) * npc + j];
        if (node >= 0 && owners[static_cast<std::size_t>(node)] == part) return true;
    }
    return false;
}

namespace {

/// The nodes `part` holds, each once, in increasing order: those of its own cells (its
/// output) and of every cell around a node it owns (the columns of its rows).
std::vector<index_type> part_nodes(const Mesh& mesh, const CellPartition& partition, const std::vector<int>& owners,
                                   int part)
{
    std::vector<char> used(static_cast<std::size_t>(mesh.num_nodes()), 0);
    const int npc = mesh.nodes_per_cell;
#pragma omp parallel for schedule(static)
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        if (partition.part[static_cast<std::size_t>(c)] != part && !holds_owned_node(mesh, c, owners, part)) continue;
        for (int j = 0; j < npc; ++j) {
            const index_type node = mesh.cells[static_cast<std::size_t>(c) * npc + j];
            // -1: past a mixed cell's nodes; every writer stores the same 1.
            if (node >= 0) std::atomic_ref<char>(used[static_cast<std::size_t>(node)]).store(1, std::memory_order_relaxed);
        }
    }
    std::vector<index_type> nodes;
    for (std::size_t n = 0; n < used.size(); ++n)
        if (used[n]) nodes.push_back(static_cast<index_type>(n));
    return nodes;
}

}  // namespace

std::vector<int> node_owners(const Mesh& mesh, const CellPartition& partition)
{
    std::vector<int> owner(static_cast<std::size_t>(mesh.num_nodes()), partition.parts);
    const int npc = mesh.nodes_per_cell;
    for (index_type c = 0; c < mesh.num_cells(); ++c) {
        const int part = partition.part[static_cast<std::size_t>(c)];
        for (int j = 0; j < npc; ++j) {
            const index_type node = mesh.cells[static_cast<std::size_t>(c) * npc + j];
            if (node >= 0) owner[static_cast<std::size_t>(node)] = std::min(owner[static_cast<std::size_t>(node)], part);
        }
    }
    return owner;
}

PartNumbering part_node_numbering(const Mesh& mesh, const CellPartition& partition, const std::vector<int>& owners,
                                  int part)
{
    const std::vector<index_type> nodes = part_nodes(mesh, partition, owners, part);
    PartNumbering numbering;
    numbering.part = part;
    for (index_type node : nodes)
        if (owners[static_cast<std::size_t>(node)] == part) numbering.global.push_back(node);
    numbering.layout.owned = static_cast<index_type>(numbering.global.size());
    // Ghosts by owner: a stable sort of the rest by owner keeps each block in global order.
    std::vector<index_type> ghosts;
    for (index_type node : nodes)
        if (owners[static_cast<std::size_t>(node)] != part) ghosts.push_back(node);
    std::stable_sort(ghosts.begin(), ghosts.end(), [&](index_type a, index_type b) {
        return owners[static_cast<std::size_t>(a)] < owners[static_cast<std::size_t>(b)];
    });
    for (std::size_t g = 0; g < ghosts.size(); ++g) {
        const int owner = owners[static_cast<std::size_t>(ghosts[g])];
        if (numbering.layout.ghost_blocks.empty() || numbering.layout.ghost_blocks.back().owner != owner)
            numbering.layout.ghost_blocks.push_back({owner, 0});
        ++numbering.layout.ghost_blocks.back().count;
        numbering.global.push_back(ghosts[g]);
    }
    return numbering;
}

std::vector<HaloPlan> halo_plans(const std::vector<PartNumbering>& numbering)
{
    std::vector<HaloPlan> plans(numbering.size());
    // The local number of each owned global unknown, in one array over every part (each
    // unknown has one owner).
    index_type globals = 0;
    for (const PartNumbering& part : numbering)
        for (index_type g : part.global) globals = std::max(globals, g + 1);
    std::vector<index_type> owned_local(static_cast<std::size_t>(globals), -1);
    for (const PartNumbering& part : numbering)
        for (index_type l = 0; l < part.layout.owned; ++l) owned_local[static_cast<std::size_t>(part.global[l])] = l;
    for (std::size_t p = 0; p < numbering.size(); ++p) {
        const DofLayout& layout = numbering[p].layout;
        plans[p].receives = layout.ghost_blocks;
        for (std::size_t b = 0; b < layout.ghost_blocks.size(); ++b) {
            const GhostBlock& block = layout.ghost_blocks[b];
            HaloPlan::Send send{static_cast<int>(p), {}};
            const index_type begin = layout.ghost_begin(b);
            for (index_type g = begin; g < begin + block.count; ++g) {
                const index_type local = owned_local[static_cast<std::size_t>(numbering[p].global[g])];
                if (local < 0) throw std::logic_error("halo_plans: a ghost's owner does not own it");
                send.local.push_back(local);
            }
            plans[static_cast<std::size_t>(block.owner)].sends.push_back(std::move(send));
        }
    }
    return plans;
}

HaloPlan halo_plan_from_owners(const Communicator& host, const PartNumbering& numbering)
{
    // The owned unknowns are in global order: a binary search finds each.
    const auto owned_begin = numbering.global.begin(), owned_end = owned_begin + numbering.layout.owned;
    const auto find = [&](index_type g) -> index_type {
        const auto at = std::lower_bound(owned_begin, owned_end, g);
        return at == owned_end || *at != g ? -1 : static_cast<index_type>(at - owned_begin);
    };
    return halo_plan_from_names(host, numbering.layout.ghost_blocks,
                                numbering.global.data() + numbering.layout.owned, find);
}

HaloPlan halo_plan_from_keys(const Communicator& host, const DofLayout& layout, const std::vector<std::int64_t>& keys)
{
    std::vector<std::pair<std::int64_t, index_type>> owned;
    owned.reserve(static_cast<std::size_t>(layout.owned));
    for (index_type l = 0; l < layout.owned; ++l) owned.emplace_back(keys[static_cast<std::size_t>(l)], l);
    std::sort(owned.begin(), owned.end());
    const auto find = [&](std::int64_t key) -> index_type {
        const auto at = std::lower_bound(owned.begin(), owned.end(), std::pair<std::int64_t, index_type>(key, 0));
        return at == owned.end() || at->first != key ? -1 : at->second;
    };
    return halo_plan_from_names(host, layout.ghost_blocks, keys.data() + layout.owned, find);
}

}  // namespace gpufem
