#include "linalg/csr_operator.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpufem {

template <typename V>
void CsrOperator<V>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    const Executor& exec = *matrix_.executor();
    if (exec.is_cuda()) {
        kernels::cuda::csr_spmv(exec, kernel_, matrix_, alpha, x.data(), beta, y.data());
    } else {
        kernels::cpu::csr_spmv(exec, matrix_, alpha, x.data(), beta, y.data());
    }
}

const std::vector<std::string>& csr_based_formats()
{
    static const std::vector<std::string> formats{"csr", "csr-scalar", "cusparse"};
    return formats;
}

template <typename V>
std::unique_ptr<LinearOperator<V>> make_csr_based_operator(const std::string& format,
                                                           Csr<V> matrix)
{
    if (format == "csr") return std::make_unique<CsrOperator<V>>(std::move(matrix), CsrKernel::warp);
    if (format == "csr-scalar")
        return std::make_unique<CsrOperator<V>>(std::move(matrix), CsrKernel::scalar);
    if (format == "cusparse") {
        if (!matrix.executor()->is_cuda())
            throw std::invalid_argument("format 'cusparse' needs the cuda backend");
        return make_cusparse_csr_operator(std::move(matrix));
    }
    throw std::invalid_argument(
        fmt::format("unknown format '{}' (known: {})", format, fmt::join(csr_based_formats(), ", ")));
}

template class CsrOperator<float>;
template class CsrOperator<double>;
template std::unique_ptr<LinearOperator<float>> make_csr_based_operator(const std::string&,
                                                                        Csr<float>);
template std::unique_ptr<LinearOperator<double>> make_csr_based_operator(const std::string&,
                                                                         Csr<double>);

}  // namespace gpufem
