#include "solver/multigrid/distributed_levels.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "linalg/blas1.hpp"
#include "linalg/csr_kernels.hpp"
#include "linalg/halo_plan_keys.hpp"
#include "linalg/rank_messages.hpp"
#include "mesh/stage_laps.hpp"
#include "solver/multigrid/amg_kernels.hpp"

namespace gpufem {
namespace {

/// The messages of data (one run of values per entry of peers' counts) as sends, or as
/// receives, skipping empty runs (both sides know every run's size and skip alike).
template <typename T>
std::vector<ExchangeMessage> runs(std::vector<T>& data, const std::vector<std::pair<int, std::size_t>>& peers)
{
    std::vector<ExchangeMessage> out;
    std::size_t at = 0;
    for (const auto& [peer, count] : peers) {
        if (count > 0) out.push_back({peer, data.data() + at, count * sizeof(T)});
        at += count;
    }
    return out;
}

/// Host data between the ranks: send[s] to send_peers[s], recv[r] from recv_peers[r], each run
/// as long as the peers' counts say.
template <typename T>
void exchange_runs(const Communicator& host, std::vector<T>& send, const std::vector<std::pair<int, std::size_t>>& to,
                   std::vector<T>& receive, const std::vector<std::pair<int, std::size_t>>& from)
{
    host.exchange(*Executor::create_cpu(), runs(send, to), runs(receive, from));
}

/// The rows of p the halo sends, neighbour after neighbour (S P for S the selection of those
/// rows), on p's executor.
template <typename V>
Csr<V> sent_rows(const Csr<V>& p, const HaloPlan& halo)
{
    std::vector<index_type> selected;
    for (const HaloPlan::Send& send : halo.sends) selected.insert(selected.end(), send.local.begin(), send.local.end());
    const ExecPtr& exec = p.executor();
    const auto count = static_cast<index_type>(selected.size());
    if (count == 0)
        return Csr<V>{0, p.cols, Array<index_type>::from_host(exec, std::vector<index_type>{0}),
                      Array<index_type>(exec, 0), Array<V>(exec, 0)};
    std::vector<index_type> offsets(selected.size() + 1);
    std::iota(offsets.begin(), offsets.end(), index_type(0));
    const Csr<V> selection{count, p.rows, Array<index_type>::from_host(exec, offsets),
                           Array<index_type>::from_host(exec, selected),
                           Array<V>::from_host(exec, std::vector<V>(selected.size(), V(1)))};
    return sparse_product(selection, p);
}

/// The rows of a, then those of b (as many columns), on a's executor.
template <typename V>
Csr<V> stacked(const Csr<V>& a, const Csr<V>& b)
{
    const ExecPtr& exec = a.executor();
    const Executor& e = *exec;
    const auto na = static_cast<std::size_t>(a.nnz()), nb = static_cast<std::size_t>(b.nnz());
    Array<index_type> ptr(exec, static_cast<std::size_t>(a.rows + b.rows) + 1), col(exec, na + nb);
    Array<V> val(exec, na + nb);
    GPUFEM_DISPATCH(e, amg_stacked_offsets(e, a, b, ptr.data()));
    if (na > 0) {
        copy_bytes(e, col.data(), e, a.col_idx.data(), na * sizeof(index_type));
        copy_bytes(e, val.data(), e, a.values.data(), na * sizeof(V));
    }
    if (nb > 0) {
        copy_bytes(e, col.data() + na, e, b.col_idx.data(), nb * sizeof(index_type));
        copy_bytes(e, val.data() + na, e, b.values.data(), nb * sizeof(V));
    }
    return Csr<V>{a.rows + b.rows, a.cols, std::move(ptr), std::move(col), std::move(val)};
}

/// The global number of each of the space's unknowns (owned, then ghosts).
template <typename V>
std::vector<index_type> global_numbers(const PartSpace<V>& space, int rank)
{
    std::vector<index_type> out(static_cast<std::size_t>(space.owned));
    std::iota(out.begin(), out.end(), space.offsets[static_cast<std::size_t>(rank)]);
    out.insert(out.end(), space.ghost_global.begin(), space.ghost_global.end());
    return out;
}

}  // namespace

template <typename V>
Csr<V> unit_rows(const std::vector<index_type>& columns, index_type cols, const ExecPtr& exec)
{
    std::vector<index_type> ptr(columns.size() + 1);
    std::iota(ptr.begin(), ptr.end(), index_type(0));
    return Csr<V>{static_cast<index_type>(columns.size()), cols, Array<index_type>::from_host(exec, ptr),
                  Array<index_type>::from_host(exec, columns),
                  Array<V>::from_host(exec, std::vector<V>(columns.size(), V(1)))};
}

template <typename V>
Csr<V> row_slice(const Csr<V>& a, index_type begin, index_type end)
{
    const ExecPtr& exec = a.executor();
    const Executor& e = *exec;
    index_type bounds[2] = {0, 0};
    copy_bytes(*Executor::create_cpu(), &bounds[0], e, a.row_ptr.data() + begin, sizeof(index_type));
    copy_bytes(*Executor::create_cpu(), &bounds[1], e, a.row_ptr.data() + end, sizeof(index_type));
    const auto nnz = static_cast<std::size_t>(bounds[1] - bounds[0]);
    Array<index_type> ptr(exec, static_cast<std::size_t>(end - begin) + 1), col(exec, nnz);
    Array<V> val(exec, nnz);
    GPUFEM_DISPATCH(e, amg_rebase_offsets(e, end - begin, a.row_ptr.data() + begin, ptr.data()));
    if (nnz > 0) {
        copy_bytes(e, col.data(), e, a.col_idx.data() + bounds[0], nnz * sizeof(index_type));
        copy_bytes(e, val.data(), e, a.values.data() + bounds[0], nnz * sizeof(V));
    }
    return Csr<V>{end - begin, a.cols, std::move(ptr), std::move(col), std::move(val)};
}

template <typename V>
Csr<V> renumbered_columns(Csr<V> a, const std::vector<index_type>& to, index_type cols)
{
    const ExecPtr exec = a.executor();
    const Executor& e = *exec;
    const Array<index_type> map = Array<index_type>::from_host(exec, to);
    GPUFEM_DISPATCH(e, amg_map_columns(e, static_cast<std::size_t>(a.nnz()), map.data(), a.col_idx.data()));
    a.cols = cols;
    return a;
}

std::vector<index_type> rank_offsets(const Communicator& host, index_type count)
{
    const double mine = static_cast<double>(count);
    const std::vector<double> counts = gather_on_every_rank(host, std::span<const double>(&mine, 1));
    std::vector<index_type> offsets(counts.size() + 1, 0);
    for (std::size_t r = 0; r < counts.size(); ++r) {
        const double next = static_cast<double>(offsets[r]) + counts[r];
        if (next > 2147483647.0) throw std::runtime_error("multigrid: a level has more than 2^31 - 1 rows in all");
        offsets[r + 1] = static_cast<index_type>(next);
    }
    return offsets;
}

template <typename V>
Csr<V> rank_prolongator(const Csr<V>& local, const Csr<V>& nonlocal, const Array<V>& dinv, double omega,
                        const Aggregates& aggregates)
{
    Csr<V> p = smoothed_prolongator(local, dinv, omega, aggregates);
    if (nonlocal.nnz() == 0) return p;
    const ExecPtr& exec = local.executor();
    const Executor& e = *exec;
    Array<V> ones(exec, static_cast<std::size_t>(nonlocal.cols)), sums(exec, static_cast<std::size_t>(local.rows));
    fill(ones, V(1));
    GPUFEM_DISPATCH(e, csr_spmv(e, nonlocal, V(1), ones.data(), V(0), sums.data()));  // the ghost row sums
    GPUFEM_DISPATCH(e, amg_lump_into_prolongator(e, p, aggregates.of_node.data(), dinv.data(), static_cast<V>(omega),
                                                 sums.data()));
    return p;
}

template <typename V>
Csr<V> ghost_prolongator_rows(const Csr<V>& p, index_type first, index_type total, const HaloPlan& halo,
                              const Communicator& host, const Communicator& device)
{
    // The rows sent, neighbour after neighbour, picked on p's executor (a selection matrix
    // times P) with their global columns; only their offsets come to the host.
    Csr<V> sent = sent_rows(p, halo);
    const ExecPtr& exec = p.executor();
    const Executor& e = *exec;
    if (first != 0) GPUFEM_DISPATCH(e, amg_shift_columns(e, static_cast<std::size_t>(sent.nnz()), 0, 0, 0, first,
                                                         sent.col_idx.data()));
    const std::vector<index_type> sent_ptr = sent.row_ptr.to_host();
    // Each row's length, neighbour after neighbour (on the host: one number per row).
    std::vector<index_type> lengths(static_cast<std::size_t>(sent.rows));
    for (std::size_t r = 0; r < lengths.size(); ++r) lengths[r] = sent_ptr[r + 1] - sent_ptr[r];
    std::vector<std::pair<int, std::size_t>> rows_to, rows_from;
    for (const HaloPlan::Send& send : halo.sends) rows_to.emplace_back(send.peer, send.local.size());
    for (const GhostBlock& block : halo.receives) rows_from.emplace_back(block.owner, static_cast<std::size_t>(block.count));
    const index_type ghosts = halo.ghosts();
    std::vector<index_type> ghost_ptr(static_cast<std::size_t>(ghosts) + 1, 0);
    exchange_runs(host, lengths, rows_to, ghost_ptr, rows_from);  // lengths land at ghost_ptr[0 ..)
    std::exclusive_scan(ghost_ptr.begin(), ghost_ptr.end(), ghost_ptr.begin(), index_type(0));
    // The entries, straight into the ghost rows' arrays on the devices: per neighbour one run
    // of columns and one of values (both sides skip an empty run alike).
    Array<index_type> ghost_col(exec, static_cast<std::size_t>(ghost_ptr.back()));
    Array<V> ghost_val(exec, ghost_col.size());
    std::vector<ExchangeMessage> sends, receives;
    const auto add = [](std::vector<ExchangeMessage>& into, int peer, index_type* col, V* val, index_type count) {
        if (count == 0) return;
        into.push_back({peer, col, static_cast<std::size_t>(count) * sizeof(index_type)});
        into.push_back({peer, val, static_cast<std::size_t>(count) * sizeof(V)});
    };
    std::size_t row = 0;
    for (const HaloPlan::Send& send : halo.sends) {
        const index_type begin = sent_ptr[row], end = sent_ptr[row + send.local.size()];
        add(sends, send.peer, sent.col_idx.data() + begin, sent.values.data() + begin, end - begin);
        row += send.local.size();
    }
    std::size_t ghost = 0;
    for (const GhostBlock& block : halo.receives) {
        const index_type begin = ghost_ptr[ghost], end = ghost_ptr[ghost + static_cast<std::size_t>(block.count)];
        add(receives, block.owner, ghost_col.data() + begin, ghost_val.data() + begin, end - begin);
        ghost += static_cast<std::size_t>(block.count);
    }
    device.exchange(e, sends, receives);
    return Csr<V>{ghosts, total, Array<index_type>::from_host(exec, ghost_ptr), std::move(ghost_col),
                  std::move(ghost_val)};
}

HaloPlan ghost_halo(const Communicator& host, index_type owned, const std::vector<index_type>& offsets,
                    const std::vector<index_type>& ghosts)
{
    const int me = host.rank();
    const index_type first = offsets[static_cast<std::size_t>(me)];
    std::vector<GhostBlock> blocks;
    for (const index_type g : ghosts) {
        const int owner = static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), g) - offsets.begin()) - 1;
        if (owner == me) throw std::logic_error("multigrid: a rank's ghosts name its own unknown");
        if (blocks.empty() || blocks.back().owner != owner) blocks.push_back({owner, 0});
        ++blocks.back().count;
    }
    return halo_plan_from_names(host, blocks, ghosts.data(), [&](index_type key) -> index_type {
        return key >= first && key < first + owned ? key - first : -1;
    });
}

