#include "solver/run/rank_export.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "linalg/byte_stream.hpp"
#include "linalg/executor.hpp"
#include "linalg/matrix_market.hpp"
#include "linalg/rank_messages.hpp"
#include "solver/run/output_files.hpp"

namespace gpufem {
namespace {

/// A rank's share in global numbers: rows, their row offsets, columns, values, rhs and x.
struct GlobalShare {
    std::vector<std::int64_t> rows, offsets, columns;
    std::vector<double> values, rhs, x;
};

/// mine with every row and column in the whole system's numbering, packed.
std::vector<std::byte> packed(const RankRowsToExport& mine)
{
    const std::vector<index_type>& global = *mine.global;
    const std::vector<index_type> ptr = mine.rows.row_ptr.to_host(), col = mine.rows.col_idx.to_host();
    const auto n = static_cast<std::size_t>(mine.rows.rows);
    GlobalShare s;
    s.rows.assign(global.begin(), global.begin() + static_cast<std::ptrdiff_t>(n));
    s.offsets.assign(ptr.begin(), ptr.end());
    s.columns.resize(col.size());
    for (std::size_t k = 0; k < col.size(); ++k) s.columns[k] = global[static_cast<std::size_t>(col[k])];
    ByteWriter w;
    w.values(s.rows);
    w.values(s.offsets);
    w.values(s.columns);
    w.values(mine.rows.values.to_host());
    w.values(mine.rhs);
    w.values(mine.x);
    return std::move(w.bytes());
}

GlobalShare unpacked(const std::vector<std::byte>& in)
{
    ByteReader r(in);
    GlobalShare s;
    r.values(s.rows);
    r.values(s.offsets);
    r.values(s.columns);
    r.values(s.values);
    r.values(s.rhs);
    r.values(s.x);
    if (s.offsets.size() != s.rows.size() + 1 || s.values.size() != s.columns.size() || s.rhs.size() != s.rows.size() ||
        s.x.size() != s.rows.size())
        throw std::runtime_error("--export-matrix: a rank's share does not hold its rows' entries");
    return s;
}

/// The whole system from every rank's share: A (rows' columns in increasing order), b, x.
struct WholeSystem {
    Csr<double> a;
    std::vector<double> b, x;
};

/// Row lengths of every share's rows, checked to number each row of the whole once.
std::vector<std::int64_t> row_lengths(const std::vector<GlobalShare>& shares, std::size_t n)
{
    std::vector<std::int64_t> length(n, -1);
    for (const GlobalShare& s : shares)
        for (std::size_t i = 0; i < s.rows.size(); ++i) {
            const std::int64_t row = s.rows[i];
            if (row < 0 || static_cast<std::size_t>(row) >= n || length[static_cast<std::size_t>(row)] >= 0)
                throw std::runtime_error(fmt::format("--export-matrix: row {} is outside the {} rows or owned twice", row, n));
            length[static_cast<std::size_t>(row)] = s.offsets[i + 1] - s.offsets[i];
        }
    return length;
}

WholeSystem whole_system(const std::vector<GlobalShare>& shares)
{
    std::size_t n = 0, nnz = 0;
    for (const GlobalShare& s : shares) n += s.rows.size(), nnz += s.columns.size();
    if (nnz > static_cast<std::size_t>(std::numeric_limits<index_type>::max()))
        throw std::runtime_error(fmt::format("--export-matrix: the matrix has {} non-zeros, past 2,147,483,647; gpufem "
                                             "does not write Matrix Market files of that size", nnz));
    const std::vector<std::int64_t> length = row_lengths(shares, n);
    std::vector<index_type> ptr(n + 1, 0), col(nnz);
    std::vector<double> val(nnz);
    WholeSystem w{Csr<double>{}, std::vector<double>(n), std::vector<double>(n)};
    for (std::size_t i = 0; i < n; ++i) ptr[i + 1] = ptr[i] + static_cast<index_type>(length[i]);
    for (const GlobalShare& s : shares)
        for (std::size_t i = 0; i < s.rows.size(); ++i) {
            const auto row = static_cast<std::size_t>(s.rows[i]);
            std::vector<std::pair<std::int64_t, double>> entries;
            for (std::int64_t k = s.offsets[i]; k < s.offsets[i + 1]; ++k)
                entries.emplace_back(s.columns[static_cast<std::size_t>(k)], s.values[static_cast<std::size_t>(k)]);
            std::sort(entries.begin(), entries.end());
            auto at = static_cast<std::size_t>(ptr[row]);
            for (const auto& [c, v] : entries) col[at] = static_cast<index_type>(c), val[at++] = v;
            w.b[row] = s.rhs[i];
            w.x[row] = s.x[i];
        }
    const ExecPtr cpu = Executor::create_cpu();
    w.a = Csr<double>{static_cast<index_type>(n), static_cast<index_type>(n), Array<index_type>::from_host(cpu, ptr),
                      Array<index_type>::from_host(cpu, col), Array<double>::from_host(cpu, val)};
    return w;
}

/// v on the host in double.
template <typename V>
std::vector<double> host_doubles(const Array<V>& v)
{
    const std::vector<V> host = v.to_host();
    return std::vector<double>(host.begin(), host.end());
}

}  // namespace

template <typename V>
RankRowsToExport rows_to_export(const Csr<V>& rows, const Array<V>& rhs, const Array<V>& x,
                                const std::vector<index_type>& global)
{
    const ExecPtr cpu = Executor::create_cpu();
    RankRowsToExport out;
    out.rows = Csr<double>{rows.rows, rows.cols, rows.row_ptr.clone_to(cpu), rows.col_idx.clone_to(cpu),
                           Array<double>::from_host(cpu, host_doubles(rows.values))};
    out.rhs = host_doubles(rhs);
    out.x = host_doubles(x);
    if (out.rhs.size() != static_cast<std::size_t>(rows.rows) || out.x.size() != out.rhs.size() ||
        global.size() < static_cast<std::size_t>(rows.cols))
        throw std::logic_error("rows_to_export: the rows, vectors and numbering do not match");
    out.global = &global;
    return out;
}

template RankRowsToExport rows_to_export(const Csr<float>&, const Array<float>&, const Array<float>&,
                                         const std::vector<index_type>&);
template RankRowsToExport rows_to_export(const Csr<double>&, const Array<double>&, const Array<double>&,
                                         const std::vector<index_type>&);

void export_rank_system(const Communicator& host, const RankRowsToExport& mine, const std::filesystem::path& dir,
                        const std::string& what)
{
    std::vector<std::vector<std::byte>> messages = gather_to_root(host, packed(mine));
    if (host.rank() != 0) return;
    std::vector<GlobalShare> shares;
    for (std::vector<std::byte>& message : messages) {
        shares.push_back(unpacked(message));
        message = {};
    }
    const WholeSystem w = whole_system(shares);
    shares.clear();
    StagedOutputs outputs(dir);
    write_matrix_market(outputs.stage("A.mtx"), w.a, what + ", the system matrix");
    write_matrix_market_vector(outputs.stage("b.mtx"), w.b, what + ", the right-hand side");
    write_matrix_market_vector(outputs.stage("x.mtx"), w.x, what + ", the solution");
    outputs.commit();
    spdlog::info("exported A.mtx, b.mtx, x.mtx ({} rows, {} non-zeros, from {} ranks) to {}", w.a.rows, w.a.nnz(),
                 host.size(), outputs.dir().string());
}

}  // namespace gpufem
