#pragma once
// Operators over an assembled CSR matrix: gpufem's own kernels and the cuSPARSE baseline.
#include <memory>
#include <string>
#include <vector>

#include "linalg/csr.hpp"
#include "linalg/csr_kernels.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// The `csr-scalar` format: CSR applied one thread per row on CUDA (the reference loop on
/// the CPU), the plain baseline the parametrised `csr` kernel improves on.
template <typename V>
class CsrOperator final : public LinearOperator<V> {
public:
    explicit CsrOperator(Csr<V> matrix) : matrix_(std::move(matrix)) {}

    index_type rows() const override { return matrix_.rows; }
    index_type cols() const override { return matrix_.cols; }
    const ExecPtr& executor() const override { return matrix_.executor(); }
    std::string format() const override { return "csr-scalar"; }
    std::size_t bytes_stored() const override { return matrix_.bytes_stored(); }
    std::size_t spmv_min_bytes() const override { return csr_spmv_min_bytes(matrix_, false); }
    const Csr<V>& matrix() const { return matrix_; }
    const Csr<V>* stored_csr() const override { return &matrix_; }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override;

private:
    Csr<V> matrix_;
};

/// cuSPARSE's CSR SpMV (cusparseSpMV) over the same arrays: the vendor baseline.
/// Throws on a CPU executor or when CUDA is not built.
template <typename V>
std::unique_ptr<LinearOperator<V>> make_cusparse_csr_operator(Csr<V> matrix);


}  // namespace gpufem
