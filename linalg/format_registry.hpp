#pragma once
// The format registry: every storage format registers once — its name, help text, options
// (parsed and validated by the format), the backends that have it and how it is built.
// Case validation, `gpufem run --help`, docs/case-reference.md and the benchmarks'
// format lists all come from it; nothing else lists format names.
//
// These are the storage formats of an assembled CSR matrix (assembled_formats()). Operators
// a discretisation builds without assembling a matrix are operator levels, registered apart in
// assembly/operator_levels.hpp; a case's `format:` names either (assembly/operator_choice.hpp).
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "linalg/csr.hpp"
#include "linalg/executor.hpp"
#include "linalg/format_options.hpp"
#include "linalg/named_registry.hpp"

namespace gpufem {

template <typename V>
struct FormatBuild;

/// Builds the format from an assembled CSR matrix on the matrix's executor.
template <typename V>
using CsrFormatBuilder = FormatBuild<V> (*)(Csr<V> matrix, const FormatOptions& options);

/// Builds the format from a CSR matrix with 64-bit row offsets (more than 2^31 - 1 entries).
template <typename V>
using WideCsrFormatBuilder = FormatBuild<V> (*)(WideCsr<V> matrix, const FormatOptions& options);

/// One configuration of a format for benchmarks: a label ("lma-colour-sym") and the options.
struct FormatVariant {
    std::string label;
    FormatOptions options;
};

/// What the memory of a format depends on, known (or estimated) before the matrix exists.
struct MatrixShape {
    double rows = 0;
    double nnz = 0;
    double max_row_length = 0;     ///< the longest row
    double padded_row_length = 0;  ///< mean over slices of 32 consecutive rows of their longest row
    double band_width = 0;         ///< columns between a row's first and last entry (at most)
    double diagonals = 0;          ///< distinct diagonals (j - i) a slab of rows touches (0: unknown)
    double value_bytes = 8;        ///< sizeof the value type (4 or 8)
    bool on_device = false;        ///< built on a CUDA device (its library temporaries differ)
    double cells = 0;              ///< cells of the mesh (matrix-free formats)
    int nodes_per_cell = 0;
};

/// CSR bytes of a matrix of that shape: row pointers, column indices and values.
double csr_bytes(const MatrixShape& m);

/// Host bytes of a (reverse) Cuthill-McKee ordering of the matrix on the host: a copy of its
/// pattern, its neighbour lists and the graph the ordering walks (rough: the graph library's
/// own use is not known).
double cuthill_mckee_host_bytes(const MatrixShape& m);

/// Executor bytes of permuting a CSR matrix symmetrically: the permuted copy, on a device the
/// sort's temporaries and CUB's radix-sort buffers, the permutation and its inverse (the
/// matrix itself not counted).
double symmetric_permutation_bytes(const MatrixShape& m);

/// Memory of a format built from a matrix of some shape, in bytes of the matrix's executor.
struct FormatMemory {
    double stored = 0;      ///< the operator kept for the solve (the CSR it keeps, its diagonal)
    double build_peak = 0;  ///< the most its build holds at once, the CSR it starts from included
    double host = 0;        ///< host memory of its host steps (orderings), beside the executor's
};

/// What every operator a case's `format:` can name registers, whether it stores the assembled
/// matrix (FormatEntry) or is built without one (an operator level, assembly/operator_levels.hpp):
/// its name, help, backends, options, benchmark variants and memory.
struct OperatorEntryBase {
    std::string name;     ///< as in the case file: format: <name>
    std::string summary;  ///< what it is, for the reference (may span lines)
    bool on_cpu = true;   ///< the cpu backend has it
    bool on_cuda = true;  ///< the cuda backend has it
    FormatOptionCodec options;  ///< its keys under format_options.<name> (none: empty)
    /// Optional: the variants a benchmark name <name><suffix> stands for (e.g. lma-all:
    /// both scatters and storages), from the case's options; throws std::invalid_argument on
    /// a bad suffix. Empty: no variants (only its plain name).
    std::function<std::vector<FormatVariant>(std::string_view suffix, const FormatOptions& base)>
        variants;
    /// The suffix the benchmarks' default list uses ("" = the plain name).
    std::string bench_default_suffix;
    /// Its memory, estimated from the matrix's shape and its options (the memory estimate of
    /// `gpufem run`); empty: that of csr.
    std::function<FormatMemory(const MatrixShape& shape, const FormatOptions& options)> memory;

