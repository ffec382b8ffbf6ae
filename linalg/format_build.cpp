#include "linalg/format_build.hpp"

#include <chrono>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "linalg/csr_kernels.hpp"
#include "linalg/reordering.hpp"

namespace gpufem {

namespace {

using clock_type = std::chrono::steady_clock;

/// The (reverse) Cuthill-McKee order of matrix's graph, on the matrix's executor (new -> old).
template <typename V>
Array<index_type> cuthill_mckee_permutation(const Csr<V>& matrix, bool reverse)
{
    return Array<index_type>::from_host(matrix.executor(), cuthill_mckee_order(matrix, reverse));
}

/// first then second as one permutation (new -> old): composed[i] = first[second[i]].
Array<index_type> compose_permutations(const Array<index_type>& first, const Array<index_type>& second)
{
    const std::vector<index_type> a = first.to_host();
    const std::vector<index_type> b = second.to_host();
    std::vector<index_type> composed(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) composed[i] = a[static_cast<std::size_t>(b[i])];
    return Array<index_type>::from_host(first.executor(), composed);
}

}  // namespace

template <typename V>
ReorderedMatrix<V> reorder_matrix(Csr<V> matrix, Reordering reordering)
{
    const ExecPtr exec = matrix.executor();
    if (matrix.rows != matrix.cols)
        throw std::invalid_argument(fmt::format("reorder: {} needs a square matrix, got {} x {}",
                                                enum_name(reordering_names, reordering), matrix.rows,
                                                matrix.cols));
    const auto start = clock_type::now();
    ReorderedMatrix<V> out;
    out.permutation = cuthill_mckee_permutation(matrix, reordering == Reordering::rcm);
    out.matrix = permute_symmetric(matrix, out.permutation);
    exec->synchronize();
    out.seconds = std::chrono::duration<double>(clock_type::now() - start).count();
    out.host_step = fmt::format("{} order on the host and the symmetric permutation ({:.4f} s)",
                                reordering == Reordering::rcm ? "reverse Cuthill-McKee" : "Cuthill-McKee",
                                out.seconds);
    return out;
}

template <typename V>
void prepend_reordering(FormatBuild<V>& build, ReorderedMatrix<V>& reordered)
{
    build.permutation = build.permutation.empty()
                            ? std::move(reordered.permutation)
                            : compose_permutations(reordered.permutation, build.permutation);
    build.reorder_seconds = reordered.seconds;
    build.convert_seconds += reordered.seconds;
    build.host_steps = build.host_steps.empty() ? reordered.host_step : reordered.host_step + "; " + build.host_steps;
}

template <typename V>
FormatBuild<V> build_format(const FormatEntry& format, Csr<V> matrix, const FormatOptions& options)
{
    const ExecPtr exec = matrix.executor();
    format.require(exec->backend());
    // The case's reordering first (timed as part of the conversion), then the format's own.
    std::optional<ReorderedMatrix<V>> reordered;
    if (options.reordering() != Reordering::none) {
        reordered = reorder_matrix(std::move(matrix), options.reordering());
        matrix = std::move(reordered->matrix);
    }
    Array<V> diagonal(exec, static_cast<std::size_t>(matrix.rows));
    GPUFEM_DISPATCH(*exec, csr_diagonal(*exec, matrix, diagonal.data()));
    FormatBuild<V> build = format.csr_builder<V>()(std::move(matrix), options);
    if (!build.permutation.empty()) {
        Array<V> permuted(exec, diagonal.size());
        permute_vector(build.permutation, diagonal, permuted, false);
        diagonal.swap(permuted);
    }
    build.op->set_diagonal(std::move(diagonal));
    if (reordered) prepend_reordering(build, *reordered);
    return build;
}

std::string wide_csr_format_names()
{
    std::string names;
    for (const FormatEntry& entry : assembled_formats().entries())
        if (entry.takes_wide_csr()) names += (names.empty() ? "" : ", ") + entry.name;
    return names;
}

template <typename V>
FormatBuild<V> build_format(const FormatEntry& format, WideCsr<V> matrix, const FormatOptions& options)
{
    const ExecPtr exec = matrix.executor();
    if (!format.takes_wide_csr())
        throw std::invalid_argument(fmt::format(
            "format '{}' takes matrices of at most 2,147,483,647 non-zeros (32-bit row offsets), and this "
            "one has {}; use format {} (64-bit row offsets) or lma (matrix-free)",
            format.name, matrix.nnz(), wide_csr_format_names()));
    format.require(exec->backend());
    if (options.reordering() != Reordering::none)
        throw std::invalid_argument(fmt::format(
            "reorder: {} is not available for a matrix of {} non-zeros (past 2^31 - 1: the "
            "reordering's permutation works on 32-bit offsets); use reorder: none",
            enum_name(reordering_names, options.reordering()), matrix.nnz()));
    Array<V> diagonal(exec, static_cast<std::size_t>(matrix.rows));
    GPUFEM_DISPATCH(*exec, csr_diagonal(*exec, matrix, diagonal.data()));
    FormatBuild<V> build = format.wide_csr_builder<V>()(std::move(matrix), options);
    build.op->set_diagonal(std::move(diagonal));
    return build;
}

template <typename V>
FormatBuild<V> build_format(const std::string& name, Csr<V> matrix, const FormatOptions& options)
{
    return build_format(assembled_formats().at(name), std::move(matrix), options);
}

template <typename V>
Array<V> reordered(const FormatBuild<V>& format, const Array<V>& v, bool to_original)
{
    if (format.permutation.empty()) return v.clone_to(v.executor());
    Array<V> out(v.executor(), v.size());
    permute_vector(format.permutation, v, out, to_original);
    return out;
}

template <typename V>
void apply_in_original_order(const FormatBuild<V>& format, V alpha, const Array<V>& x, V beta,
                             Array<V>& y)
{
    if (format.permutation.empty()) {
        format.op->apply(alpha, x, beta, y);
        return;
    }
    const Array<V> xp = reordered(format, x, false);
    Array<V> yp = reordered(format, y, false);
    format.op->apply(alpha, xp, beta, yp);
    permute_vector(format.permutation, yp, y, true);
}

template Array<float> reordered(const FormatBuild<float>&, const Array<float>&, bool);
template Array<double> reordered(const FormatBuild<double>&, const Array<double>&, bool);
template void apply_in_original_order(const FormatBuild<float>&, float, const Array<float>&, float,
                                      Array<float>&);
template void apply_in_original_order(const FormatBuild<double>&, double, const Array<double>&,
                                      double, Array<double>&);
template ReorderedMatrix<float> reorder_matrix(Csr<float>, Reordering);
template ReorderedMatrix<double> reorder_matrix(Csr<double>, Reordering);
template void prepend_reordering(FormatBuild<float>&, ReorderedMatrix<float>&);
template void prepend_reordering(FormatBuild<double>&, ReorderedMatrix<double>&);
template FormatBuild<float> build_format(const std::string&, Csr<float>, const FormatOptions&);
template FormatBuild<double> build_format(const std::string&, Csr<double>, const FormatOptions&);
template FormatBuild<float> build_format(const FormatEntry&, Csr<float>, const FormatOptions&);
template FormatBuild<float> build_format(const FormatEntry&, WideCsr<float>, const FormatOptions&);
template FormatBuild<double> build_format(const FormatEntry&, WideCsr<double>, const FormatOptions&);
template FormatBuild<double> build_format(const FormatEntry&, Csr<double>, const FormatOptions&);

}  // namespace gpufem
