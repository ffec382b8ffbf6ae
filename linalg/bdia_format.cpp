// The bdia format (Wang, Ren & Tian 2013): reverse Cuthill–McKee renumbering (kept unless the
// matrix's own numbering needs no larger band), then the bands of the matrix in that numbering
// (linalg/bdia.hpp); conversion dispatched to the executor's backend, the operator over the
// layout, and the builder.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

#include "linalg/bdia.hpp"
#include "linalg/format_build.hpp"
#include "linalg/reordering.hpp"

namespace gpufem {
namespace {

/// "41.2 GiB", "3.0 MiB", "512 B".
std::string human_bytes(std::size_t bytes)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, units[unit]);
}

/// The slab bands of a square matrix (offset, width, slab_ptr, stats) without the values,
/// and the number of values they need; on the matrix's executor.
template <typename V>
Bdia<V> plan_bdia(const Csr<V>& matrix, std::int64_t& stored)
{
    if (matrix.rows != matrix.cols)
        throw std::invalid_argument(fmt::format("format 'bdia': the matrix is not square ({} x {})",
                                                matrix.rows, matrix.cols));
    const ExecPtr& exec = matrix.row_ptr.executor();
    Bdia<V> b;
    b.rows = matrix.rows;
    const auto slabs = static_cast<std::size_t>(b.slabs());
    b.slab_ptr = Array<std::int64_t>(exec, slabs + 1);
    b.offset = Array<index_type>(exec, slabs);
    b.width = Array<index_type>(exec, slabs);
    Array<index_type> stats(exec, 2);
    GPUFEM_DISPATCH(*exec, bdia_slab_bands(*exec, matrix, b.offset.data(), b.width.data(),
                                           b.slab_ptr.data(), stats.data()));
    // Three scalars back to the host: the half bandwidth, the widest band, the band's size.
    const auto host_stats = stats.to_host();
    b.half_bandwidth = host_stats[0];
    b.max_width = host_stats[1];
    copy_bytes(*Executor::create_cpu(), &stored, *exec, b.slab_ptr.data() + slabs, sizeof(stored));
    return b;
}

/// Refuses (std::invalid_argument naming the memory needed) when the planned band exceeds
/// max_bytes, or when that is 0 the free memory of the executor; otherwise allocates and
/// fills the values.
template <typename V>
Bdia<V> fill_bdia(const Csr<V>& matrix, Bdia<V> b, std::int64_t stored, std::size_t max_bytes)
{
    const ExecPtr& exec = matrix.row_ptr.executor();
    const std::size_t needed = bdia_bytes<V>(stored, b.rows);
    const bool given = max_bytes > 0;
    const std::size_t limit =
        given ? max_bytes : GPUFEM_DISPATCH(*exec, bdia_available_bytes(*exec));
    if (needed > limit)
        throw std::invalid_argument(fmt::format(
            "format 'bdia': band of half width {} needs {} ({} rows, bands of up to {} "
            "diagonals, {} stored values of {}); {} is {}",
            b.half_bandwidth, human_bytes(needed), b.rows, b.max_width, stored,
            precision_name<V>(),
            given             ? "format_options.bdia.max_bytes"
            : exec->is_cuda() ? "the free device memory"
                              : "half the host memory",
            human_bytes(limit)));
    b.values = Array<V>(exec, static_cast<std::size_t>(stored));
    GPUFEM_DISPATCH(*exec, bdia_fill(*exec, matrix, b));
    return b;
}

}  // namespace

template <typename V>
Bdia<V> convert_to_bdia(const Csr<V>& matrix, std::size_t max_bytes)
{
    std::int64_t stored = 0;
    Bdia<V> b = plan_bdia(matrix, stored);
    return fill_bdia(matrix, std::move(b), stored, max_bytes);
}

