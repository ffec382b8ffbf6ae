// The sellp format: parameter checks, conversion from CSR (dispatched to the executor's
// backend), the operator over the layout, and the builder.
#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "linalg/format_build.hpp"
#include "linalg/sellp.hpp"

namespace gpufem {

int sellp_auto_threads(double mean_row_length)
{
    int threads = 1;
    while (threads < 32 && threads * 8 < mean_row_length) threads *= 2;
    return threads;
}

namespace {

/// Throws std::invalid_argument naming the first parameter out of range.
void check_parameters(index_type slice, int threads, index_type sigma)
{
    if (slice < 1)
        throw std::invalid_argument(fmt::format("format 'sellp': slice height {} < 1", slice));
    if (threads < 1 || threads > 32 || (threads & (threads - 1)) != 0)
        throw std::invalid_argument(fmt::format(
            "format 'sellp': threads per row {} is not 1, 2, 4, 8, 16 or 32", threads));
    if (sigma < 1)
        throw std::invalid_argument(fmt::format("format 'sellp': sorting window {} < 1", sigma));
}

}  // namespace

template <typename V>
Sellp<V> convert_to_sellp(const Csr<V>& matrix, index_type slice, int threads, index_type sigma,
                          SellpPadding padding)
{
    check_parameters(slice, threads, sigma);
    const ExecPtr& exec = matrix.row_ptr.executor();
    Sellp<V> s;
    s.rows = matrix.rows;
    s.cols = matrix.cols;
    s.slice = slice;
    s.threads = threads;
    s.sigma = sigma;
    s.nnz = matrix.nnz();
    s.num_slices = static_cast<index_type>((std::int64_t{matrix.rows} + slice - 1) / slice);
    if (sigma > 1 && matrix.rows > 0) {
        s.row_perm = Array<index_type>(exec, static_cast<std::size_t>(matrix.rows));
        GPUFEM_DISPATCH(*exec, sellp_sort_rows(*exec, matrix, sigma, s.row_perm.data()));
    }
    const index_type* perm = s.row_perm.empty() ? nullptr : s.row_perm.data();
    s.slice_ptr = Array<index_type>(exec, static_cast<std::size_t>(s.num_slices) + 1);
    try {
        s.entries = GPUFEM_DISPATCH(*exec, sellp_slice_pointers(*exec, matrix, perm, s));
    } catch (const std::overflow_error& e) {
        throw std::invalid_argument(fmt::format("format 'sellp': {}", e.what()));
    }
    try {
        s.col_idx = Array<index_type>(exec, static_cast<std::size_t>(s.entries));
        s.values = Array<V>(exec, static_cast<std::size_t>(s.entries));
    } catch (const std::exception& e) {
        const double gib = static_cast<double>(s.entries) *
                           (sizeof(index_type) + sizeof(V)) / (1 << 30);
        throw std::invalid_argument(fmt::format(
            "format 'sellp': {} padded entries need {:.2f} GiB ({})", s.entries, gib, e.what()));
    }
    GPUFEM_DISPATCH(*exec, sellp_fill(*exec, matrix, perm, s, padding));
    return s;
}

template <typename V>
std::size_t sellp_spmv_min_bytes(const Sellp<V>& s)
{
    // Entries of the last slice's padding rows are stored but never read.
    std::int64_t read = s.entries;
    if (s.num_slices > 0) {
        index_type last[2] = {0, 0};
        copy_bytes(*Executor::create_cpu(), last, *s.slice_ptr.executor(),
                   s.slice_ptr.data() + s.num_slices - 1, sizeof(last));
        const std::int64_t extra_rows = std::int64_t{s.num_slices} * s.slice - s.rows;
        read -= extra_rows * ((last[1] - last[0]) / s.slice);
    }
    return static_cast<std::size_t>(read) * (sizeof(index_type) + sizeof(V)) +
           s.slice_ptr.bytes() + s.row_perm.bytes() +
           static_cast<std::size_t>(s.cols) * sizeof(V) +
           static_cast<std::size_t>(s.rows) * sizeof(V);
}

template <typename V>
double sellp_padding_percent(const Sellp<V>& s)
{
    return s.nnz > 0 ? 100.0 * static_cast<double>(s.entries - static_cast<std::int64_t>(s.nnz)) /
                           static_cast<double>(s.nnz)
                     : 0.0;
}

namespace {

/// SELL-P applied with the backend's kernel; y in the matrix's row order whatever sigma.
template <typename V>
class SellpOperator final : public LinearOperator<V> {
public:
    SellpOperator(Sellp<V> s, ExecPtr exec)
        : s_(std::move(s)), exec_(std::move(exec)), min_bytes_(sellp_spmv_min_bytes(s_))
    {}

