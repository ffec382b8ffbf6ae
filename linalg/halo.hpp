#pragma once
// The halo of a rank's part of a distributed vector: its ghost values (copies of unknowns
// other ranks own) and how they are brought up to date from their owners — what each rank
// sends each neighbour, and where what it receives lands.
#include <memory>
#include <vector>

#include "linalg/array.hpp"
#include "linalg/communicator.hpp"
#include "linalg/types.hpp"

namespace gpufem {

/// A run of ghost unknowns that one other rank owns.
struct GhostBlock {
    int owner = 0;          ///< the owning rank
    index_type count = 0;   ///< how many consecutive ghosts it owns
};

/// What one rank sends and receives to bring its ghosts up to date from their owners.
struct HaloPlan {
    /// Per neighbour this rank sends to: the rank, and the local (owned) unknowns whose values
    /// it sends, in the order the neighbour keeps them as ghosts.
    struct Send {
        int peer = 0;
        std::vector<index_type> local;
    };
    std::vector<Send> sends;
    /// The ghosts, in blocks by owner in the order they follow the owned unknowns: each
    /// owner's message lands in its block.
    std::vector<GhostBlock> receives;

    /// The ghost values received (the length of the ghost part of a vector).
    index_type ghosts() const;
    /// The values sent.
    index_type sent() const;
};

/// A halo plan made ready on an executor: the indices to gather, a send buffer, and the
/// messages, so that each update is one gather and one exchange.
template <typename V>
class HaloExchange {
public:
    /// The plan's exchange on exec through comm (which must outlive it).
    HaloExchange(const HaloPlan& plan, const ExecPtr& exec, const Communicator& comm);

    /// ghosts (plan.ghosts() values) from the owners' values; owned: this rank's owned
    /// values (at least every index the plan sends). Ordered on the executor.
    void update(const Array<V>& owned, Array<V>& ghosts) const;
    /// The first half of update: the values to send gathered, the messages started beside
    /// the executor's later work. ghosts must not be read, nor owned written, until finish.
    void start(const Array<V>& owned, Array<V>& ghosts) const;
    /// The second half of update: the work queued after it sees the ghosts.
    void finish() const;
    /// Bytes sent per update.
    std::size_t bytes_sent() const { return send_buffer_.size() * sizeof(V); }
    /// The ghost values an update writes.
    index_type ghosts() const { return ghost_count_; }

private:
    ExecPtr exec_;
    Array<index_type> gather_;       ///< owned index of each value sent, neighbour by neighbour
    mutable Array<V> send_buffer_;
    std::vector<ExchangeMessage> sends_;  ///< each neighbour's slice of send_buffer_
    /// Each owner's ghost block; its data is set to the ghost vector's block on each update
    /// (the messages are made once, so that an update allocates nothing).
    mutable std::vector<ExchangeMessage> receives_;
    std::vector<index_type> receive_offsets_;  ///< each block's first ghost
    index_type ghost_count_ = 0;
    std::unique_ptr<OverlappedExchange> overlapped_;  ///< the messages, beside other work
};

}  // namespace gpufem
