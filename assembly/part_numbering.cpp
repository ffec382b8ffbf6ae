#include "assembly/part_numbering.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include "linalg/rank_messages.hpp"

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

namespace {

/// The halo plan of a rank whose unknowns are named by keys (one per unknown of layout):
/// every rank sends the owners of its ghosts their keys, and each owner finds them among its
/// owned unknowns with find (key -> local number, or -1). Collective over host.
template <typename Key, typename Find>
HaloPlan plan_from_keys(const Communicator& host, const DofLayout& layout, const Key* keys, Find&& find)
{
    const int ranks = host.size(), me = host.rank();
    HaloPlan plan;
    plan.receives = layout.ghost_blocks;
    // asking[r * ranks + o]: the ghosts rank r holds that rank o owns.
    std::vector<double> mine(static_cast<std::size_t>(ranks), 0.0);
    for (const GhostBlock& block : layout.ghost_blocks) mine[static_cast<std::size_t>(block.owner)] += block.count;
    const std::vector<double> asking = gather_on_every_rank(host, mine);
    std::vector<ExchangeMessage> sends, receives;
    for (std::size_t b = 0; b < layout.ghost_blocks.size(); ++b) {
        // A send's data is only read.
        auto* first = const_cast<Key*>(keys + layout.ghost_begin(b));
        sends.push_back({layout.ghost_blocks[b].owner, first, layout.ghost_blocks[b].count * sizeof(Key)});
    }
    std::vector<std::vector<Key>> asked(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
        const auto count = static_cast<std::size_t>(asking[static_cast<std::size_t>(r * ranks + me)]);
        if (count == 0) continue;
        asked[static_cast<std::size_t>(r)].resize(count);
        receives.push_back({r, asked[static_cast<std::size_t>(r)].data(), count * sizeof(Key)});
    }
    host.exchange(*Executor::create_cpu(), sends, receives);
    for (int r = 0; r < ranks; ++r) {
        if (asked[static_cast<std::size_t>(r)].empty()) continue;
        HaloPlan::Send send{r, {}};
        for (Key key : asked[static_cast<std::size_t>(r)]) {
            const index_type local = find(key);
            if (local < 0)
                throw std::logic_error("halo plan: rank " + std::to_string(r) + " asked rank " + std::to_string(me) +
                                       " for an unknown it does not own");
            send.local.push_back(local);
        }
        plan.sends.push_back(std::move(send));
    }
    return plan;
}

}  // namespace

HaloPlan halo_plan_from_owners(const Communicator& host, const PartNumbering& numbering)
{
    // The owned unknowns are in global order: a binary search finds each.
    const auto owned_begin = numbering.global.begin(), owned_end = owned_begin + numbering.layout.owned;
    return plan_from_keys(host, numbering.layout, numbering.global.data(), [&](index_type g) -> index_type {
        const auto at = std::lower_bound(owned_begin, owned_end, g);
        return at == owned_end || *at != g ? -1 : static_cast<index_type>(at - owned_begin);
    });
}

HaloPlan halo_plan_from_keys(const Communicator& host, const DofLayout& layout, const std::vector<std::int64_t>& keys)
{
    std::vector<std::pair<std::int64_t, index_type>> owned;
    owned.reserve(static_cast<std::size_t>(layout.owned));
    for (index_type l = 0; l < layout.owned; ++l) owned.emplace_back(keys[static_cast<std::size_t>(l)], l);
    std::sort(owned.begin(), owned.end());
    return plan_from_keys(host, layout, keys.data(), [&](std::int64_t key) -> index_type {
        const auto at = std::lower_bound(owned.begin(), owned.end(), std::pair<std::int64_t, index_type>(key, 0));
        return at == owned.end() || at->first != key ? -1 : at->second;
    });
}

}  // namespace gpufem
