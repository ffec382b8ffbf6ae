#include "linalg/csr_tuned_operator.hpp"

#include <fmt/format.h>

#include "linalg/csr_kernels.hpp"

namespace gpufem {

template <typename V, typename O>
CsrTunedOperator<V, O>::CsrTunedOperator(Csr<V, O> matrix, const CsrOptions& options)
    : matrix_(std::move(matrix))
{
    const Executor& exec = *matrix_.executor();
    fixed_ = csr_fixed_rule(matrix_.rows, matrix_.nnz());
    origin_ = "fixed rule";
    const bool given = options.coop > 0 || options.repeat > 0 || options.block > 0;
    if (options.coop > 0) fixed_.coop = options.coop;
    if (options.repeat > 0) fixed_.repeat = options.repeat;
    if (options.block > 0) fixed_.block = options.block;
    if (given) origin_ = "case file";
    if (fixed_.block % fixed_.coop != 0 || fixed_.block % 32 != 0 || fixed_.block > 512)
        throw std::invalid_argument(fmt::format(
            "format 'csr': block {} must be a multiple of 32 and of coop {}, at most 512",
            fixed_.block, fixed_.coop));
    params_ = fixed_;
    if (exec.is_cuda() && options.tune && !given) {
        tuner_ = std::make_unique<CsrTuner>(matrix_.rows, fixed_, sizeof(V) == 8 ? 64 : 96);
        timer_ = make_interval_timer(matrix_.executor());
    }
}

template <typename V, typename O>
std::string CsrTunedOperator<V, O>::parameters() const
{
    const char* offsets = std::is_same_v<O, index_type> ? "" : ", 64-bit row offsets";
    if (!tuner_) return fmt::format("{} ({}){}", to_string(params_), origin_, offsets);
    if (!tuner_->done())
        return fmt::format("{} (tuning, {} SpMVs measured; {} was {}){}", to_string(params_),
                           tuner_->trials(), origin_, to_string(fixed_), offsets);
    return fmt::format("{} (tuned over {} SpMVs; {} was {}){}", to_string(params_), tuner_->trials(),
                       origin_, to_string(fixed_), offsets);
}

template <typename V, typename O>
void CsrTunedOperator<V, O>::apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const
{
    const Executor& exec = *matrix_.executor();
    if (!exec.is_cuda()) {
        kernels::cpu::csr_spmv(exec, matrix_, alpha, x.data(), beta, y.data());
        return;
    }
    if (tuning()) {
        // Feed the previous SpMV's time (waits for it) and take the next candidate.
        const auto times = timer_->seconds();
        for (; measured_ < times.size(); ++measured_) tuner_->report(times[measured_]);
        params_ = tuner_->next();
        if (!tuner_->done()) {
            timer_->start();
            kernels::cuda::csr_spmv_params(exec, params_, matrix_, alpha, x.data(), beta, y.data());
            timer_->stop();
            return;
        }
    }
    kernels::cuda::csr_spmv_params(exec, params_, matrix_, alpha, x.data(), beta, y.data());
}

template class CsrTunedOperator<float>;
template class CsrTunedOperator<double>;
template class CsrTunedOperator<float, wide_offset_type>;
template class CsrTunedOperator<double, wide_offset_type>;

}  // namespace gpufem