template <typename V>
CoarseGhosts<V> coarse_ghost_columns(const Csr<V>& wide, const std::vector<index_type>& offsets,
                                     const Communicator& host)
{
    const index_type owned = wide.rows;
    const ExecPtr& exec = wide.row_ptr.executor();
    const Executor& e = *exec;
    // The distinct columns (increasing) are the ghosts; each column becomes its place among
    // them, a monotone renumbering: each row stays sorted. On the device, only the ghosts
    // come to the host.
    const auto nnz = static_cast<std::size_t>(wide.nnz());
    Array<index_type> distinct(exec, nnz), col = wide.col_idx.clone_to(exec);
    const index_type count = GPUFEM_DISPATCH(e, amg_distinct_values(e, nnz, wide.col_idx.data(), distinct.data()));
    std::vector<index_type> ghosts(static_cast<std::size_t>(count));
    copy_bytes(*Executor::create_cpu(), ghosts.data(), e, distinct.data(), ghosts.size() * sizeof(index_type));
    GPUFEM_DISPATCH(e, amg_localize_columns(e, nnz, 0, 0, distinct.data(), count, col.data()));
    HaloPlan halo = ghost_halo(host, owned, offsets, ghosts);
    Csr<V> nonlocal{owned, count, wide.row_ptr.clone_to(exec), std::move(col), wide.values.clone_to(exec)};
    return CoarseGhosts<V>{std::move(nonlocal), std::move(halo)};
}

