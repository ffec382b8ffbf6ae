#include <chrono>

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

}  // namespace

template <typename V>
FormatBuild<V> build_csr_format(Csr<V> matrix, const FormatOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    return wrap<V>(std::make_unique<CsrTunedOperator<V>>(std::move(matrix), options), start);
}

template <typename V>
FormatBuild<V> build_csr_scalar_format(Csr<V> matrix, const FormatOptions&)
{
    const auto start = std::chrono::steady_clock::now();
    return wrap<V>(std::make_unique<CsrOperator<V>>(std::move(matrix)), start);
}

template <typename V>
FormatBuild<V> build_cusparse_format(Csr<V> matrix, const FormatOptions&)
{
    const auto start = std::chrono::steady_clock::now();
    return wrap<V>(make_cusparse_csr_operator(std::move(matrix)), start);
}

#define GPUFEM_INSTANTIATE(V)                                                              \
    template FormatBuild<V> build_csr_format(Csr<V>, const FormatOptions&);               \
    template FormatBuild<V> build_csr_scalar_format(Csr<V>, const FormatOptions&);        \
    template FormatBuild<V> build_cusparse_format(Csr<V>, const FormatOptions&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)

}  // namespace gpufem
