#pragma once
// Building a format from an assembled CSR matrix: the operator, the row/column permutation
// some formats apply (bdia, staircase), and what the conversion cost.
#include <memory>
#include <string>
#include <vector>

#include "linalg/csr.hpp"
#include "linalg/format_options.hpp"
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
    double convert_seconds = 0;  ///< wall time of the conversion (synchronised)
    std::string host_steps;      ///< conversion steps done on the host ("" = all on the device)
};

/// Names of every format, in the order the benchmark lists them.
const std::vector<std::string>& format_names();

/// Converts an assembled CSR matrix into the named format on the matrix's executor. Throws
/// std::invalid_argument naming the format (unknown, unavailable on this executor, or refused
/// e.g. for memory) with the reason.
template <typename V>
FormatBuild<V> build_format(const std::string& name, Csr<V> matrix, const FormatOptions& options);

/// y = alpha A x + beta y in the original numbering, whatever numbering the format works in
/// (for formats that renumber, x and y are permuted in and y back out; costs two extra vectors).
/// For checks and comparisons; a solver permutes its system once instead.
template <typename V>
void apply_in_original_order(const FormatBuild<V>& format, V alpha, const Array<V>& x, V beta,
                             Array<V>& y);

// One builder per format, each in its own file (declared here once).
template <typename V>
FormatBuild<V> build_csr_format(Csr<V> matrix, const FormatOptions& options);  // csr (tuned)
template <typename V>
FormatBuild<V> build_csr_scalar_format(Csr<V> matrix, const FormatOptions& options);
template <typename V>
FormatBuild<V> build_ell_format(Csr<V> matrix, const FormatOptions& options, bool row_lengths);
template <typename V>
FormatBuild<V> build_sellp_format(Csr<V> matrix, const FormatOptions& options);
template <typename V>
FormatBuild<V> build_bdia_format(Csr<V> matrix, const FormatOptions& options);
template <typename V>
FormatBuild<V> build_staircase_format(Csr<V> matrix, const FormatOptions& options);
template <typename V>
FormatBuild<V> build_cusparse_format(Csr<V> matrix, const FormatOptions& options);
template <typename V>
FormatBuild<V> build_cusparse_sell_format(Csr<V> matrix, const FormatOptions& options);

}  // namespace gpufem
