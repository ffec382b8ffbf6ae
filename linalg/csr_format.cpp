// The CSR formats of the registry: csr (the parametrised kernel of Reguly & Giles 2012),
// csr-scalar and the vendor's cusparse.
#include <chrono>
#include <climits>

#include "linalg/csr_operator.hpp"
#include "linalg/csr_tuned_operator.hpp"
#include "linalg/format_build.hpp"

namespace gpufem {
namespace {

template <typename V>
FormatBuild<V> wrap(std::unique_ptr<LinearOperator<V>> op,
                    std::chrono::steady_clock::time_point start)
{
    op->executor()->synchronize();
    FormatBuild<V> build;
    build.op = std::move(op);
    build.convert_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return build;
}

template <typename V>
FormatBuild<V> build_csr(Csr<V> matrix, const FormatOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    return wrap<V>(std::make_unique<CsrTunedOperator<V>>(std::move(matrix),
                                                         options.get<CsrOptions>("csr")),
                   start);
}

template <typename V>
FormatBuild<V> build_wide_csr(WideCsr<V> matrix, const FormatOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    return wrap<V>(std::make_unique<CsrTunedOperator<V, wide_offset_type>>(std::move(matrix),
                                                                           options.get<CsrOptions>("csr")),
                   start);
}

template <typename V>
FormatBuild<V> build_csr_scalar(Csr<V> matrix, const FormatOptions&)
{
    const auto start = std::chrono::steady_clock::now();
    return wrap<V>(std::make_unique<CsrOperator<V>>(std::move(matrix)), start);
}

template <typename V>
FormatBuild<V> build_cusparse(Csr<V> matrix, const FormatOptions&)
{
    const auto start = std::chrono::steady_clock::now();
    return wrap<V>(make_cusparse_csr_operator(std::move(matrix)), start);
}

CsrOptions parse_csr_options(const OptionReader& reader)
{
    CsrOptions o;
    if (reader.has("coop")) o.coop = read_power_of_two(reader, "coop", 32);
    if (reader.has("repeat")) o.repeat = static_cast<int>(reader.get_int("repeat", 1, INT_MAX));
    if (reader.has("block")) {
        o.block = static_cast<int>(reader.get_int("block", 32, 512));
        if (o.block % 32 != 0)
            reader.fail("block", "expected a multiple of 32 from 32 to 512, got " +
                                     std::to_string(o.block));
    }
    if (reader.has("tune")) o.tune = reader.get_bool("tune");
    if (reader.has("offsets")) {
        static constexpr std::string_view choices[] = {"auto", "64"};
        o.wide_offsets = reader.get_choice("offsets", choices) == "64";
    }
    return o;
}

nlohmann::json csr_options_json(const CsrOptions& o)
{
    return {{"coop", o.coop}, {"repeat", o.repeat}, {"block", o.block}, {"tune", o.tune},
            {"offsets", o.wide_offsets ? "64" : "auto"}};
}

}  // namespace

FormatEntry csr_format_entry()
{
    FormatEntry e = assembled_format_entry(
        "csr", "CSR, parametrised kernel (coop threads per row, repeat rows per group, block "
               "size), fixed rule + run-time tuner",
        build_csr<float>, build_csr<double>);
    e.options = option_codec<CsrOptions>(
        {{"coop", "rule", "threads per row, a power of two <= 32 (default: the fixed rule)"},
         {"repeat", "rule", "rows per thread group (default: the fixed rule)"},
         {"block", "rule", "threads per block, a multiple of 32 <= 512 (the kernel is compiled for at most 512) (default: the fixed rule, 128)"},
         {"tune", "true", "tune coop/repeat/block over the first SpMVs (cuda, when none is given)"},
         {"offsets", "auto", "row offsets: auto (32-bit, 64-bit past 2^31 - 1 non-zeros) or 64 (always)"}},
        parse_csr_options, csr_options_json);
    e.keeps_csr = true;
    e.baseline = true;
    e.build_wide_float = build_wide_csr<float>;
    e.build_wide_double = build_wide_csr<double>;
    e.asks_wide_offsets = [](const FormatOptions& options) { return options.get<CsrOptions>("csr").wide_offsets; };
    return e;
}

FormatEntry csr_scalar_format_entry()
{
    FormatEntry e = assembled_format_entry("csr-scalar", "CSR, one thread per row",
                                           build_csr_scalar<float>, build_csr_scalar<double>);
    e.keeps_csr = true;
    e.auto_candidate = false;  // csr's tuned kernel is never slower
    return e;
}

FormatEntry cusparse_format_entry()
{
    FormatEntry e = assembled_format_entry("cusparse", "the vendor CSR SpMV (cuSPARSE; cuda only)",
                                           build_cusparse<float>, build_cusparse<double>);
    e.on_cpu = false;
    e.keeps_csr = true;
    e.vendor_baseline = true;
    e.memory = [](const MatrixShape& m, const FormatOptions&) {
        // The CSR and diagonal, cuSPARSE's SpMV buffer (small), and scratch x and y at build.
        const double stored = csr_bytes(m) + m.rows * m.value_bytes;
        return FormatMemory{stored, stored + 2 * m.rows * m.value_bytes, 0};
    };
    return e;
}

}  // namespace gpufem
