// Staircase SELL (Wikberg 2025, §4.3; docs/references.md): the index structure, the
// conversion from CSR and the operator.
//
// Conversion (build_staircase_format):
//   host:   download row_ptr / col_idx, Cuthill–McKee order (Boost.Graph, not reversed, as in
//           the paper), stable counting sort of that order by row length (sigma), the
//           histogram of row lengths and Algorithm 3 (the groups). All O(n) except CM; the
//           pattern is on the host for CM anyway, so the sort is done there too.
//   device: upload sigma, P A P^T (permute_symmetric: columns relabelled and sorted within
//           each row, as §4.3.3 asks), fill of the slices (one thread per stored row).
// The permutation is symmetric, as in the paper (row order and columns both follow sigma), so
// the operator works in the new numbering and FormatBuild::permutation = sigma.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "linalg/format_build.hpp"
#include "linalg/reordering.hpp"
#include "linalg/staircase.hpp"

namespace gpufem {

std::vector<index_type> staircase_row_order(const std::vector<index_type>& cm_order,
                                            const std::vector<index_type>& row_ptr)
{
    const std::size_t n = cm_order.size();
    if (row_ptr.size() != n + 1)
        throw std::invalid_argument("staircase_row_order: row_ptr does not match the order");
    index_type longest = 0;
    for (std::size_t i = 0; i < n; ++i) longest = std::max(longest, row_ptr[i + 1] - row_ptr[i]);
    // Counting sort by length: stable, so rows of one length keep their CM order.
    std::vector<index_type> first(static_cast<std::size_t>(longest) + 2, 0);
    for (index_type old_row : cm_order) ++first[row_ptr[old_row + 1] - row_ptr[old_row] + 1];
    for (std::size_t l = 1; l < first.size(); ++l) first[l] += first[l - 1];
    std::vector<index_type> order(n);
    for (index_type old_row : cm_order) order[first[row_ptr[old_row + 1] - row_ptr[old_row]]++] = old_row;
    return order;
}

std::vector<StaircaseGroup> staircase_groups(const std::vector<index_type>& rows_with_length,
                                             double alpha, index_type slice_height)
{
    if (slice_height < 1) throw std::invalid_argument("staircase: slice height must be >= 1");
    if (!(alpha >= 0)) throw std::invalid_argument("staircase: alpha must be >= 0");
    std::int64_t n = 0;
    for (index_type r : rows_with_length) n += r;
    std::vector<StaircaseGroup> groups;
    if (n == 0) return groups;
    const double threshold = alpha * static_cast<double>(n);
    const std::int64_t sh = slice_height;
    std::int64_t carried = 0, row = 0, offset = 0;
    std::size_t longest = rows_with_length.size() - 1;  // the longest row (trailing empty bins ignored)
    while (rows_with_length[longest] == 0) --longest;
    const auto append = [&](std::size_t length, std::int64_t stored_rows) {
        if (stored_rows == 0) return;
        groups.push_back({static_cast<index_type>(length), static_cast<index_type>(row),
                          checked_index(stored_rows, "staircase rows incl. padding"),
                          checked_index(offset, "staircase stored entries")});
        row += stored_rows;
        offset += stored_rows * static_cast<std::int64_t>(length);
        checked_index(offset, "staircase stored entries");
    };
    for (std::size_t length = 0; length < longest; ++length) {
        const std::int64_t h = rows_with_length[length] + carried;
        if (static_cast<double>(h) < threshold) {
            carried = h;  // too small: merged into the next longer bin
            continue;
        }
        const std::int64_t kept = (h / sh) * sh;  // full slices; the rest goes up
        carried = h - kept;
        append(length, kept);
    }
    const std::int64_t h = rows_with_length[longest] + carried;
    append(longest, (h + sh - 1) / sh * sh);
    return groups;
}

template <typename V>
StaircaseMatrix<V> make_staircase_matrix(const Csr<V>& permuted, std::vector<StaircaseGroup> groups,
                                         index_type slice_height)
{
    const ExecPtr& exec = permuted.executor();
    StaircaseMatrix<V> a;
    a.rows = permuted.rows;
    a.cols = permuted.cols;
    a.slice_height = slice_height;
    std::size_t stored = 0;
    if (!groups.empty()) {
        const StaircaseGroup& last = groups.back();
        stored = static_cast<std::size_t>(last.offset) +
                 static_cast<std::size_t>(last.rows) * static_cast<std::size_t>(last.length);
        if (last.row_start + last.rows < a.rows)
            throw std::invalid_argument("staircase: groups do not cover the matrix");
    }
    a.groups = std::move(groups);
    a.group_table = Array<StaircaseGroup>::from_host(exec, a.groups);
    a.col_idx = Array<index_type>(exec, stored);
    a.values = Array<V>(exec, stored);
    GPUFEM_DISPATCH(*exec, staircase_fill(*exec, permuted, a));
    return a;
}

namespace {

/// The staircase SELL operator: y = alpha A x + beta y in the new numbering.
template <typename V>
class StaircaseOperator final : public LinearOperator<V> {
public:
    StaircaseOperator(StaircaseMatrix<V> matrix, std::size_t nnz, double alpha, bool streams)
        : matrix_(std::move(matrix)), nnz_(nnz), alpha_(alpha), use_streams_(streams)
    {
        // One group needs no fork/join: it runs on the executor's stream either way.
        if (use_streams_ && executor()->is_cuda() && matrix_.groups.size() > 1)
            streams_ = kernels::cuda::create_staircase_streams(
                *executor(), static_cast<int>(matrix_.groups.size()));
    }
    ~StaircaseOperator() override { kernels::cuda::destroy_staircase_streams(streams_); }
    StaircaseOperator(const StaircaseOperator&) = delete;
    StaircaseOperator& operator=(const StaircaseOperator&) = delete;