template <typename V>
Csr<V> gathered_matrix(const Csr<V>& local, const Csr<V>& wide, const std::vector<index_type>& offsets,
                       const Communicator& host, const Communicator& device)
{
    const ExecPtr& exec = local.executor();
    const Executor& e = *exec;
    const int me = host.rank(), ranks = host.size();
    const index_type first = offsets[static_cast<std::size_t>(me)], total = offsets.back();
    const double mine = static_cast<double>(local.nnz() + wide.nnz());
    const std::vector<double> entries = gather_on_every_rank(host, std::span<const double>(&mine, 1));
    std::vector<std::size_t> at(static_cast<std::size_t>(ranks) + 1, 0);  // each rank's first entry
    for (int r = 0; r < ranks; ++r) at[r + 1] = at[r] + static_cast<std::size_t>(entries[r]);
    // This rank's rows land in place (global columns, each row in column order), then every
    // rank sends them to every other, on the devices: the rows arrive in rank order.
    Array<index_type> lengths(exec, static_cast<std::size_t>(total) + 1), columns(exec, at.back());
    Array<V> values(exec, at.back());
    GPUFEM_DISPATCH(e, amg_merge_global_rows(e, local, wide, first, lengths.data() + first,
                                             columns.data() + at[static_cast<std::size_t>(me)],
                                             values.data() + at[static_cast<std::size_t>(me)]));
    // Rank r's rows (its lengths, columns and values) as messages to or from peer.
    const auto rows_of = [&](int r, int peer, std::vector<ExchangeMessage>& into) {
        const auto rows = static_cast<std::size_t>(offsets[r + 1] - offsets[r]), count = at[r + 1] - at[r];
        if (rows > 0) into.push_back({peer, lengths.data() + offsets[r], rows * sizeof(index_type)});
        if (count > 0) {
            into.push_back({peer, columns.data() + at[r], count * sizeof(index_type)});
            into.push_back({peer, values.data() + at[r], count * sizeof(V)});
        }
    };
    std::vector<ExchangeMessage> sends, receives;
    for (int r = 0; r < ranks; ++r) {
        if (r == me) continue;
        rows_of(r, r, receives);
        rows_of(me, r, sends);  // the same rows to every other rank (a send is only read)
    }
    device.exchange(e, sends, receives);
    // The row offsets from the lengths (a few hundred thousand: on the host).
    std::vector<index_type> ptr(static_cast<std::size_t>(total) + 1, 0);
    copy_bytes(*Executor::create_cpu(), ptr.data(), e, lengths.data(), static_cast<std::size_t>(total) * sizeof(index_type));
    std::exclusive_scan(ptr.begin(), ptr.end(), ptr.begin(), index_type(0));
    return Csr<V>{total, total, Array<index_type>::from_host(exec, ptr), std::move(columns), std::move(values)};
}

