#pragma once
// A rank's halo plan (linalg/halo.hpp) from names of its unknowns alone: each rank names its
// ghosts to their owners, and each owner finds them among its owned unknowns. The numbering of
// a mesh part and the coarse levels of a distributed multigrid build their halos this way.
#include <string>
#include <vector>

#include "linalg/halo.hpp"
#include "linalg/rank_messages.hpp"

namespace gpufem {

/// The halo plan of a rank whose ghosts come in blocks (by owner) after its owned unknowns,
/// each ghost named by ghost_keys[i] (block after block; an owner's and a holder's copy of an
/// unknown have the same key): every rank sends the owners of its ghosts their keys, and each
/// owner finds them among its owned unknowns with find (key -> owned index, or -1).
/// Collective over host. Throws std::logic_error when a rank is asked for an unknown it does
/// not own.
template <typename Key, typename Find>
HaloPlan halo_plan_from_names(const Communicator& host, const std::vector<GhostBlock>& blocks, const Key* ghost_keys,
                              Find&& find)
{
    const int ranks = host.size(), me = host.rank();
    HaloPlan plan;
    plan.receives = blocks;
    // asking[r * ranks + o]: the ghosts rank r holds that rank o owns.
    std::vector<double> mine(static_cast<std::size_t>(ranks), 0.0);
    for (const GhostBlock& block : blocks) mine[static_cast<std::size_t>(block.owner)] += block.count;
    const std::vector<double> asking = gather_on_every_rank(host, mine);
    std::vector<ExchangeMessage> sends, receives;
    index_type begin = 0;
    for (const GhostBlock& block : blocks) {
        auto* first = const_cast<Key*>(ghost_keys + begin);  // a send's data is only read
        sends.push_back({block.owner, first, block.count * sizeof(Key)});
        begin += block.count;
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

}  // namespace gpufem
