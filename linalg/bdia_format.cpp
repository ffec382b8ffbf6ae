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
#include "linalg/float_copy.hpp"
#include "linalg/format_build.hpp"
#include "linalg/precision.hpp"
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

/// The slabs' band counts of a square matrix (band_ptr, slab_ptr, stats; the band arrays
/// sized) without the bands or the values, and the number of values they need; on the
/// matrix's executor.
template <typename V>
Bdia<V> plan_bdia(const Csr<V>& matrix, index_type gap, std::int64_t& stored)
{
    if (matrix.rows != matrix.cols)
        throw std::invalid_argument(fmt::format("format 'bdia': the matrix is not square ({} x {})",
                                                matrix.rows, matrix.cols));
    if (gap < 0) throw std::invalid_argument(fmt::format("format 'bdia': gap {} is negative", gap));
    const ExecPtr& exec = matrix.row_ptr.executor();
    Bdia<V> b;
    b.rows = matrix.rows;
    const auto slabs = static_cast<std::size_t>(b.slabs());
    b.slab_ptr = Array<std::int64_t>(exec, slabs + 1);
    b.band_ptr = Array<index_type>(exec, slabs + 1);
    Array<index_type> stats(exec, 5);
    GPUFEM_DISPATCH(*exec, bdia_slab_bands(*exec, matrix, gap, b.band_ptr.data(), b.slab_ptr.data(), stats.data()));
    // Five scalars and the two totals back to the host; the band arrays sized, not yet listed.
    const auto host_stats = stats.to_host();
    b.half_bandwidth = host_stats[0];
    b.max_width = host_stats[1];
    b.max_bands = host_stats[2];
    b.max_window = host_stats[3];
    b.longest_row = host_stats[4];
    const auto cpu = Executor::create_cpu();
    copy_bytes(*cpu, &stored, *exec, b.slab_ptr.data() + slabs, sizeof(stored));
    index_type bands = 0;
    copy_bytes(*cpu, &bands, *exec, b.band_ptr.data() + slabs, sizeof(bands));
    b.band_offset = Array<index_type>(exec, static_cast<std::size_t>(bands));  // listed by fill_bdia
    b.band_width = Array<index_type>(exec, static_cast<std::size_t>(bands));
    return b;
}

/// Refuses (std::invalid_argument naming the memory needed) when the planned bands exceed
/// max_bytes, or when that is 0 the free memory of the executor; otherwise lists the bands
/// (only for the numbering kept) and allocates and fills the values.
template <typename V>
Bdia<V> fill_bdia(const Csr<V>& matrix, Bdia<V> b, index_type gap, std::int64_t stored, std::size_t max_bytes)
{
    const ExecPtr& exec = matrix.row_ptr.executor();
    const std::size_t needed = bdia_bytes<V>(stored, b.rows, static_cast<std::int64_t>(b.bands()));
    const bool given = max_bytes > 0;
    const std::size_t limit =
        given ? max_bytes : GPUFEM_DISPATCH(*exec, bdia_available_bytes(*exec));
    if (needed > limit)
        throw std::invalid_argument(fmt::format(
            "format 'bdia': band of half width {} needs {} ({} rows, up to {} diagonals a slab in up to {} "
            "bands, {} stored values of {}); {} is {}",
            b.half_bandwidth, human_bytes(needed), b.rows, b.max_width, b.max_bands, stored,
            precision_name<V>(),
            given             ? "format_options.bdia.max_bytes"
            : exec->is_cuda() ? "the free device memory"
                              : "half the host memory",
            human_bytes(limit)));
    GPUFEM_DISPATCH(*exec, bdia_band_list(*exec, matrix, gap, b.band_ptr.data(), b.band_offset.data(),
                                          b.band_width.data()));
    b.values = Array<V>(exec, static_cast<std::size_t>(stored));
    GPUFEM_DISPATCH(*exec, bdia_fill(*exec, matrix, b));
    return b;
}

}  // namespace

template <typename V>
Bdia<V> convert_to_bdia(const Csr<V>& matrix, std::size_t max_bytes, index_type gap)
{
    std::int64_t stored = 0;
    Bdia<V> b = plan_bdia(matrix, gap, stored);
    return fill_bdia(matrix, std::move(b), gap, stored, max_bytes);
}

