#include "linalg/format_registry.hpp"

#include <bit>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpufem {

/// The assembled formats, in the order benchmarks list them: one line each. Each `X(name)`
/// is a FormatEntry name_format_entry() defined in the format's own file.
#define GPUFEM_ASSEMBLED_FORMATS(X) \
    X(csr)                          \
    X(csr_scalar)                   \
    X(ell)                          \
    X(ellr)                         \
    X(sellp)                        \
    X(bdia)                         \
    X(staircase)                    \
    X(cusparse)                     \
    X(cusparse_sell)

#define GPUFEM_DECLARE_ENTRY(name) FormatEntry name##_format_entry();
GPUFEM_ASSEMBLED_FORMATS(GPUFEM_DECLARE_ENTRY)
#undef GPUFEM_DECLARE_ENTRY

const FormatRegistry& assembled_formats()
{
    static const FormatRegistry registry = [] {
        FormatRegistry r;
#define GPUFEM_ADD_ENTRY(name) r.add(name##_format_entry());
        GPUFEM_ASSEMBLED_FORMATS(GPUFEM_ADD_ENTRY)
#undef GPUFEM_ADD_ENTRY
        return r;
    }();
    return registry;
}

const FormatEntry& baseline_format()
{
    static const FormatEntry& baseline = [] () -> const FormatEntry& {
        for (const FormatEntry& entry : assembled_formats().entries())
            if (entry.baseline) return entry;
        throw std::logic_error("format registry: no baseline format");
    }();
    return baseline;
}

void OperatorEntryBase::require(Backend backend) const
{
    if (!available_on(backend))
        throw std::invalid_argument(fmt::format("format '{}' needs the {} backend", name,
                                                on_cuda ? "cuda" : "cpu"));
}

double csr_bytes(const MatrixShape& m)
{
    return 4 * (m.rows + 1) + m.nnz * (4 + m.value_bytes);
}

double cuthill_mckee_host_bytes(const MatrixShape& m)
{
    return 12 * m.nnz + 74 * m.rows;
}

double symmetric_permutation_bytes(const MatrixShape& m)
{
    // On the host the rows are permuted one at a time (no sort over the whole matrix).
    return csr_bytes(m) + (m.on_device ? m.nnz * (16 + m.value_bytes) : 0) + 16 * m.rows;
}

FormatMemory OperatorEntryBase::estimate_memory(const MatrixShape& shape, const FormatOptions& options) const
{
    if (memory) return memory(shape, options);
    // As csr: the matrix and its diagonal, built in place.
    const double stored = csr_bytes(shape) + shape.rows * shape.value_bytes;
    return {stored, stored, 0};
}

FormatEntry assembled_format_entry(std::string name, std::string summary,
                                   CsrFormatBuilder<float> build_float,
                                   CsrFormatBuilder<double> build_double)
{
    FormatEntry e;
    e.name = std::move(name);
    e.summary = std::move(summary);
    e.build_float = build_float;
    e.build_double = build_double;
    return e;
}

std::vector<std::string> FormatRegistry::names_on(Backend backend) const
{
    std::vector<std::string> names;
    for (const FormatEntry& entry : entries())
        if (entry.available_on(backend)) names.push_back(entry.name);
    return names;
}


int read_power_of_two(const OptionReader& reader, std::string_view key, int max)
{
    const long long v = reader.get_int(key, 1, max);
    if (!std::has_single_bit(static_cast<unsigned long long>(v)))
        reader.fail(key, fmt::format("expected a power of two from 1 to {}, got {}", max, v));
    return static_cast<int>(v);
}

}  // namespace gpufem