namespace {

/// bDIA applied with the backend's kernel; works entirely in the numbering the builder chose
/// (RCM, or the matrix's own).
template <typename V>
class BdiaOperator final : public LinearOperator<V> {
public:
    BdiaOperator(Bdia<V> band, bool rcm)
        : band_(std::move(band)), exec_(band_.slab_ptr.executor()), rcm_(rcm)
    {
        const auto widths = band_.width.to_host();
        for (std::size_t s = 0; s < widths.size(); ++s) {
            const auto first = static_cast<std::int64_t>(s) * bdia_slab;
            band_entries_ += std::min<std::int64_t>(bdia_slab, band_.rows - first) * widths[s];
        }
        if (exec_->is_cuda()) {
            // How the CUDA kernel will treat the slabs (for parameters()): a window of
            // bdia_slab + width - 1 values in shared memory, or x from global memory.
            const std::int64_t capacity = bdia_default_shared_bytes / sizeof(V);
            shared_bytes_ = static_cast<std::size_t>(
                                std::min<std::int64_t>(std::int64_t{band_.max_width} + bdia_slab - 1, capacity)) *
                            sizeof(V);
            for (index_type w : widths)
                if (std::int64_t{w} + bdia_slab - 1 > capacity) ++global_slabs_;
        }
    }

    /// See bdia_band_entries().
    std::int64_t band_entries() const { return band_entries_; }

    index_type rows() const override { return band_.rows; }
    index_type cols() const override { return band_.rows; }
    const ExecPtr& executor() const override { return exec_; }
    std::string format() const override { return "bdia"; }
    std::size_t bytes_stored() const override { return band_.bytes_stored(); }
    /// Every stored band entry (zeros included) and the slab descriptors once, x once, y
    /// written once.
    std::size_t spmv_min_bytes() const override
    {
        return band_.bytes_stored() + 2 * static_cast<std::size_t>(band_.rows) * sizeof(V);
    }
    std::string parameters() const override
    {
        const double mean_width =
            band_.rows == 0 ? 0.0
                            : static_cast<double>(band_.values.size()) /
                                  (static_cast<double>(band_.slabs()) * bdia_slab);
        std::string text =
            fmt::format("half_bandwidth={} width={} bytes={} mean_width={:.1f} slab={} order={}",
                        band_.half_bandwidth, band_.max_width, bytes_stored(), mean_width,
                        bdia_slab, rcm_ ? "rcm" : "original");
        if (exec_->is_cuda())
            text += fmt::format(" shared_window={}B global_x_slabs={}", shared_bytes_, global_slabs_);
        return text;
    }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override
    {
        GPUFEM_DISPATCH(*exec_, bdia_spmv(*exec_, band_, alpha, x.data(), beta, y.data(),
                                          bdia_default_shared_bytes));
    }

private:
    Bdia<V> band_;
    ExecPtr exec_;
    bool rcm_;                      ///< RCM numbering (else the matrix's own, band not wider)
    std::size_t shared_bytes_ = 0;  ///< shared memory per block of the CUDA SpMV
    index_type global_slabs_ = 0;   ///< slabs whose x window exceeds it (x read from global)
    std::int64_t band_entries_ = 0; ///< sum over rows of their slab's width
};

}  // namespace

template <typename V>
std::int64_t bdia_band_entries(const LinearOperator<V>& op)
{
    const auto* bdia = dynamic_cast<const BdiaOperator<V>*>(&op);
    return bdia ? bdia->band_entries() : 0;
}

