// The cusparse-sell baseline: CSR converted on the device to cuSPARSE's sliced ELL (the
// SELL-P layout with t = 1, no sorting, padding column -1: slice offsets, column-major within
// a slice of CusparseSellOptions::slice rows, the last slice padded with empty rows), then
// cusparseCreateSlicedEll and cusparseSpMV (CUSPARSE_SPMV_SELL_ALG1, preprocessed buffer) on
// the executor's stream.
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cusparse.h>
#include <fmt/format.h>

#include "linalg/blas1_kernels.hpp"
#include "linalg/cuda/cuda_check.hpp"
#include "linalg/cuda/cusparse_check.hpp"
#include "linalg/format_build.hpp"
#include "linalg/sellp.hpp"

namespace gpufem {
namespace {

using cuda::value_type_of;

/// cusparseSpMV over a sliced-ELL layout; an all-empty matrix (nothing stored) is applied as
/// y = beta y without cuSPARSE.
template <typename V>
class CusparseSellOperator final : public LinearOperator<V> {
public:
    CusparseSellOperator(Sellp<V> layout, ExecPtr exec)
        : s_(std::move(layout)), exec_(std::move(exec)), min_bytes_(sellp_spmv_min_bytes(s_))
    {
        GPUFEM_CUSPARSE_CHECK(cuda::cusparse().create(&handle_));
        GPUFEM_CUSPARSE_CHECK(
            cuda::cusparse().set_stream(handle_, static_cast<cudaStream_t>(exec_->stream())));
        if (s_.entries == 0) return;
        GPUFEM_CUSPARSE_CHECK(cuda::cusparse().create_sliced_ell(
            &descr_, s_.rows, s_.cols, static_cast<std::int64_t>(s_.nnz), s_.entries, s_.slice,
            s_.slice_ptr.data(), s_.col_idx.data(), s_.values.data(), CUSPARSE_INDEX_32I,
            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type_of<V>()));
        // Size and preprocess once with scratch vectors, as a solver would.
        Array<V> x(exec_, static_cast<std::size_t>(s_.cols));
        Array<V> y(exec_, static_cast<std::size_t>(s_.rows));
        DenseVectors vecs(x, y);
        const V one = 1, zero = 0;
        std::size_t bytes = 0;
        GPUFEM_CUSPARSE_CHECK(cuda::cusparse().spmv_buffer_size(
            handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, descr_, vecs.x, &zero, vecs.y,
            value_type_of<V>(), CUSPARSE_SPMV_SELL_ALG1, &bytes));
        buffer_ = Array<char>(exec_, bytes);
        GPUFEM_CUSPARSE_CHECK(cuda::cusparse().spmv_preprocess(
            handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, descr_, vecs.x, &zero, vecs.y,
            value_type_of<V>(), CUSPARSE_SPMV_SELL_ALG1, buffer_.data()));
        exec_->synchronize();
    }
    ~CusparseSellOperator() override
    {
        if (descr_ != nullptr) cuda::cusparse().destroy_sp_mat(descr_);
        cuda::cusparse().destroy(handle_);
    }

    index_type rows() const override { return s_.rows; }
    index_type cols() const override { return s_.cols; }
    const ExecPtr& executor() const override { return exec_; }
    std::string format() const override { return "cusparse-sell"; }
    std::size_t bytes_stored() const override { return s_.bytes_stored() + buffer_.bytes(); }
    std::size_t spmv_min_bytes() const override { return min_bytes_; }
    std::string parameters() const override
    {
        return fmt::format("slice={} padding={:.1f}%", s_.slice, sellp_padding_percent(s_));
    }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override
    {
        if (s_.rows == 0) return;
        if (descr_ == nullptr) {  // nothing stored: A x = 0
            if (beta == V(0))
                kernels::cuda::fill(*exec_, y.size(), V(0), y.data());
            else
                kernels::cuda::scale(*exec_, y.size(), beta, y.data());
            return;
        }
        DenseVectors vecs(const_cast<Array<V>&>(x), y);
        GPUFEM_CUSPARSE_CHECK(cuda::cusparse().spmv(
            handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, descr_, vecs.x, &beta, vecs.y,
            value_type_of<V>(), CUSPARSE_SPMV_SELL_ALG1, const_cast<char*>(buffer_.data())));
    }

private:
    /// Dense-vector descriptors for one call (creation is host-only and cheap).
    struct DenseVectors {
        DenseVectors(Array<V>& xa, Array<V>& ya)
        {
            GPUFEM_CUSPARSE_CHECK(cuda::cusparse().create_dn_vec(
                &x, static_cast<std::int64_t>(xa.size()), xa.data(), value_type_of<V>()));
            GPUFEM_CUSPARSE_CHECK(cuda::cusparse().create_dn_vec(
                &y, static_cast<std::int64_t>(ya.size()), ya.data(), value_type_of<V>()));
        }
        ~DenseVectors()
        {
            cuda::cusparse().destroy_dn_vec(x);
            cuda::cusparse().destroy_dn_vec(y);
        }
        cusparseDnVecDescr_t x{}, y{};
    };

    Sellp<V> s_;
    ExecPtr exec_;
    std::size_t min_bytes_;
    cusparseHandle_t handle_{};
    cusparseSpMatDescr_t descr_{};
    Array<char> buffer_;
};

}  // namespace

template <typename V>
FormatBuild<V> build_cusparse_sell_format(Csr<V> matrix, const CusparseSellOptions& options)
{
    ExecPtr exec = matrix.row_ptr.executor();
    if (!exec->is_cuda())
        throw std::invalid_argument("format 'cusparse-sell' needs the cuda backend");
    const auto start = std::chrono::steady_clock::now();
    FormatBuild<V> build;
    build.op = std::make_unique<CusparseSellOperator<V>>(
        convert_to_sellp(matrix, options.slice, 1, 1, SellpPadding::minus_one), exec);
    exec->synchronize();
    build.convert_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return build;
}

template FormatBuild<float> build_cusparse_sell_format(Csr<float>, const CusparseSellOptions&);
template FormatBuild<double> build_cusparse_sell_format(Csr<double>, const CusparseSellOptions&);

}  // namespace gpufem