    /// The memory estimate (memory, or csr's when it has none).
    FormatMemory estimate_memory(const MatrixShape& shape, const FormatOptions& options) const;
    /// True when backend has it.
    bool available_on(Backend backend) const { return backend == Backend::cuda ? on_cuda : on_cpu; }
    /// Throws std::invalid_argument "format 'x' needs the cuda backend" unless backend has it.
    void require(Backend backend) const;
};

/// One registered storage format of the assembled matrix: built from CSR.
struct FormatEntry : OperatorEntryBase {
    CsrFormatBuilder<float> build_float = nullptr;
    CsrFormatBuilder<double> build_double = nullptr;
    /// Formats that also take a matrix past 2^31 - 1 entries (WideCsr, 64-bit row offsets):
    /// its builders; null for the others, which refuse such a matrix.
    WideCsrFormatBuilder<float> build_wide_float = nullptr;
    WideCsrFormatBuilder<double> build_wide_double = nullptr;
    /// Whether its options ask for 64-bit row offsets at any size (csr's offsets: 64);
    /// empty: only past 2^31 - 1 entries.
    std::function<bool(const FormatOptions& options)> asks_wide_offsets;
    /// The built operator keeps the CSR arrays it was built from, in the same numbering
    /// (LinearOperator::stored_csr), so nothing needs a second copy of the matrix.
    bool keeps_csr = false;
    /// Its conversion orders the rows on the host (a Cuthill-McKee ordering of the pattern):
    /// costly on large matrices (format: auto tries it only when that can pay off).
    bool orders_on_host = false;
    /// format: auto tries it (false for a format that can never win, e.g. a plain reference
    /// kernel beside its tuned version).
    bool auto_candidate = true;
    /// Optional: sets options so that the format refuses to store a matrix in more than
    /// max_bytes, unless the case set its own limit (bdia's band). format: auto uses it to
    /// skip a format that cannot win, and its memory estimate leaves such a format out.
    std::function<void(FormatOptions& options, std::size_t max_bytes)> limit_bytes;
    /// The assembled matrix as it is (no conversion): the format runs fall back to where
    /// theirs cannot be used (format: auto's iteration estimate, the double-precision residual
    /// of a float solve). Exactly one format is the baseline.
    bool baseline = false;
    /// The vendor library's SpMV (cuSPARSE's CSR) that the SpMV benchmark's speedups are
    /// measured against. At most one format is the vendor baseline.
    bool vendor_baseline = false;

    /// Whether options ask this format for 64-bit row offsets at any size (asks_wide_offsets).
    bool wide_offsets_asked(const FormatOptions& options) const
    {
        return asks_wide_offsets && asks_wide_offsets(options);
    }
    /// True when it takes a matrix with 64-bit row offsets (build_wide_*).
    bool takes_wide_csr() const { return build_wide_double != nullptr; }
    /// The builder from 64-bit offsets for value type V (null when it has none).
    template <typename V>
    WideCsrFormatBuilder<V> wide_csr_builder() const
    {
        if constexpr (std::is_same_v<V, float>) return build_wide_float;
        else return build_wide_double;
    }
    /// The CSR builder for value type V.
    template <typename V>
    CsrFormatBuilder<V> csr_builder() const
    {
        if constexpr (std::is_same_v<V, float>) return build_float;
        else return build_double;
    }
};

/// An assembled format built from CSR by build_float / build_double, with no options.
FormatEntry assembled_format_entry(std::string name, std::string summary,
                                   CsrFormatBuilder<float> build_float,
                                   CsrFormatBuilder<double> build_double);

/// The assembled formats, with lookup by name.
class FormatRegistry : public NamedRegistry<FormatEntry> {
public:
    FormatRegistry() : NamedRegistry<FormatEntry>("format") {}
    /// The names of the formats backend has.
    std::vector<std::string> names_on(Backend backend) const;
};

/// The baseline format (FormatEntry::baseline: csr).
const FormatEntry& baseline_format();

/// The formats linalg builds from an assembled CSR matrix (csr, csr-scalar, ell, ellr, sellp,
/// bdia, staircase, cusparse, cusparse-sell), registered in linalg/format_registry.cpp.
const FormatRegistry& assembled_formats();

}  // namespace gpufem