template <typename V>
FormatBuild<V> build_bdia_format(Csr<V> matrix, const BdiaOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    if (matrix.rows != matrix.cols)
        throw std::invalid_argument(fmt::format("format 'bdia': the matrix is not square ({} x {})",
                                                matrix.rows, matrix.cols));
    const ExecPtr exec = matrix.executor();

    // 1. RCM order on the host (Boost.Graph), from the pattern there.
    const auto host_start = std::chrono::steady_clock::now();
    const std::vector<index_type> order = cuthill_mckee_order(matrix, true);
    const double host_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
    Array<index_type> perm = Array<index_type>::from_host(exec, order);

    // 2. B = P A P^T on the executor, and the bands of both numberings. The matrix's own
    //    numbering is kept when its band is not larger (a structured grid numbered row by
    //    row, or a mesh already renumbered by the mesher, can beat RCM: on a 9-point grid
    //    RCM's level sets are L-shaped and twice as long as a grid row).
    std::int64_t stored_original = 0, stored_rcm = 0;
    Bdia<V> plan_original = plan_bdia(matrix, stored_original);
    Csr<V> permuted = permute_symmetric(matrix, perm);
    Bdia<V> plan_rcm = plan_bdia(permuted, stored_rcm);
    const bool rcm = stored_rcm < stored_original;
    if (rcm) {
        Csr<V> released = std::move(matrix);
    } else {
        Csr<V> released = std::move(permuted);
        perm = Array<index_type>();
    }
    const Csr<V>& chosen = rcm ? permuted : matrix;

    // 3. The band values, on the executor (after the memory check).
    auto op = std::make_unique<BdiaOperator<V>>(
        fill_bdia(chosen, rcm ? std::move(plan_rcm) : std::move(plan_original),
                  rcm ? stored_rcm : stored_original, options.max_bytes),
        rcm);
    exec->synchronize();

    FormatBuild<V> build;
    build.op = std::move(op);
    build.permutation = std::move(perm);
    build.convert_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    build.host_steps = fmt::format(
        "reverse Cuthill-McKee order (Boost.Graph) on the host: {:.3f} s; the permutation and the "
        "bands are built on the {}; {} numbering kept ({} band values against {} for the {})",
        host_seconds, exec->is_cuda() ? "device" : "host", rcm ? "RCM" : "the matrix's own",
        rcm ? stored_rcm : stored_original, rcm ? stored_original : stored_rcm,
        rcm ? "original" : "RCM");
    return build;
}

namespace {

template <typename V>
FormatBuild<V> build_bdia(Csr<V> matrix, const FormatOptions& options)
{
    return build_bdia_format(std::move(matrix), options.get<BdiaOptions>("bdia"));
}

BdiaOptions parse_bdia_options(const OptionReader& reader)
{
    BdiaOptions o;
    if (reader.has("max_bytes"))
        o.max_bytes = static_cast<std::size_t>(reader.get_double("max_bytes", 0, 9.2e18));
    return o;
}

nlohmann::json bdia_options_json(const BdiaOptions& o) { return {{"max_bytes", o.max_bytes}}; }

}  // namespace

FormatEntry bdia_format_entry()
{
    FormatEntry e = assembled_format_entry("bdia", "banded storage after reverse Cuthill-McKee (Wang et al. 2013)",
                                           build_bdia<float>, build_bdia<double>);
    e.options = option_codec<BdiaOptions>(
        {{"max_bytes", "free", "refuse when the band needs more bytes (default: the free memory)"}},
        parse_bdia_options, bdia_options_json);
    e.orders_on_host = true;
    e.limit_bytes = [](FormatOptions& options, std::size_t max_bytes) {
        if (options.get<BdiaOptions>("bdia").max_bytes == 0) options.set("bdia", BdiaOptions{max_bytes});
    };
    e.memory = [](const MatrixShape& m, const FormatOptions&) {
        // The band of every 256-row slab (its width taken as the matrix's), the diagonal and
        // the permutation; the build holds the matrix and its permuted copy at once.
        const double stored = m.rows * m.band_width * m.value_bytes + m.rows * (m.value_bytes + 4);
        const double permuting = csr_bytes(m) + symmetric_permutation_bytes(m) + m.rows * m.value_bytes;
        return FormatMemory{stored, std::max(permuting, csr_bytes(m) + stored), cuthill_mckee_host_bytes(m)};
    };
    return e;
}

#define GPUFEM_INSTANTIATE(V)                                                    \
    template Bdia<V> convert_to_bdia(const Csr<V>&, std::size_t);                \
    template FormatBuild<V> build_bdia_format(Csr<V>, const BdiaOptions&);      \
    template std::int64_t bdia_band_entries(const LinearOperator<V>&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
