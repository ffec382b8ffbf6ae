#include "linalg/rank_messages.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace gpufem {
namespace {

/// The largest piece one exchange message carries.
constexpr std::size_t piece_bytes = std::size_t(1) << 30;

/// Rank 0 sends each other rank its message's size; they receive it.
std::uint64_t scatter_sizes(const Communicator& comm, const Executor& host,
                            const std::vector<std::vector<std::byte>>& per_rank)
{
    std::vector<std::uint64_t> sizes(static_cast<std::size_t>(comm.size()), 0);
    std::vector<ExchangeMessage> sends, receives;
    if (comm.rank() == 0) {
        for (int r = 1; r < comm.size(); ++r) {
            sizes[static_cast<std::size_t>(r)] = per_rank[static_cast<std::size_t>(r)].size();
            sends.push_back({r, &sizes[static_cast<std::size_t>(r)], sizeof(std::uint64_t)});
        }
    } else {
        receives.push_back({0, &sizes[0], sizeof(std::uint64_t)});
    }
    comm.exchange(host, sends, receives);
    return comm.rank() == 0 ? per_rank[0].size() : sizes[0];
}

}  // namespace

std::vector<std::byte> scatter_from_root(const Communicator& comm, std::vector<std::vector<std::byte>> per_rank)
{
    if (comm.rank() == 0 && per_rank.size() != static_cast<std::size_t>(comm.size()))
        throw std::logic_error("scatter_from_root: one message per rank expected");
    const ExecPtr host = Executor::create_cpu();
    const std::uint64_t mine = scatter_sizes(comm, *host, per_rank);
    std::vector<std::byte> out;
    if (comm.rank() == 0) {
        std::vector<ExchangeMessage> sends;
        for (int r = 1; r < comm.size(); ++r) {
            std::vector<std::byte>& message = per_rank[static_cast<std::size_t>(r)];
            for (std::size_t at = 0; at < message.size(); at += piece_bytes)
                sends.push_back({r, message.data() + at, std::min(piece_bytes, message.size() - at)});
        }
        comm.exchange(*host, sends, {});
        return std::move(per_rank[0]);
    }
    out.resize(mine);
    std::vector<ExchangeMessage> receives;
    for (std::size_t at = 0; at < out.size(); at += piece_bytes)
        receives.push_back({0, out.data() + at, std::min(piece_bytes, out.size() - at)});
    comm.exchange(*host, {}, receives);
    return out;
}

std::vector<double> gather_on_every_rank(const Communicator& comm, std::span<const double> values)
{
    std::vector<double> all(values.size() * static_cast<std::size_t>(comm.size()), 0.0);
    std::copy(values.begin(), values.end(), all.begin() + static_cast<std::ptrdiff_t>(values.size()) * comm.rank());
    if (!all.empty()) comm.all_reduce_sum(*Executor::create_cpu(), all.data(), static_cast<int>(all.size()));
    return all;
}

bool any_rank(const Communicator& comm, bool mine)
{
    return sum_over_processes(comm, mine ? 1.0 : 0.0) > 0;
}

}  // namespace gpufem