template <typename V, typename O>
SpaceTransfer<V> space_transfer(const Csr<V, O>& local, const Csr<V>& nonlocal, const HaloPlan& halo,
                                const PartSpace<V>& space, const Communicator& host, const Communicator& device)
{
    const ExecPtr& exec = local.executor();
    StageLaps laps;
    const auto lap = [&](const char* stage) {
        exec->synchronize();
        laps.lap(stage);
    };
    const index_type fine = local.rows, fine_ghosts = halo.ghosts(), owned = space.owned;
    const auto ghosts = static_cast<index_type>(space.ghost_global.size());
    const Csr<V>& t = space.transfer;
    if (t.rows != fine || t.cols != owned + ghosts || nonlocal.cols != fine_ghosts)
        throw std::logic_error("p-multigrid across ranks: the transfer does not match the finer level and the space");
    SpaceTransfer<V> out;
    out.prolongation = split_owned_columns(t, owned, ghosts);
    // P with global coarse columns: this rank's rows, then its finer ghosts' from their owners.
    const index_type first = space.offsets[static_cast<std::size_t>(host.rank())], total = space.offsets.back();
    const Csr<V> p_mine = renumbered_columns(t.clone_to(exec), global_numbers(space, host.rank()), total);
    const Csr<V> p = stacked(p_mine, ghost_prolongator_rows(p_mine, 0, total, halo, host, device));
    lap("P");
    // R = P^T: its owned rows over the finer owned and ghost unknowns, which hold every finer
    // unknown that interpolates from an owned coarse one (checked: no entry of P is lost).
    const Csr<V> r = row_slice(sparse_transpose(p), first, first + owned);
    if (sum_over_processes(host, static_cast<double>(r.nnz())) != sum_over_processes(host, static_cast<double>(p_mine.nnz())))
        throw std::logic_error("p-multigrid across ranks: a finer unknown that interpolates from a coarse one is "
                               "neither owned nor a ghost of the coarse unknown's owner");
    out.restriction = split_owned_columns(r, fine, fine_ghosts);
    lap("R");
    // R A P over this rank's rows of A P and its finer ghosts' from their owners.
    const Csr<V> ap = lattice_product(local, nonlocal, p, space.lattice, WindowCentre::lowest_of_b_row);
    lap("A P");
    const Csr<V> ap_all = stacked(ap, ghost_prolongator_rows(ap, 0, total, halo, host, device));
    lap("ghost rows of A P");
    Csr<V> coarse = lattice_product(r, ap_all, space.lattice, WindowCentre::row_point, first);
    lap("R A P");
    // Own columns first (renumbered from 0), the others after them with their global numbers.
    const Executor& e = *exec;
    GPUFEM_DISPATCH(e, amg_shift_columns(e, static_cast<std::size_t>(coarse.nnz()), first, first + owned, -first,
                                         owned, coarse.col_idx.data()));
    coarse.cols = owned + total;
    SplitRows<V> split = split_owned_columns(coarse, owned, total);
    out.coarse_local = std::move(split.local);
    out.coarse_wide = std::move(split.nonlocal);
    lap("split");
    spdlog::debug("level below {} rows: {}", fine, laps.text);
    return out;
}