    index_type rows() const override { return matrix_.rows; }
    index_type cols() const override { return matrix_.cols; }
    const ExecPtr& executor() const override { return matrix_.values.executor(); }
    std::string format() const override { return "staircase"; }
    std::size_t bytes_stored() const override { return matrix_.bytes_stored(); }
    /// values and columns once (padding included), x once, y written once. The group table
    /// (16 bytes a group, read only by the single launch) is left out.
    std::size_t spmv_min_bytes() const override
    {
        return matrix_.values.bytes() + matrix_.col_idx.bytes() +
               sizeof(V) * (static_cast<std::size_t>(matrix_.cols) +
                            static_cast<std::size_t>(matrix_.rows));
    }
    /// e.g. "alpha=0.01 sh=32 groups=2 (lengths 5,7) padding=1.3% streams=on"; padding is the
    /// share of stored entries that are fill (padded rows and padding rows).
    std::string parameters() const override
    {
        std::string lengths;
        for (const auto& g : matrix_.groups) {
            if (!lengths.empty()) lengths += ',';
            lengths += std::to_string(g.length);
        }
        const double stored = static_cast<double>(matrix_.stored_entries());
        const double padding = stored > 0 ? 100.0 * (stored - static_cast<double>(nnz_)) / stored : 0.0;
        return fmt::format("alpha={:g} sh={} groups={} (lengths {}) padding={:.1f}% streams={} block={}",
                           alpha_, matrix_.slice_height, matrix_.groups.size(), lengths, padding,
                           use_streams_ ? "on" : "off", matrix_.block);
    }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override
    {
        const Executor& exec = *executor();
        GPUFEM_DISPATCH(exec, staircase_spmv(exec, matrix_, alpha, x.data(), beta, y.data(),
                                             streams_.streams.empty() ? nullptr : &streams_));
    }

private:
    StaircaseMatrix<V> matrix_;
    std::size_t nnz_;
    double alpha_;
    bool use_streams_;
    StaircaseStreams streams_;
};

}  // namespace

template <typename V>
FormatBuild<V> build_staircase_format(Csr<V> matrix, const StaircaseOptions& options)
{
    if (matrix.rows != matrix.cols)
        throw std::invalid_argument("format 'staircase' needs a square matrix (it renumbers rows "
                                    "and columns symmetrically)");
    if (options.slice_height < 1)
        throw std::invalid_argument("format 'staircase': slice_height must be >= 1");
    if (options.block < 32 || options.block > 1024 || options.block % 32 != 0)
        throw std::invalid_argument("format 'staircase': block must be a multiple of 32 from 32 to 1024");
    if (!(options.alpha >= 0) || !std::isfinite(options.alpha))
        throw std::invalid_argument("format 'staircase': alpha must be >= 0");
    const auto start = std::chrono::steady_clock::now();
    const ExecPtr exec = matrix.executor();
    const index_type n = matrix.rows;
    const std::size_t nnz = matrix.nnz();

    // Host: CM order, sigma, histogram, groups.
    std::vector<index_type> sigma;
    std::vector<index_type> rows_with_length;
    {
        const std::vector<index_type> row_ptr = matrix.row_ptr.to_host();
        const std::vector<index_type> col_idx = matrix.col_idx.to_host();
        std::vector<index_type> order(static_cast<std::size_t>(n));
        if (options.cuthill_mckee)
            order = cuthill_mckee_order(n, row_ptr, col_idx, false);
        else
            for (index_type i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
        sigma = staircase_row_order(order, row_ptr);
        index_type longest = 0;
        for (index_type i = 0; i < n; ++i) longest = std::max(longest, row_ptr[i + 1] - row_ptr[i]);
        rows_with_length.assign(static_cast<std::size_t>(longest) + 1, 0);
        for (index_type i = 0; i < n; ++i) ++rows_with_length[row_ptr[i + 1] - row_ptr[i]];
    }
    std::vector<StaircaseGroup> groups =
        staircase_groups(rows_with_length, options.alpha, options.slice_height);

    // Device (or the CPU executor): P A P^T, then the slices.
    FormatBuild<V> build;
    build.permutation = Array<index_type>::from_host(exec, sigma);
    StaircaseMatrix<V> layout;
    {
        const Csr<V> permuted = permute_symmetric(matrix, build.permutation);
        matrix = Csr<V>{};  // the input is no longer needed
        layout = make_staircase_matrix(permuted, std::move(groups), options.slice_height);
        layout.block = options.block;
    }
    build.op = std::make_unique<StaircaseOperator<V>>(std::move(layout), nnz, options.alpha,
                                                      options.streams);
    exec->synchronize();
    build.convert_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    build.host_steps = options.cuthill_mckee
                           ? "Cuthill-McKee order (Boost.Graph), stable sort by row length and grouping (Algorithm 3)"
                           : "stable sort by row length (no Cuthill-McKee) and grouping (Algorithm 3)";
    return build;
}

namespace {

template <typename V>
FormatBuild<V> build_staircase(Csr<V> matrix, const FormatOptions& options)
{
    return build_staircase_format(std::move(matrix), options.get<StaircaseOptions>("staircase"));
}

StaircaseOptions parse_staircase_options(const OptionReader& reader)
{
    StaircaseOptions o;
    if (reader.has("alpha")) o.alpha = reader.get_double("alpha", 0, 1, true);
    if (reader.has("slice_height"))
        o.slice_height = static_cast<index_type>(reader.get_int("slice_height", 1, 1 << 20));
    if (reader.has("streams")) o.streams = reader.get_bool("streams");
    if (reader.has("order")) {
        constexpr std::string_view orders[] = {"cm", "none"};
        o.cuthill_mckee = reader.get_choice("order", orders) == "cm";
    }
    if (reader.has("block")) {
        o.block = static_cast<index_type>(reader.get_int("block", 32, 1024));
        if (o.block % 32 != 0) reader.fail("block", "expected a multiple of 32 from 32 to 1024");
    }
    return o;
}

nlohmann::json staircase_options_json(const StaircaseOptions& o)
{
    return {{"alpha", o.alpha}, {"slice_height", o.slice_height}, {"streams", o.streams},
            {"order", o.cuthill_mckee ? "cm" : "none"}, {"block", o.block}};
}

}  // namespace

FormatEntry staircase_format_entry()
{
    FormatEntry e = assembled_format_entry(
        "staircase", "Staircase SELL: Cuthill-McKee, rows grouped by length (Wikberg 2025)",
        build_staircase<float>, build_staircase<double>);
    e.options = option_codec<StaircaseOptions>(
        {{"alpha", "0.01", "merge row-length groups smaller than alpha * rows, in [0, 1)"},
         {"slice_height", "32", "rows per slice"},
         {"streams", "true", "one CUDA stream per group (false: a single launch)"},
         {"order", "cm", "cm: Cuthill-McKee before the length sort | none: the matrix's own order"},
         {"block", "256", "cuda threads per block, a multiple of 32 <= 1024 (the paper: the slice height)"}},
        parse_staircase_options, staircase_options_json);
    e.orders_on_host = true;
    e.memory = [](const MatrixShape& m, const FormatOptions&) {
        // Rows grouped by length pad little (2% assumed); the permutation is kept. The build
        // holds the matrix and its permuted copy at once.
        const double stored = 1.02 * m.nnz * (4 + m.value_bytes) + 8 * m.rows + m.rows * m.value_bytes;
        const double permuting = csr_bytes(m) + symmetric_permutation_bytes(m) + 2 * m.rows * m.value_bytes;
        return FormatMemory{stored, std::max(permuting, csr_bytes(m) + stored), cuthill_mckee_host_bytes(m)};
    };
    return e;
}

#define GPUFEM_INSTANTIATE(V)                                                                   \
    template StaircaseMatrix<V> make_staircase_matrix(const Csr<V>&, std::vector<StaircaseGroup>, \
                                                      index_type);                              \
    template FormatBuild<V> build_staircase_format(Csr<V>, const StaircaseOptions&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
