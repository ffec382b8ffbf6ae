#include "linalg/format_build.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "linalg/csr_kernels.hpp"
#include "linalg/reordering.hpp"

namespace gpufem {

template <typename V>
FormatBuild<V> build_format(const FormatEntry& format, Csr<V> matrix, const FormatOptions& options)
{
    const ExecPtr exec = matrix.executor();
    if (format.matrix_free())
        throw std::invalid_argument("format '" + format.name +
                                    "' is matrix-free: the discretisation builds it, not a matrix");
    if (!format.available_on(exec->backend()))
        throw std::invalid_argument(fmt::format("format '{}' needs the {} backend", format.name,
                                                format.on_cuda ? "cuda" : "cpu"));
    Array<V> diagonal(exec, static_cast<std::size_t>(matrix.rows));
    GPUFEM_DISPATCH(*exec, csr_diagonal(*exec, matrix, diagonal.data()));
    FormatBuild<V> build = format.csr_builder<V>()(std::move(matrix), options);
    if (!build.permutation.empty()) {
        Array<V> permuted(exec, diagonal.size());
        permute_vector(build.permutation, diagonal, permuted, false);
        diagonal.swap(permuted);
    }
    build.op->set_diagonal(std::move(diagonal));
    return build;
}

template <typename V>
FormatBuild<V> build_format(const std::string& name, Csr<V> matrix, const FormatOptions& options)
{
    return build_format(assembled_formats().at(name), std::move(matrix), options);
}

template <typename V>
void apply_in_original_order(const FormatBuild<V>& format, V alpha, const Array<V>& x, V beta,
                             Array<V>& y)
{
    if (format.permutation.empty()) {
        format.op->apply(alpha, x, beta, y);
        return;
    }
    const ExecPtr& exec = format.op->executor();
    Array<V> xp(exec, x.size()), yp(exec, y.size());
    permute_vector(format.permutation, x, xp, false);
    permute_vector(format.permutation, y, yp, false);
    format.op->apply(alpha, xp, beta, yp);
    permute_vector(format.permutation, yp, y, true);
}

template void apply_in_original_order(const FormatBuild<float>&, float, const Array<float>&, float,
                                      Array<float>&);
template void apply_in_original_order(const FormatBuild<double>&, double, const Array<double>&,
                                      double, Array<double>&);
template FormatBuild<float> build_format(const std::string&, Csr<float>, const FormatOptions&);
template FormatBuild<double> build_format(const std::string&, Csr<double>, const FormatOptions&);
template FormatBuild<float> build_format(const FormatEntry&, Csr<float>, const FormatOptions&);
template FormatBuild<double> build_format(const FormatEntry&, Csr<double>, const FormatOptions&);

}  // namespace gpufem