#define GPUFEM_INSTANTIATE(V)                                                                                  \
    template Csr<V> rank_prolongator(const Csr<V>&, const Csr<V>&, const Array<V>&, double, const Aggregates&); \
    template Csr<V> ghost_prolongator_rows(const Csr<V>&, index_type, index_type, const HaloPlan&,             \
                                           const Communicator&, const Communicator&);                           \
    template CoarseGhosts<V> coarse_ghost_columns(const Csr<V>&, const std::vector<index_type>&,                 \
                                                  const Communicator&);                                         \
    template Csr<V> gathered_matrix(const Csr<V>&, const Csr<V>&, const std::vector<index_type>&,               \
                                    const Communicator&, const Communicator&);                                  \
    template Csr<V> unit_rows(const std::vector<index_type>&, index_type, const ExecPtr&);                      \
    template Csr<V> row_slice(const Csr<V>&, index_type, index_type);                                           \
    template Csr<V> renumbered_columns(Csr<V>, const std::vector<index_type>&, index_type);                     \
    template SpaceTransfer<V> space_transfer(const Csr<V>&, const Csr<V>&, const HaloPlan&, const PartSpace<V>&, \
                                             const Communicator&, const Communicator&);                       \
    template SpaceTransfer<V> space_transfer(const WideCsr<V>&, const Csr<V>&, const HaloPlan&,                 \
                                             const PartSpace<V>&, const Communicator&, const Communicator&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
