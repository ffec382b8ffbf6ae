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
    format.require(exec->backend());
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
template FormatBuild<float> build_format(const std::string&, Csr<float>, const FormatOptions&);
template FormatBuild<double> build_format(const std::string&, Csr<double>, const FormatOptions&);
template FormatBuild<float> build_format(const FormatEntry&, Csr<float>, const FormatOptions&);
template FormatBuild<double> build_format(const FormatEntry&, Csr<double>, const FormatOptions&);

}  // namespace gpufem
