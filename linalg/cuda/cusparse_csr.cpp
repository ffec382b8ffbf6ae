#include <stdexcept>
#include <string>

#include <cusparse.h>

#include "linalg/csr_operator.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/cusparse_check.hpp"

namespace gpufem {
namespace {

using cuda::value_type_of;

/// cusparseSpMV over gpufem's CSR arrays, on the executor's stream.
template <typename V>
class CusparseCsrOperator final : public LinearOperator<V> {
public:
    explicit CusparseCsrOperator(Csr<V> matrix) : matrix_(std::move(matrix))
    {
        GPUFEM_CUSPARSE_CHECK(cuda::cusparse().create(&handle_));
        GPUFEM_CUSPARSE_CHECK(
            cuda::cusparse().set_stream(handle_, static_cast<cudaStream_t>(executor()->stream())));
        GPUFEM_CUSPARSE_CHECK(cuda::cusparse().create_csr(
            &descr_, matrix_.rows, matrix_.cols, static_cast<std::int64_t>(matrix_.nnz()),
            matrix_.row_ptr.data(), matrix_.col_idx.data(), matrix_.values.data(),
            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type_of<V>()));
        // Size and preprocess once with scratch vectors, as a solver would.
        Array<V> x(executor(), matrix_.cols), y(executor(), matrix_.rows);
        DenseVectors vecs(x, y);
        const V one = 1, zero = 0;
        std::size_t bytes = 0;
        GPUFEM_CUSPARSE_CHECK(cuda::cusparse().spmv_buffer_size(
            handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, descr_, vecs.x, &zero, vecs.y,
            value_type_of<V>(), CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
        buffer_ = Array<char>(executor(), bytes);
        GPUFEM_CUSPARSE_CHECK(cuda::cusparse().spmv_preprocess(
            handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, descr_, vecs.x, &zero, vecs.y,
            value_type_of<V>(), CUSPARSE_SPMV_ALG_DEFAULT, buffer_.data()));
        executor()->synchronize();
    }
    ~CusparseCsrOperator() override
    {
        cuda::cusparse().destroy_sp_mat(descr_);
        cuda::cusparse().destroy(handle_);
    }

    index_type rows() const override { return matrix_.rows; }
    index_type cols() const override { return matrix_.cols; }
    const ExecPtr& executor() const override { return matrix_.executor(); }
    std::string format() const override { return "cusparse"; }
    const Csr<V>* stored_csr() const override { return &matrix_; }
    std::size_t bytes_stored() const override { return matrix_.bytes_stored() + buffer_.bytes(); }
    std::size_t spmv_min_bytes() const override { return csr_spmv_min_bytes(matrix_, false); }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override
    {
        DenseVectors vecs(const_cast<Array<V>&>(x), y);
        GPUFEM_CUSPARSE_CHECK(cuda::cusparse().spmv(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                                    descr_, vecs.x, &beta, vecs.y, value_type_of<V>(),
                                                    CUSPARSE_SPMV_ALG_DEFAULT,
                                                    const_cast<char*>(buffer_.data())));
    }

private:
    /// Dense-vector descriptors for one call (creation is host-only and cheap).
    struct DenseVectors {
        DenseVectors(Array<V>& xa, Array<V>& ya)
        {
            GPUFEM_CUSPARSE_CHECK(cuda::cusparse().create_dn_vec(&x, static_cast<std::int64_t>(xa.size()),
                                                                 xa.data(), value_type_of<V>()));
            GPUFEM_CUSPARSE_CHECK(cuda::cusparse().create_dn_vec(&y, static_cast<std::int64_t>(ya.size()),
                                                                 ya.data(), value_type_of<V>()));
        }
        ~DenseVectors()
        {
            cuda::cusparse().destroy_dn_vec(x);
            cuda::cusparse().destroy_dn_vec(y);
        }
        cusparseDnVecDescr_t x{}, y{};
    };

    Csr<V> matrix_;
    cusparseHandle_t handle_{};
    cusparseSpMatDescr_t descr_{};
    Array<char> buffer_;
};

}  // namespace

template <typename V>
std::unique_ptr<LinearOperator<V>> make_cusparse_csr_operator(Csr<V> matrix)
{
    if (!matrix.executor()->is_cuda())
        throw std::invalid_argument("format 'cusparse' needs the cuda backend");
    return std::make_unique<CusparseCsrOperator<V>>(std::move(matrix));
}

template std::unique_ptr<LinearOperator<float>> make_cusparse_csr_operator(Csr<float>);
template std::unique_ptr<LinearOperator<double>> make_cusparse_csr_operator(Csr<double>);

}  // namespace gpufem