namespace {

/// The same bands with the values converted to W.
template <typename W, typename V>
Bdia<W> bands_converted(const Bdia<V>& b)
{
    Bdia<W> out;
    out.rows = b.rows;
    out.half_bandwidth = b.half_bandwidth;
    out.max_width = b.max_width;
    out.max_bands = b.max_bands;
    out.max_window = b.max_window;
    out.longest_row = b.longest_row;
    out.slab_ptr = b.slab_ptr.clone_to(b.slab_ptr.executor());
    out.band_ptr = b.band_ptr.clone_to(b.band_ptr.executor());
    out.band_offset = b.band_offset.clone_to(b.band_offset.executor());
    out.band_width = b.band_width.clone_to(b.band_width.executor());
    out.values = converted<W>(b.values);
    out.keep_in_l2 = b.keep_in_l2;
    return out;
}

/// bDIA applied with the backend's kernel; works entirely in the numbering the builder chose
/// (RCM, or the matrix's own). Makes its float copy (the smoothing operator of a multigrid
/// cycle in float).
template <typename V>
class BdiaOperator final : public LinearOperator<V>, public FloatCopyable {
public:
    BdiaOperator(Bdia<V> band, bool rcm, index_type gap, std::size_t shared_bytes)
        : band_(std::move(band)), exec_(band_.slab_ptr.executor()), rcm_(rcm), gap_(gap),
          shared_cap_(shared_bytes)
    {
        const auto slab_ptr = band_.slab_ptr.to_host();
        const auto band_ptr = band_.band_ptr.to_host();
        // How the CUDA kernel will treat the slabs (for parameters()): the windows of
        // bdia_slab + width - 1 values a band in shared memory, or x from global memory (windows
        // too large, or bands too narrow to stage).
        const std::int64_t capacity = static_cast<std::int64_t>(shared_cap_ / sizeof(V));
        for (std::size_t s = 0; s + 1 < slab_ptr.size(); ++s) {
            const std::int64_t diagonals = (slab_ptr[s + 1] - slab_ptr[s]) / bdia_slab;
            const auto first = static_cast<std::int64_t>(s) * bdia_slab;
            band_entries_ += std::min<std::int64_t>(bdia_slab, band_.rows - first) * diagonals;
            const std::int64_t bands = band_ptr[s + 1] - band_ptr[s];
            if (bands * (bdia_slab - 1) + diagonals > capacity || diagonals < bands * bdia_staged_band_width)
                ++global_slabs_;
        }
        shared_bytes_ = static_cast<std::size_t>(std::min<std::int64_t>(band_.max_window, capacity)) * sizeof(V);
    }

    /// See bdia_band_entries().
    std::int64_t band_entries() const { return band_entries_; }

    std::unique_ptr<LinearOperator<float>> float_copy() const override
    {
        auto copy = std::make_unique<BdiaOperator<float>>(bands_converted<float>(band_), rcm_, gap_, shared_cap_);
        if (!this->diagonal().empty()) copy->set_diagonal(converted<float>(this->diagonal()));
        return copy;
    }

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
        const double slabs = static_cast<double>(band_.slabs());
        const double mean_width = band_.rows == 0 ? 0.0 : static_cast<double>(band_.values.size()) / (slabs * bdia_slab);
        const double mean_bands = band_.rows == 0 ? 0.0 : static_cast<double>(band_.bands()) / slabs;
        std::string text = fmt::format(
            "half_bandwidth={} width={} bytes={} mean_width={:.1f} bands={} mean_bands={:.1f} gap={} slab={} order={}",
            band_.half_bandwidth, band_.max_width, bytes_stored(), mean_width, band_.max_bands, mean_bands, gap_,
            bdia_slab, rcm_ ? "rcm" : "original");
        if (exec_->is_cuda())
            text += fmt::format(" shared_window={}B global_x_slabs={}", shared_bytes_, global_slabs_);
        return text;
    }

    const Bdia<V>* stored_bdia() const override { return &band_; }

