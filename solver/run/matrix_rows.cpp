#include "solver/run/matrix_rows.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <span>
#include <exception>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "assembly/matrix_file_system.hpp"
#include "linalg/byte_stream.hpp"
#include "linalg/rank_messages.hpp"
#include "solver/multigrid/distributed_levels.hpp"

namespace gpufem {
namespace {

/// The first row of each rank's block and, last, the rows: contiguous blocks of about
/// nnz / ranks entries each, every rank at least one row.
std::vector<index_type> row_blocks(const std::vector<index_type>& row_ptr, int ranks)
{
    const auto rows = static_cast<index_type>(row_ptr.size() - 1);
    std::vector<index_type> first(static_cast<std::size_t>(ranks) + 1, rows);
    first[0] = 0;
    const double nnz = row_ptr.back();
    for (int r = 1; r < ranks; ++r) {
        const auto target = static_cast<index_type>(std::llround(nnz * r / ranks));
        auto row = static_cast<index_type>(std::lower_bound(row_ptr.begin(), row_ptr.end(), target) - row_ptr.begin());
        // At least one row each, before and after.
        row = std::clamp(row, first[static_cast<std::size_t>(r) - 1] + 1, rows - (ranks - r));
        first[static_cast<std::size_t>(r)] = row;
    }
    return first;
}

/// Rank 0: the system read and scaled into V, and each rank's message (its first row, its
/// rows' offsets, global columns and values, its right-hand side).
template <typename V>
std::vector<std::vector<std::byte>> messages_of_whole(const CaseSpec& spec, int ranks, RankMatrixRows<V>& out)
{
    auto read = read_external_system(spec.matrix->file, spec.matrix->rhs);
    const ExternalSystemDiscretisation<V> disc(read);
    const LinearSystem<V> whole = disc.assemble(Executor::create_cpu());
    out.describe = disc.describe();
    out.report = disc.report();
    if (whole.matrix.rows < ranks)
        throw std::invalid_argument(fmt::format("{}: {} rows, fewer than the {} ranks", spec.matrix->file.string(),
                                                whole.matrix.rows, ranks));
    const std::vector<index_type> ptr = whole.matrix.row_ptr.to_host(), col = whole.matrix.col_idx.to_host();
    const std::vector<V> val = whole.matrix.values.to_host(), rhs = whole.rhs.to_host();
    const std::vector<index_type> first = row_blocks(ptr, ranks);
    std::vector<std::vector<std::byte>> messages(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
        const index_type begin = first[static_cast<std::size_t>(r)], end = first[static_cast<std::size_t>(r) + 1];
        std::vector<index_type> offsets(ptr.begin() + begin, ptr.begin() + end + 1);
        for (index_type& o : offsets) o -= ptr[static_cast<std::size_t>(begin)];
        const auto entries = static_cast<std::size_t>(offsets.back());
        const auto at = static_cast<std::size_t>(ptr[static_cast<std::size_t>(begin)]);
        ByteWriter w;
        w.value<index_type>(begin);
        w.values(offsets);
        w.values(std::span<const index_type>(col.data() + at, entries));
        w.values(std::span<const V>(val.data() + at, entries));
        w.values(std::span<const V>(rhs.data() + begin, static_cast<std::size_t>(end - begin)));
        messages[static_cast<std::size_t>(r)] = std::move(w.bytes());
    }
    return messages;
}

/// This rank's rows from its message: the columns outside its block become ghosts.
template <typename V>
void unpack_rows(const std::vector<std::byte>& message, const RankGroup& group, RankMatrixRows<V>& out)
{
    ByteReader reader(message);
    out.first_row = reader.value<index_type>();
    std::vector<index_type> ptr, col;
    std::vector<V> val, rhs;
    reader.values(ptr);
    reader.values(col);
    reader.values(val);
    reader.values(rhs);
    const auto n = static_cast<index_type>(rhs.size());
    if (ptr.size() != rhs.size() + 1 || val.size() != col.size())
        throw std::logic_error("matrix rows: a rank's rows do not hold their entries");
    const std::vector<index_type> offsets = rank_offsets(group.host, n);
    if (offsets[static_cast<std::size_t>(group.host.rank())] != out.first_row)
        throw std::logic_error("matrix rows: the blocks are not in rank order");
    std::vector<index_type> ghosts;
    for (const index_type c : col)
        if (c < out.first_row || c >= out.first_row + n) ghosts.push_back(c);
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
    for (index_type& c : col)
        c = c >= out.first_row && c < out.first_row + n
                ? c - out.first_row
                : n + static_cast<index_type>(std::lower_bound(ghosts.begin(), ghosts.end(), c) - ghosts.begin());
    PartNumbering& numbering = out.part.numbering;
    out.part.halo = ghost_halo(group.host, n, offsets, ghosts);
    numbering.layout = DofLayout{n, out.part.halo.receives};  // the ghosts' blocks by owner
    for (index_type i = 0; i < n; ++i) numbering.global.push_back(out.first_row + i);
    numbering.global.insert(numbering.global.end(), ghosts.begin(), ghosts.end());
    const ExecPtr& exec = group.exec;
    const auto cols = static_cast<index_type>(n + static_cast<index_type>(ghosts.size()));
    out.system.matrix = Csr<V>{n, cols, Array<index_type>::from_host(exec, ptr), Array<index_type>::from_host(exec, col),
                               Array<V>::from_host(exec, val)};
    out.system.rhs = Array<V>::from_host(exec, rhs);
    out.system.initial_guess = Array<V>::from_host(exec, std::vector<V>(static_cast<std::size_t>(n), V(0)));
}

}  // namespace

template <typename V>
RankMatrixRows<V> receive_matrix_rows(const CaseSpec& spec, const RankGroup& group, RankPhases& phases)
{
    RankMatrixRows<V> out;
    out.against_ones = spec.matrix->rhs.empty();
    std::exception_ptr failure;
    std::vector<std::vector<std::byte>> messages;
    using clock = std::chrono::steady_clock;
    const auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
    auto start = clock::now();
    if (group.host.rank() == 0) {
        try {
            messages = messages_of_whole<V>(spec, group.host.size(), out);
        } catch (...) {
            failure = std::current_exception();
        }
    }
    stop_if_any_failed(group.host, failure);
    phases.mesh = since(start);
    start = clock::now();
    const std::vector<std::byte> mine = scatter_from_root(group.host, std::move(messages));
    unpack_rows(mine, group, out);
    phases.scatter = since(start);
    if (group.host.rank() == 0)
        spdlog::info("{}: read and scaled in {:.3f} s, rows sent to {} ranks in blocks of about equal entries "
                     "({:.3f} s)", out.describe, phases.mesh, group.host.size(), phases.scatter);
    return out;
}

std::vector<double> gather_matrix_solution(const Communicator& host, index_type first_row,
                                           const std::vector<double>& mine)
{
    ByteWriter w;
    w.value<index_type>(first_row);
    w.values(mine);
    std::vector<double> out;
    for (const std::vector<std::byte>& m : gather_to_root(host, std::move(w.bytes()))) {
        ByteReader r(m);
        const auto first = static_cast<std::size_t>(r.value<index_type>());
        std::vector<double> values;
        r.values(values);
        out.resize(std::max(out.size(), first + values.size()));
        std::copy(values.begin(), values.end(), out.begin() + static_cast<std::ptrdiff_t>(first));
    }
    return out;
}

ErrorNorms error_against_ones(const std::vector<double>& u)
{
    ErrorNorms e;
    double squares = 0;
    for (const double value : u) {
        const double d = value - 1.0;
        squares += d * d;
        e.max_nodal = std::isnan(d) || std::isnan(e.max_nodal) ? NAN : std::max(e.max_nodal, std::abs(d));
    }
    e.l2 = std::sqrt(squares);
    e.l2_exact = std::sqrt(static_cast<double>(u.size()));
    return e;
}

template RankMatrixRows<float> receive_matrix_rows(const CaseSpec&, const RankGroup&, RankPhases&);
template RankMatrixRows<double> receive_matrix_rows(const CaseSpec&, const RankGroup&, RankPhases&);

}  // namespace gpufem
