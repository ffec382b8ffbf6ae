#pragma once
// Operators over an assembled CSR matrix: gpufem's own kernels and the cuSPARSE baseline.
#include <memory>
#include <string>
#include <vector>

#include "linalg/csr.hpp"
#include "linalg/csr_kernels.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// CSR matrix applied with gpufem's kernels (scalar or warp-per-row on CUDA; the reference
/// loop on the CPU).
template <typename V>
class CsrOperator final : public LinearOperator<V> {
public:
    CsrOperator(Csr<V> matrix, CsrKernel kernel) : matrix_(std::move(matrix)), kernel_(kernel) {}

    index_type rows() const override { return matrix_.rows; }
    index_type cols() const override { return matrix_.cols; }
    const ExecPtr& executor() const override { return matrix_.executor(); }
    std::string format() const override { return kernel_ == CsrKernel::scalar ? "csr-scalar" : "csr"; }
    std::size_t bytes_stored() const override { return matrix_.bytes_stored(); }
    std::size_t spmv_min_bytes() const override { return csr_spmv_min_bytes(matrix_, false); }
    const Csr<V>& matrix() const { return matrix_; }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override;

private:
    Csr<V> matrix_;
    CsrKernel kernel_;
};

/// cuSPARSE's CSR SpMV (cusparseSpMV) over the same arrays: the vendor baseline.
/// Throws on a CPU executor or when CUDA is not built.
template <typename V>
std::unique_ptr<LinearOperator<V>> make_cusparse_csr_operator(Csr<V> matrix);

/// Formats make_csr_based_operator accepts: "csr", "csr-scalar", "cusparse".
const std::vector<std::string>& csr_based_formats();

/// Wraps an assembled CSR matrix in the operator of the named format; throws
/// std::invalid_argument naming the format if unknown or unavailable on the executor.
template <typename V>
std::unique_ptr<LinearOperator<V>> make_csr_based_operator(const std::string& format,
                                                           Csr<V> matrix);

}  // namespace gpufem