    /// One partial per slab.
    std::size_t dot_partials() const override { return static_cast<std::size_t>(band_.slabs()); }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override
    {
        GPUFEM_DISPATCH(*exec_, bdia_spmv(*exec_, band_, alpha, x.data(), beta, y.data(), shared_cap_));
    }
    void apply_with_dot_impl(const Array<V>& x, Array<V>& y, double* partials) const override
    {
        GPUFEM_DISPATCH(*exec_, bdia_spmv_dot(*exec_, band_, x.data(), y.data(), partials, shared_cap_));
    }
    void apply_cg_direction_impl(const Array<V>& z, const double* beta, Array<V>& p, Array<V>& q,
                                 double* partials) const override
    {
        GPUFEM_DISPATCH(*exec_, bdia_spmv_direction(*exec_, band_, z.data(), beta, p.data(), q.data(), partials, shared_cap_));
    }

private:
    Bdia<V> band_;
    ExecPtr exec_;
    bool rcm_;                      ///< RCM numbering (else the matrix's own)
    index_type gap_;                ///< the largest run of empty diagonals inside a band
    std::size_t shared_cap_;        ///< the cap on a CUDA block's shared x windows
    std::size_t shared_bytes_ = 0;  ///< shared memory per block of the CUDA SpMV
    index_type global_slabs_ = 0;   ///< slabs whose x windows exceed it (x read from global)
    std::int64_t band_entries_ = 0; ///< sum over rows of their slab's stored diagonals
};

}  // namespace

template <typename V>
std::int64_t bdia_band_entries(const LinearOperator<V>& op)
{
    const auto* bdia = dynamic_cast<const BdiaOperator<V>*>(&op);
    return bdia ? bdia->band_entries() : 0;
}

/// A numbering whose bands store at most this many times the longest row a row is kept
/// without trying RCM: a slab stores at least the diagonals of its longest row, whatever the
/// numbering (a grid numbered by lines and planes stores its stencil's diagonals and nothing
/// else).
constexpr double bdia_own_numbering_fill = 1.25;

template <typename V>
FormatBuild<V> build_bdia_format(Csr<V> matrix, const BdiaOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    if (matrix.rows != matrix.cols)
        throw std::invalid_argument(fmt::format("format 'bdia': the matrix is not square ({} x {})",
                                                matrix.rows, matrix.cols));
    const ExecPtr exec = matrix.executor();

    // 1. The bands of the matrix's own numbering. A structured grid numbered by lines, or a
    //    mesh already renumbered by the mesher, can beat RCM (on a 9-point grid RCM's level
    //    sets are L-shaped and twice as long as a grid row); when they store little more than
    //    the longest row a row, RCM (seconds on the host for 10^8 non-zeros) is not tried.
    std::int64_t stored_original = 0, stored_rcm = 0;
    Bdia<V> plan_original = plan_bdia(matrix, options.gap, stored_original);
    const double least = static_cast<double>(plan_original.slabs()) * bdia_slab * plan_original.longest_row;
    const bool try_rcm = static_cast<double>(stored_original) > bdia_own_numbering_fill * least;

    // 2. Else RCM order on the host (Boost.Graph), from the pattern there; B = P A P^T on the
    //    executor and its bands; the numbering that stores fewer values is kept.
    double host_seconds = 0;
    Array<index_type> perm;
    Csr<V> permuted;
    Bdia<V> plan_rcm;
    if (try_rcm) {
        const auto host_start = std::chrono::steady_clock::now();
        perm = Array<index_type>::from_host(exec, cuthill_mckee_order(matrix, true));
        host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
        permuted = permute_symmetric(matrix, perm);
        plan_rcm = plan_bdia(permuted, options.gap, stored_rcm);
    }
    const bool rcm = try_rcm && stored_rcm < stored_original;
    if (rcm) {
        Csr<V> released = std::move(matrix);
    } else {
        Csr<V> released = std::move(permuted);
        perm = Array<index_type>();
    }
    const Csr<V>& chosen = rcm ? permuted : matrix;

    // 3. The band values, on the executor (after the memory check).
    Bdia<V> bands = fill_bdia(chosen, rcm ? std::move(plan_rcm) : std::move(plan_original), options.gap,
                              rcm ? stored_rcm : stored_original, options.max_bytes);
    bands.keep_in_l2 = options.l2_window;
    auto op = std::make_unique<BdiaOperator<V>>(std::move(bands), rcm, options.gap, options.shared_bytes);
    exec->synchronize();

    FormatBuild<V> build;
    build.op = std::move(op);
    build.permutation = std::move(perm);
    build.convert_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const char* where = exec->is_cuda() ? "device" : "host";
    build.host_steps =
        try_rcm ? fmt::format("reverse Cuthill-McKee order (Boost.Graph) on the host: {:.3f} s; the permutation and "
                              "the bands are built on the {}; {} numbering kept ({} band values against {} for the {})",
                              host_seconds, where, rcm ? "RCM" : "the matrix's own", rcm ? stored_rcm : stored_original,
                              rcm ? stored_original : stored_rcm, rcm ? "original" : "RCM")
                : fmt::format("the matrix's own numbering kept, its bands built on the {} ({} band values, rows of up "
                              "to {} entries: reverse Cuthill-McKee not tried)",
                              where, stored_original, plan_original.longest_row);
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
    if (reader.has("gap")) o.gap = static_cast<index_type>(reader.get_int("gap", 0, 1 << 20));
    if (reader.has("shared_bytes"))
        o.shared_bytes = static_cast<std::size_t>(reader.get_int("shared_bytes", 0, 227 * 1024));
    if (reader.has("l2_window")) o.l2_window = reader.get_bool("l2_window");
    return o;
}

