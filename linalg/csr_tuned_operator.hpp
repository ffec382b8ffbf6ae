#pragma once
// The `csr` format: CSR applied with the parametrised kernel of Reguly & Giles 2012, parameters
// from the fixed rule (or the case), optionally refined by the run-time tuner over the first
// SpMVs.
#include <memory>
#include <type_traits>

#include "linalg/csr.hpp"
#include "linalg/csr_tuning.hpp"
#include "linalg/format_options.hpp"
#include "linalg/interval_timer.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// Options of the `csr` format (format_options.csr); 0 = the fixed rule chooses.
struct CsrOptions {
    int coop = 0;       ///< threads per row, a power of two <= 32
    int repeat = 0;     ///< rows per thread group
    int block = 0;      ///< threads per block, a multiple of 32 <= 512 (the kernel's launch bound)
    bool tune = true;   ///< run-time tuner over the first SpMVs (Reguly & Giles 2012, §6) when none is given
    /// 64-bit row offsets at any size (offsets: 64); by default (auto) only for a matrix past
    /// 2^31 - 1 entries, which 32-bit offsets cannot address.
    bool wide_offsets = false;
};

/// CSR with coop / repeat / block parameters. On the CPU it applies the reference loop.
/// O: the row offsets' type (wide_offset_type: a matrix past 2^31 - 1 entries, WideCsr).
template <typename V, typename O = index_type>
class CsrTunedOperator final : public LinearOperator<V> {
public:
    CsrTunedOperator(Csr<V, O> matrix, const CsrOptions& options);

    index_type rows() const override { return matrix_.rows; }
    index_type cols() const override { return matrix_.cols; }
    const ExecPtr& executor() const override { return matrix_.executor(); }
    std::string format() const override { return "csr"; }
    std::size_t bytes_stored() const override { return matrix_.bytes_stored(); }
    std::size_t spmv_min_bytes() const override { return csr_spmv_min_bytes(matrix_, false); }
    /// The parameters in use and how they were chosen.
    std::string parameters() const override;
    /// The matrix, for a preconditioner built from it; none with 64-bit offsets (WideCsr:
    /// what reads a stored CSR takes 32-bit offsets).
    const Csr<V>* stored_csr() const override
    {
        if constexpr (std::is_same_v<O, index_type>) return &matrix_;
        else return nullptr;
    }
    /// The matrix with 64-bit offsets, for p-multigrid's first Galerkin product across ranks.
    const WideCsr<V>* stored_wide_csr() const override
    {
        if constexpr (std::is_same_v<O, wide_offset_type>) return &matrix_;
        else return nullptr;
    }
    /// Current kernel parameters.
    const CsrParams& params() const { return params_; }
    /// True while the tuner is still trying parameters.
    bool tuning() const { return tuner_ != nullptr && !tuner_->done(); }
    /// Not while tuning (each tuning SpMV waits for the previous one's time).
    bool graph_capturable() const override { return !tuning(); }

protected:
    void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const override;

private:
    Csr<V, O> matrix_;
    CsrParams fixed_;                         ///< fixed rule or case-file parameters
    std::string origin_;                      ///< "fixed rule" / "case file"
    mutable CsrParams params_;
    mutable std::unique_ptr<CsrTuner> tuner_;
    mutable std::unique_ptr<IntervalTimer> timer_;
    mutable std::size_t measured_ = 0;        ///< intervals already fed to the tuner
};

}  // namespace gpufem
