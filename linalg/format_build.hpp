#pragma once
// Building a format from an assembled CSR matrix: the operator, the row/column permutation it
// works in (the case's reorder, and bdia's or staircase's own order), and what the conversion
// cost. The formats themselves are listed in the registry (format_registry.hpp).
#include <memory>
#include <string>
#include <vector>

#include "linalg/csr.hpp"
#include "linalg/format_options.hpp"
#include "linalg/format_registry.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// A format built from CSR.
template <typename V>
struct FormatBuild {
    std::unique_ptr<LinearOperator<V>> op;
    /// Symmetric permutation the operator works in (new index -> old index), on the
    /// operator's executor; empty when the format keeps the original order. Solve with
    /// permuted vectors (x_new[i] = x_old[perm[i]]) and permute the solution back.
    Array<index_type> permutation;
    double convert_seconds = 0;  ///< wall time of the conversion (synchronised), reordering included
    double reorder_seconds = 0;  ///< of convert_seconds: the case's reordering (FormatOptions::reordering)
    std::string host_steps;      ///< conversion steps done on the host ("" = all on the device)
};

/// Converts an assembled CSR matrix into format on the matrix's executor and attaches the
/// diagonal (for Jacobi) in the format's numbering, after the reordering options ask for
/// (FormatOptions::reordering; composed with the format's own permutation). Throws
/// std::invalid_argument naming the format when it is matrix-free, unavailable on this
/// executor, or refuses (e.g. for memory).
template <typename V>
FormatBuild<V> build_format(const FormatEntry& format, Csr<V> matrix, const FormatOptions& options);

/// The same for a matrix with 64-bit row offsets (more than 2^31 - 1 entries): only formats
/// that take one (FormatEntry::takes_wide_csr); no reordering (options.reordering() must be
/// none). Throws std::invalid_argument naming the format and what takes such a matrix.
template <typename V>
FormatBuild<V> build_format(const FormatEntry& format, WideCsr<V> matrix, const FormatOptions& options);

/// The names of the formats that take a matrix past 2^31 - 1 entries, for messages.
std::string wide_csr_format_names();

/// A matrix reordered symmetrically (FormatOptions::reordering's step, also used by format:
/// auto to reorder once for all its candidates).
template <typename V>
struct ReorderedMatrix {
    Csr<V> matrix;                  ///< P A P^T
    Array<index_type> permutation;  ///< new -> old, on the matrix's executor
    double seconds = 0;             ///< the ordering on the host and the permutation
    std::string host_step;          ///< what it did, for FormatBuild::host_steps
};

/// matrix reordered by reordering (not none): a (reverse) Cuthill-McKee order on the host,
/// then the symmetric permutation on the matrix's executor, timed (synchronised).
template <typename V>
ReorderedMatrix<V> reorder_matrix(Csr<V> matrix, Reordering reordering);

/// Puts build (made from reordered.matrix) into the original numbering's terms: composes
/// the reordering with the format's own permutation and adds its time and host step.
template <typename V>
void prepend_reordering(FormatBuild<V>& build, ReorderedMatrix<V>& reordered);

/// The same for an assembled format named name (assembled_formats()); throws
/// std::invalid_argument for an unknown name, listing the known ones.
template <typename V>
FormatBuild<V> build_format(const std::string& name, Csr<V> matrix, const FormatOptions& options);

/// A copy of v in the format's numbering (to_original false) or, from the format's numbering,
/// back in the original one (true); a plain copy when the format keeps the numbering.
template <typename V>
Array<V> reordered(const FormatBuild<V>& format, const Array<V>& v, bool to_original);

/// y = alpha A x + beta y in the original numbering, whatever numbering the format works in
/// (for formats that renumber, x and y are permuted in and y back out; costs two extra vectors).
/// For checks and comparisons; a solver permutes its system once instead.
template <typename V>
void apply_in_original_order(const FormatBuild<V>& format, V alpha, const Array<V>& x, V beta,
                             Array<V>& y);

/// The ELL formats: ELLPACK (row_lengths false) or ELLPACK-R, built from CSR.
template <typename V>
FormatBuild<V> build_ell_format(Csr<V> matrix, bool row_lengths);

}  // namespace gpufem
