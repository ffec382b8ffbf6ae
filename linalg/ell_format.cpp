// The ell / ellr formats: conversion from CSR (dispatched to the executor's backend), the
// operator over the layout, and the builder.
#include <chrono>
#include <cmath>
#include <exception>
#include <stdexcept>

#include <fmt/format.h>

#include "linalg/ell.hpp"
#include "linalg/format_build.hpp"

namespace gpufem {

template <typename V>
Ell<V> convert_to_ell(const Csr<V>& matrix, bool row_lengths)
{
    const ExecPtr& exec = matrix.row_ptr.executor();
    Ell<V> ell;
    ell.rows = matrix.rows;
    ell.cols = matrix.cols;
    ell.stride = ell_stride(matrix.rows);
    ell.nnz = matrix.nnz();
    ell.with_lengths = row_lengths;
    Array<index_type> lengths(exec, static_cast<std::size_t>(matrix.rows));
    ell.width = GPUFEM_DISPATCH(*exec, ell_row_lengths(*exec, matrix, lengths.data()));
    try {
        ell.col_idx = Array<index_type>(exec, ell.entries());
        ell.values = Array<V>(exec, ell.entries());
    } catch (const std::exception& e) {  // e.g. one very long row pads every other one
        const double gib = static_cast<double>(ell.entries()) *
                           (sizeof(index_type) + sizeof(V)) / (1 << 30);
        throw std::invalid_argument(
            fmt::format("format '{}': {} rows padded to width {} need {:.2f} GiB ({})",
                        row_lengths ? "ellr" : "ell", ell.rows, ell.width, gib, e.what()));
    }
    GPUFEM_DISPATCH(*exec, ell_fill(*exec, matrix, ell));
    if (row_lengths) ell.row_len = std::move(lengths);
    return ell;
}

namespace {

/// ELLPACK or ELLPACK-R applied with the backend's kernel.
template <typename V>
class EllOperator final : public LinearOperator<V> {
public:
    EllOperator(Ell<V> ell, ExecPtr exec) : ell_(std::move(ell)), exec_(std::move(exec)) {}

    index_type rows() const override { return ell_.rows; }
    index_type cols() const override { return ell_.cols; }
    const ExecPtr& executor() const override { return exec_; }
    std::string format() const override { return ell_.with_lengths ? "ellr" : "ell"; }
    std::size_t bytes_stored() const override { return ell_.bytes_stored(); }
    /// ell reads every row's full width; ellr reads the stored entries and the lengths.
    std::size_t spmv_min_bytes() const override
    {
        const std::size_t entry = sizeof(index_type) + sizeof(V);
        const std::size_t rows = static_cast<std::size_t>(ell_.rows);
        const std::size_t matrix = ell_.with_lengths
                                       ? ell_.nnz * entry + rows * sizeof(index_type)
                                       : rows * static_cast<std::size_t>(ell_.width) * entry;
        return matrix + static_cast<std::size_t>(ell_.cols) * sizeof(V) + rows * sizeof(V);
    }
    std::string parameters() const override
    {
        const double stored = static_cast<double>(ell_.rows) * ell_.width;
        const double padding = ell_.nnz > 0 ? 100.0 * (stored - ell_.nnz) / ell_.nnz : 0.0;
        return fmt::format("width={} stride={} padding={:.1f}%", ell_.width, ell_.stride,
                           padding);
    }

    /// One partial per ell_dot_rows rows (square matrices only).
    std::size_t dot_partials() const override
    {
        return ell_.rows == ell_.cols ? static_cast<std::size_t>((ell_.rows + ell_dot_rows - 1) / ell_dot_rows) : 0;
    }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override
    {
        GPUFEM_DISPATCH(*exec_, ell_spmv(*exec_, ell_, alpha, x.data(), beta, y.data()));
    }
    void apply_with_dot_impl(const Array<V>& x, Array<V>& y, double* partials) const override
    {
        GPUFEM_DISPATCH(*exec_, ell_spmv_dot(*exec_, ell_, x.data(), y.data(), partials));
    }
    void apply_cg_direction_impl(const Array<V>& z, const double* beta, Array<V>& p, Array<V>& q,
                                 double* partials) const override
    {
        GPUFEM_DISPATCH(*exec_, ell_spmv_direction(*exec_, ell_, z.data(), beta, p.data(), q.data(), partials));
    }

private:
    Ell<V> ell_;
    ExecPtr exec_;
};

}  // namespace

template <typename V>
FormatBuild<V> build_ell_format(Csr<V> matrix, bool row_lengths)
{
    const auto start = std::chrono::steady_clock::now();
    ExecPtr exec = matrix.row_ptr.executor();
    FormatBuild<V> build;
    build.op = std::make_unique<EllOperator<V>>(convert_to_ell(matrix, row_lengths), exec);
    exec->synchronize();
    build.convert_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return build;
}

namespace {

template <typename V>
FormatBuild<V> build_ell(Csr<V> matrix, const FormatOptions&)
{
    return build_ell_format(std::move(matrix), false);
}

template <typename V>
FormatBuild<V> build_ellr(Csr<V> matrix, const FormatOptions&)
{
    return build_ell_format(std::move(matrix), true);
}

/// ELL's memory: every row padded to the longest (rows rounded up to 32), the diagonal, and
/// the row lengths (kept by ellr); the CSR is freed once the ELL arrays are filled.
FormatMemory ell_memory(const MatrixShape& m, bool row_lengths)
{
    const double padded_rows = std::ceil(m.rows / 32) * 32;
    const double stored = m.max_row_length * padded_rows * (4 + m.value_bytes) +
                          m.rows * m.value_bytes + (row_lengths ? 4 * m.rows : 0);
    return {stored, csr_bytes(m) + stored + 4 * m.rows, 0};
}

}  // namespace

FormatEntry ell_format_entry()
{
    FormatEntry e = assembled_format_entry("ell", "ELLPACK, column-major, padded to the longest row",
                                           build_ell<float>, build_ell<double>);
    e.memory = [](const MatrixShape& m, const FormatOptions&) { return ell_memory(m, false); };
    return e;
}

FormatEntry ellr_format_entry()
{
    FormatEntry e = assembled_format_entry("ellr", "ELLPACK-R: ELLPACK with row lengths, stops early",
                                           build_ellr<float>, build_ellr<double>);
    e.memory = [](const MatrixShape& m, const FormatOptions&) { return ell_memory(m, true); };
    return e;
}

#define GPUFEM_INSTANTIATE(V)                                                              \
    template Ell<V> convert_to_ell(const Csr<V>&, bool);                                   \
    template FormatBuild<V> build_ell_format(Csr<V>, bool);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
