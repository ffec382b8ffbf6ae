#include "linalg/rank_messages.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>

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

/// The messages of `bytes` bytes at data for peer, in pieces below MPI's count limit.
void add_pieces(std::vector<ExchangeMessage>& messages, int peer, void* data, std::size_t bytes)
{
    auto* at = static_cast<std::byte*>(data);
    for (std::size_t done = 0; done < bytes; done += piece_bytes)
        messages.push_back({peer, at + done, std::min(piece_bytes, bytes - done)});
}

/// Entries sent to, or received from, one rank: keys and their width values each.
struct KeyedEntries {
    std::vector<long long> keys;
    std::vector<double> values;
};

/// Every rank's entries for this rank (rank by rank; its own taken as they are), from
/// `outgoing[r]`, the entries for rank r.
std::vector<KeyedEntries> exchange_entries(const Communicator& comm, const Executor& host,
                                           std::vector<KeyedEntries>& outgoing, int width)
{
    const auto ranks = static_cast<std::size_t>(comm.size()), me = static_cast<std::size_t>(comm.rank());
    std::vector<std::uint64_t> sending(ranks), receiving(ranks, 0);
    std::vector<ExchangeMessage> sends, receives;
    for (std::size_t r = 0; r < ranks; ++r) {
        sending[r] = outgoing[r].keys.size();
        if (r == me) continue;
        sends.push_back({static_cast<int>(r), &sending[r], sizeof(std::uint64_t)});
        receives.push_back({static_cast<int>(r), &receiving[r], sizeof(std::uint64_t)});
    }
    comm.exchange(host, sends, receives);
    std::vector<KeyedEntries> incoming(ranks);
    sends.clear(), receives.clear();
    for (std::size_t r = 0; r < ranks; ++r) {
        if (r == me) continue;
        KeyedEntries& in = incoming[r];
        in.keys.resize(receiving[r]), in.values.resize(receiving[r] * static_cast<std::size_t>(width));
        add_pieces(sends, static_cast<int>(r), outgoing[r].keys.data(), outgoing[r].keys.size() * sizeof(long long));
        add_pieces(sends, static_cast<int>(r), outgoing[r].values.data(), outgoing[r].values.size() * sizeof(double));
        add_pieces(receives, static_cast<int>(r), in.keys.data(), in.keys.size() * sizeof(long long));
        add_pieces(receives, static_cast<int>(r), in.values.data(), in.values.size() * sizeof(double));
    }
    comm.exchange(host, sends, receives);
    incoming[me] = std::move(outgoing[me]);
    return incoming;
}

/// The totals back to the ranks whose entries they are (at_home[r]'s values to rank r), each
/// rank receiving sent[r] entries' worth from rank r: no counts to exchange, no keys.
std::vector<std::vector<double>> return_totals(const Communicator& comm, const Executor& host,
                                               std::vector<KeyedEntries>& at_home,
                                               const std::vector<std::size_t>& sent, int width)
{
    const auto ranks = static_cast<std::size_t>(comm.size()), me = static_cast<std::size_t>(comm.rank());
    std::vector<std::vector<double>> back(ranks);
    std::vector<ExchangeMessage> sends, receives;
    for (std::size_t r = 0; r < ranks; ++r) {
        if (r == me) continue;
        back[r].resize(sent[r] * static_cast<std::size_t>(width));
        add_pieces(sends, static_cast<int>(r), at_home[r].values.data(), at_home[r].values.size() * sizeof(double));
        add_pieces(receives, static_cast<int>(r), back[r].data(), back[r].size() * sizeof(double));
    }
    comm.exchange(host, sends, receives);
    back[me] = std::move(at_home[me].values);
    return back;
}