    index_type rows() const override { return s_.rows; }
    index_type cols() const override { return s_.cols; }
    const ExecPtr& executor() const override { return exec_; }
    std::string format() const override { return "sellp"; }
    std::size_t bytes_stored() const override { return s_.bytes_stored(); }
    std::size_t spmv_min_bytes() const override { return min_bytes_; }
    std::string parameters() const override
    {
        return fmt::format("slice={} t={} sigma={} padding={:.1f}%", s_.slice, s_.threads,
                           s_.sigma, sellp_padding_percent(s_));
    }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override
    {
        GPUFEM_DISPATCH(*exec_, sellp_spmv(*exec_, s_, alpha, x.data(), beta, y.data()));
    }

private:
    Sellp<V> s_;
    ExecPtr exec_;
    std::size_t min_bytes_;
};

}  // namespace

template <typename V>
FormatBuild<V> build_sellp_format(Csr<V> matrix, const SellpOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    ExecPtr exec = matrix.row_ptr.executor();
    const double mean =
        matrix.rows > 0 ? static_cast<double>(matrix.nnz()) / matrix.rows : 0.0;
    const int threads =
        options.threads_per_row > 0 ? options.threads_per_row : sellp_auto_threads(mean);
    FormatBuild<V> build;
    build.op = std::make_unique<SellpOperator<V>>(
        convert_to_sellp(matrix, options.slice, threads, options.sigma), exec);
    exec->synchronize();
    build.convert_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return build;
}

namespace {

template <typename V>
FormatBuild<V> build_sellp(Csr<V> matrix, const FormatOptions& options)
{
    return build_sellp_format(std::move(matrix), options.get<SellpOptions>("sellp"));
}

template <typename V>
FormatBuild<V> build_cusparse_sell(Csr<V> matrix, const FormatOptions& options)
{
    return build_cusparse_sell_format(std::move(matrix),
                                      options.get<CusparseSellOptions>("cusparse-sell"));
}

SellpOptions parse_sellp_options(const OptionReader& reader)
{
    SellpOptions o;
    if (reader.has("slice")) o.slice = static_cast<index_type>(reader.get_int("slice", 1, 1 << 20));
    if (reader.has("threads_per_row")) o.threads_per_row = read_power_of_two(reader, "threads_per_row", 32);
    if (reader.has("sigma")) o.sigma = static_cast<index_type>(reader.get_int("sigma", 1, 1 << 30));
    return o;
}

nlohmann::json sellp_options_json(const SellpOptions& o)
{
    return {{"slice", o.slice}, {"threads_per_row", o.threads_per_row}, {"sigma", o.sigma}};
}

CusparseSellOptions parse_cusparse_sell_options(const OptionReader& reader)
{
    CusparseSellOptions o;
    if (reader.has("slice")) o.slice = static_cast<index_type>(reader.get_int("slice", 1, 1 << 20));
    return o;
}

nlohmann::json cusparse_sell_options_json(const CusparseSellOptions& o) { return {{"slice", o.slice}}; }

/// A sliced ELL's memory: slices of `slice` rows padded to their longest row (rounded up to
/// t), the slice pointers, the diagonal and, when rows are sorted, the row order; `scratch`
/// vectors of the build; the CSR is freed once the slices are filled.
FormatMemory sliced_memory(const MatrixShape& m, double slice, double t, bool sorted, double scratch)
{
    const double padded = std::ceil(m.padded_row_length / t) * t;
    const double padded_rows = std::ceil(m.rows / slice) * slice;
    const double stored = padded * padded_rows * (4 + m.value_bytes) + 4 * (padded_rows / slice + 1) +
                          m.rows * m.value_bytes + (sorted ? 4 * m.rows : 0);
    return {stored, csr_bytes(m) + stored + 12 * m.rows + scratch * m.rows * m.value_bytes, 0};
}

}  // namespace

FormatEntry sellp_format_entry()
{
    FormatEntry e = assembled_format_entry("sellp", "SELL-P: slices of rows, t threads per row (Anzt et al. 2015)",
                                           build_sellp<float>, build_sellp<double>);
    e.options = option_codec<SellpOptions>(
        {{"slice", "32", "rows per slice"},
         {"threads_per_row", "auto", "threads per row, a power of two <= 32 (default: from the mean row length)"},
         {"sigma", "1", "sorting window in rows (1 = none; > 1 = SELL-C-sigma)"}},
        parse_sellp_options, sellp_options_json);
    e.memory = [](const MatrixShape& m, const FormatOptions& options) {
        const auto o = options.get<SellpOptions>("sellp");
        const double mean = m.rows > 0 ? m.nnz / m.rows : 0;
        const int t = o.threads_per_row > 0 ? o.threads_per_row : sellp_auto_threads(mean);
        return sliced_memory(m, o.slice, t, o.sigma > 1, 0);
    };
    return e;
}

FormatEntry cusparse_sell_format_entry()
{
    FormatEntry e = assembled_format_entry("cusparse-sell",
                                           "the vendor sliced-ELL SpMV (cuSPARSE; cuda only)",
                                           build_cusparse_sell<float>, build_cusparse_sell<double>);
    e.on_cpu = false;
    e.options = option_codec<CusparseSellOptions>({{"slice", "32", "rows per slice"}},
                                                  parse_cusparse_sell_options,
                                                  cusparse_sell_options_json);
    e.memory = [](const MatrixShape& m, const FormatOptions& options) {
        return sliced_memory(m, options.get<CusparseSellOptions>("cusparse-sell").slice, 1, false, 2);
    };
    return e;
}

#define GPUFEM_INSTANTIATE(V)                                                                \
    template Sellp<V> convert_to_sellp(const Csr<V>&, index_type, int, index_type,           \
                                       SellpPadding);                                        \
    template std::size_t sellp_spmv_min_bytes(const Sellp<V>&);                              \
    template double sellp_padding_percent(const Sellp<V>&);                                  \
    template FormatBuild<V> build_sellp_format(Csr<V>, const SellpOptions&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
