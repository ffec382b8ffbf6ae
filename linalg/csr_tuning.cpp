#include "linalg/csr_tuning.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpufem {

long long csr_grid_size(index_type rows, const CsrParams& p)
{
    const long long rows_per_block = static_cast<long long>(p.repeat) * (p.block / p.coop);
    return rows == 0 ? 0 : (static_cast<long long>(rows) + rows_per_block - 1) / rows_per_block;
}

CsrParams csr_fixed_rule(index_type rows, std::size_t nnz)
{
    CsrParams p;
    p.block = 128;
    const double mean = rows > 0 ? static_cast<double>(nnz) / rows : 0.0;
    const double root = std::sqrt(mean);
    p.coop = 1;
    while (p.coop < 32 && p.coop < root) p.coop *= 2;
    p.repeat = 1;
    return p;
}

CsrParams csr_paper_rule(index_type rows, std::size_t nnz, int min_blocks)
{
    CsrParams p = csr_fixed_rule(rows, nnz);
    while (p.repeat < 64) {
        CsrParams bigger = p;
        bigger.repeat *= 2;
        if (csr_grid_size(rows, bigger) < min_blocks) break;
        p = bigger;
    }
    return p;
}

std::string to_string(const CsrParams& p)
{
    return fmt::format("coop={} repeat={} block={}", p.coop, p.repeat, p.block);
}

CsrTuner::CsrTuner(index_type rows, CsrParams start, int min_block, double threshold)
    : rows_(rows), min_block_(min_block), threshold_(threshold), current_(start), best_(start),
      origin_(start)
{}

bool CsrTuner::valid(const CsrParams& p) const
{
    return p.coop >= 1 && p.coop <= 32 && p.repeat >= 1 && p.repeat <= 256 &&
           p.block >= min_block_ && p.block <= 512 && p.block % 32 == 0 && p.block % p.coop == 0 &&
           csr_grid_size(rows_, p) >= 1 && csr_grid_size(rows_, p) < (1LL << 31);
}

bool CsrTuner::propose(const CsrParams& p)
{
    if (!valid(p) || p == best_) return false;
    current_ = p;
    return true;
}

void CsrTuner::start_block_search()
{
    phase_ = Phase::block_up;
    CsrParams p = best_;
    p.block += 32;
    if (propose(p)) return;
    phase_ = Phase::block_down;
    p = best_;
    p.block -= 32;
    if (propose(p)) return;
    phase_ = Phase::done;
    current_ = best_;
}

void CsrTuner::start_coop_search()
{
    phase_ = Phase::coop_up;
    CsrParams p = best_;
    p.coop *= 2;
    if (propose(p)) return;
    phase_ = Phase::coop_down;
    p = best_;
    p.coop /= 2;
    if (p.coop >= 1 && propose(p)) return;
    start_block_search();
}

void CsrTuner::advance_after_reject()
{
    // The candidate of the current phase did not help: move to the next phase.
    switch (phase_) {
    case Phase::coop_up: {
        phase_ = Phase::coop_down;
        CsrParams p = best_;
        p.coop /= 2;
        if (propose(p)) return;
        start_block_search();
        return;
    }
    case Phase::coop_down: start_block_search(); return;
    case Phase::repeat_dir: start_coop_search(); return;
    case Phase::block_up: {
        phase_ = Phase::block_down;
        CsrParams p = best_;
        p.block -= 32;
        if (propose(p)) return;
        phase_ = Phase::done;
        current_ = best_;
        return;
    }
    default: phase_ = Phase::done; current_ = best_; return;
    }
}

void CsrTuner::report(double seconds)
{
    if (phase_ == Phase::done) return;
    ++trials_;
    const bool better = seconds < best_time_ * (1.0 - threshold_);
    switch (phase_) {
    case Phase::baseline: {
        best_time_ = origin_time_ = seconds;
        phase_ = Phase::first_repeat;
        CsrParams p = best_;
        p.repeat /= 2;
        if (p.repeat >= 1 && propose(p)) return;
        // repeat is already 1: treat as "no change" and go to coop.
        phase_ = Phase::coop_up;
        p = best_;
        p.coop *= 2;
        p.block = std::max(p.block, 192 / 32 * 32);
        if (propose(p)) return;
        start_block_search();
        return;
    }
    case Phase::first_repeat: {
        const double change = std::abs(seconds - origin_time_) / origin_time_;
        if (change > 0.05) {
            repeat_step_ = seconds < origin_time_ ? -1 : +1;
            if (seconds < best_time_) best_ = current_, best_time_ = seconds;
            phase_ = Phase::repeat_dir;
            CsrParams p = best_;
            p.repeat = repeat_step_ < 0 ? p.repeat / 2 : p.repeat * 2;
            if (p.repeat >= 1 && propose(p)) return;
            start_coop_search();
            return;
        }
        phase_ = Phase::coop_up;
        CsrParams p = best_;
        p.coop *= 2;
        p.block = 192;
        if (propose(p)) return;
        advance_after_reject();
        return;
    }
    case Phase::coop_up:
    case Phase::coop_down:
    case Phase::repeat_dir:
    case Phase::block_up:
    case Phase::block_down: {
        if (!better) {
            advance_after_reject();
            return;
        }
        best_ = current_;
        best_time_ = seconds;
        CsrParams p = best_;
        if (phase_ == Phase::coop_up) p.coop *= 2;
        if (phase_ == Phase::coop_down) p.coop /= 2;
        if (phase_ == Phase::repeat_dir) p.repeat = repeat_step_ < 0 ? p.repeat / 2 : p.repeat * 2;
        if (phase_ == Phase::block_up) p.block += 32;
        if (phase_ == Phase::block_down) p.block -= 32;
        if ((p.repeat >= 1 && p.coop >= 1) && propose(p)) return;
        advance_after_reject();
        return;
    }
    case Phase::done: return;
    }
}

}  // namespace gpufem
