#pragma once
// Host data between the ranks of a run, through a Communicator's exchange and sums: one
// message from rank 0 to each rank (the parts of a mesh) or from each rank to rank 0 (an
// exported system), small per-rank values gathered on every rank (phase times for the
// report), and sums of values the ranks hold by key.
#include <cstddef>
#include <span>
#include <vector>

#include "linalg/communicator.hpp"

namespace gpufem {

/// On rank 0, per_rank[r] is the message for rank r (its own included); every rank returns
/// its message. Messages of any size (sent in pieces below MPI's 2^31 - 1 bytes). Collective.
std::vector<std::byte> scatter_from_root(const Communicator& comm, std::vector<std::vector<std::byte>> per_rank);

/// On rank 0, every rank's message (mine of each rank, its own included), rank by rank; the
/// other ranks return none. Messages of any size (in pieces below MPI's 2^31 - 1 bytes).
/// Collective.
std::vector<std::vector<std::byte>> gather_to_root(const Communicator& comm, std::vector<std::byte> mine);

/// The values of every rank, rank by rank (values.size() each, the same on every rank), on
/// every rank. Collective; meant for a few values per rank.
std::vector<double> gather_on_every_rank(const Communicator& comm, std::span<const double> values);

/// For each of this rank's keys (non-negative, no repeats), the sums of the `width` values
/// every rank gives with that key (values: width per key, key by key; out: the same layout).
/// Each key's entries meet on rank key % size, which adds them rank by rank (the same sums on
/// every run) and sends the totals back: each rank sends and receives about its own entries,
/// whatever the number of ranks. Collective.
std::vector<double> sums_by_key(const Communicator& comm, std::span<const long long> keys,
                                std::span<const double> values, int width);

/// Whether any rank passes true. Collective.
bool any_rank(const Communicator& comm, bool mine);

}  // namespace gpufem