/// The home rank's totals: for each entry received (rank by rank), the sums over every entry
/// of its key, added in rank order; the entries' values are replaced by them.
void total_by_key(std::vector<KeyedEntries>& incoming, int width)
{
    std::unordered_map<long long, std::size_t> slot;
    std::vector<double> totals;
    const auto w = static_cast<std::size_t>(width);
    for (const KeyedEntries& from : incoming)
        for (std::size_t k = 0; k < from.keys.size(); ++k) {
            const auto [at, fresh] = slot.try_emplace(from.keys[k], totals.size() / w);
            if (fresh) totals.resize(totals.size() + w, 0.0);
            for (std::size_t j = 0; j < w; ++j) totals[at->second * w + j] += from.values[k * w + j];
        }
    for (KeyedEntries& from : incoming)
        for (std::size_t k = 0; k < from.keys.size(); ++k)
            std::copy_n(totals.begin() + static_cast<std::ptrdiff_t>(slot.at(from.keys[k]) * w), w,
                        from.values.begin() + static_cast<std::ptrdiff_t>(k * w));
}

}  // namespace

std::vector<double> sums_by_key(const Communicator& comm, std::span<const long long> keys,
                                std::span<const double> values, int width)
{
    const auto w = static_cast<std::size_t>(width);
    if (width < 1 || values.size() != keys.size() * w) throw std::invalid_argument("sums_by_key: width values per key");
    const auto ranks = static_cast<std::size_t>(comm.size());
    std::vector<KeyedEntries> outgoing(ranks);
    std::vector<std::size_t> home(keys.size()), sent(ranks, 0);
    for (std::size_t k = 0; k < keys.size(); ++k) {
        if (keys[k] < 0) throw std::invalid_argument("sums_by_key: a negative key");
        home[k] = static_cast<std::size_t>(keys[k]) % ranks;
        KeyedEntries& to = outgoing[home[k]];
        ++sent[home[k]];
        to.keys.push_back(keys[k]);
        to.values.insert(to.values.end(), values.begin() + static_cast<std::ptrdiff_t>(k * w),
                         values.begin() + static_cast<std::ptrdiff_t>((k + 1) * w));
    }
    const ExecPtr host = Executor::create_cpu();
    std::vector<KeyedEntries> at_home = exchange_entries(comm, *host, outgoing, width);
    total_by_key(at_home, width);
    // The totals go back the way the entries came: each rank's list in the order it sent it.
    const std::vector<std::vector<double>> back = return_totals(comm, *host, at_home, sent, width);
    std::vector<double> out(values.size());
    std::vector<std::size_t> taken(ranks, 0);
    for (std::size_t k = 0; k < keys.size(); ++k) {
        const std::size_t at = taken[home[k]]++;
        std::copy_n(back[home[k]].begin() + static_cast<std::ptrdiff_t>(at * w), w,
                    out.begin() + static_cast<std::ptrdiff_t>(k * w));
    }
    return out;
}

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

std::vector<std::vector<std::byte>> gather_to_root(const Communicator& comm, std::vector<std::byte> mine)
{
    const ExecPtr host = Executor::create_cpu();
    const auto ranks = static_cast<std::size_t>(comm.size());
    std::vector<std::uint64_t> sizes(ranks, 0);
    std::uint64_t my_size = mine.size();
    std::vector<ExchangeMessage> sends, receives;
    if (comm.rank() == 0)
        for (std::size_t r = 1; r < ranks; ++r) receives.push_back({static_cast<int>(r), &sizes[r], sizeof(std::uint64_t)});
    else
        sends.push_back({0, &my_size, sizeof(std::uint64_t)});
    comm.exchange(*host, sends, receives);
    sends.clear(), receives.clear();
    std::vector<std::vector<std::byte>> out;
    if (comm.rank() != 0) {
        add_pieces(sends, 0, mine.data(), mine.size());
        comm.exchange(*host, sends, {});
        return out;
    }
    out.resize(ranks);
    for (std::size_t r = 1; r < ranks; ++r) {
        out[r].resize(sizes[r]);
        add_pieces(receives, static_cast<int>(r), out[r].data(), out[r].size());
    }
    comm.exchange(*host, {}, receives);
    out[0] = std::move(mine);
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
