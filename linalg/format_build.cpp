#include "linalg/format_build.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "linalg/csr_kernels.hpp"
#include "linalg/reordering.hpp"

namespace gpufem {

const std::vector<std::string>& format_names()
{
    static const std::vector<std::string> names{"csr",   "csr-scalar", "ell",       "ellr",
                                                "sellp", "bdia",       "staircase", "cusparse",
                                                "cusparse-sell"};
    return names;
}

namespace {

template <typename V>
FormatBuild<V> build_named_format(const std::string& name, Csr<V> matrix,
                                  const FormatOptions& options)
{
    if (name == "csr") return build_csr_format(std::move(matrix), options);
    if (name == "csr-scalar") return build_csr_scalar_format(std::move(matrix), options);
    if (name == "ell") return build_ell_format(std::move(matrix), options, false);
    if (name == "ellr") return build_ell_format(std::move(matrix), options, true);
    if (name == "sellp") return build_sellp_format(std::move(matrix), options);
    if (name == "bdia") return build_bdia_format(std::move(matrix), options);
    if (name == "staircase") return build_staircase_format(std::move(matrix), options);
    if (name == "cusparse" || name == "cusparse-sell") {
        if (!matrix.executor()->is_cuda())
            throw std::invalid_argument("format '" + name + "' needs the cuda backend");
        return name == "cusparse" ? build_cusparse_format(std::move(matrix), options)
                                  : build_cusparse_sell_format(std::move(matrix), options);
    }
    throw std::invalid_argument(
        fmt::format("unknown format '{}' (known: {})", name, fmt::join(format_names(), ", ")));
}

}  // namespace

template <typename V>
FormatBuild<V> build_format(const std::string& name, Csr<V> matrix, const FormatOptions& options)
{
    const ExecPtr exec = matrix.executor();
    Array<V> diagonal(exec, static_cast<std::size_t>(matrix.rows));
    GPUFEM_DISPATCH(*exec, csr_diagonal(*exec, matrix, diagonal.data()));
    FormatBuild<V> build = build_named_format(name, std::move(matrix), options);
    if (!build.permutation.empty()) {
        Array<V> permuted(exec, diagonal.size());
        permute_vector(build.permutation, diagonal, permuted, false);
        diagonal.swap(permuted);
    }
    build.op->set_diagonal(std::move(diagonal));
    return build;
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

}  // namespace gpufem