nlohmann::json bdia_options_json(const BdiaOptions& o)
{
    return {{"max_bytes", o.max_bytes}, {"gap", o.gap}, {"shared_bytes", o.shared_bytes}, {"l2_window", o.l2_window}};
}

}  // namespace

FormatEntry bdia_format_entry()
{
    FormatEntry e = assembled_format_entry("bdia", "bands of diagonals per slab of rows, after reverse Cuthill-McKee where it helps (Wang et al. 2013)",
                                           build_bdia<float>, build_bdia<double>);
    e.options = option_codec<BdiaOptions>(
        {{"max_bytes", "free", "refuse when the bands need more bytes (default: the free memory)"},
         {"gap", std::to_string(bdia_default_gap), "the longest run of empty diagonals stored inside a band (zeros) rather than splitting it"},
         {"shared_bytes", std::to_string(bdia_default_shared_bytes), "shared memory a CUDA block may stage its x windows in (0: x read through the cache)"},
         {"l2_window", "false", "keep the band values in the GPU's L2 cache between products, as much of them as it sets aside for persisting data"}},
        parse_bdia_options, bdia_options_json);
    e.orders_on_host = true;
    e.limit_bytes = [](FormatOptions& options, std::size_t max_bytes) {
        BdiaOptions bdia = options.get<BdiaOptions>("bdia");
        if (bdia.max_bytes != 0) return;
        bdia.max_bytes = max_bytes;
        options.set("bdia", bdia);
    };
    e.memory = [](const MatrixShape& m, const FormatOptions&) {
        // The bands of every 256-row slab (the diagonals a slab touches, at most the band's
        // width), the diagonal and the permutation. When RCM is tried the build holds the
        // matrix and its permuted copy at once; a lattice numbering whose diagonals are about
        // its longest row's count keeps its own numbering and skips it (build_bdia_format).
        const double diagonals = m.diagonals > 0 ? std::min(m.diagonals, m.band_width) : m.band_width;
        const double stored = m.rows * diagonals * m.value_bytes + m.rows * (m.value_bytes + 4);
        const bool own_numbering = m.diagonals > 0 && m.diagonals <= bdia_own_numbering_fill * m.max_row_length;
        if (own_numbering) return FormatMemory{stored, csr_bytes(m) + stored, 0.0};
        const double permuting = csr_bytes(m) + symmetric_permutation_bytes(m) + m.rows * m.value_bytes;
        return FormatMemory{stored, std::max(permuting, csr_bytes(m) + stored), cuthill_mckee_host_bytes(m)};
    };
    return e;
}

#define GPUFEM_INSTANTIATE(V)                                                    \
    template Bdia<V> convert_to_bdia(const Csr<V>&, std::size_t, index_type);    \
    template FormatBuild<V> build_bdia_format(Csr<V>, const BdiaOptions&);      \
    template std::int64_t bdia_band_entries(const LinearOperator<V>&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
