#pragma once
// Parameters of the parametrised CSR SpMV of Reguly & Giles 2012 (coop threads per row, repeat
// rows per thread group, block size), its fixed rule, and its run-time tuner (§6).
#include <string>
#include <vector>

#include "linalg/types.hpp"

namespace gpufem {

/// Launch parameters of the parametrised CSR kernel. A block of `block` threads processes
/// repeat * block / coop consecutive rows, coop threads per row.
struct CsrParams {
    int coop = 1;     ///< threads per row: a power of two, 1..32
    int repeat = 1;   ///< rows per thread group
    int block = 128;  ///< threads per block: a multiple of 32 (and of coop)
    bool operator==(const CsrParams&) const = default;
};

/// Blocks the kernel launches for these parameters (Reguly & Giles 2012, equation 5).
long long csr_grid_size(index_type rows, const CsrParams& p);

/// The fixed rule of Reguly & Giles 2012 (§5.4): block 128, coop the smallest power of two >=
/// sqrt(mean row length) (at most 32; the paper says larger than, which differs only when the
/// root is a power of two), repeat as large as possible while at least min_blocks blocks are
/// launched (the paper: 1500; here adapted to the device, a multiple of its SM count).
CsrParams csr_paper_rule(index_type rows, std::size_t nnz, int min_blocks);

/// The parameters the csr operator starts from: the paper's coop and block with repeat 1. On
/// the H100 repeat 1 was the best of `bench spmv --csr-sweep` on every matrix measured (Q1 and
/// Q2 structured, P4 and finite-volume unstructured, FP64 and FP32), where the paper's repeat
/// (16 to 64 there) reached 74-78% of the best; operators that are never tuned (multigrid
/// levels, transfers) keep these.
CsrParams csr_fixed_rule(index_type rows, std::size_t nnz);

/// "coop=4 repeat=2 block=128"
std::string to_string(const CsrParams& p);

/// The run-time tuner of Reguly & Giles 2012, §6, driven by one measured time per SpMV:
///  1. halve repeat (double the blocks): a change over 5% -> tune repeat in the better
///     direction (3); otherwise double coop with block 192 (2);
///  2. keep doubling coop while it helps, else try halving it;
///  3. keep moving repeat in the direction that helped, then (beyond the paper, which leaves
///     coop to the fixed rule on this path) search coop as in 2: on short rows, e.g. the 5
///     entries of finite-volume rows, the rule's coop 4 idles threads that coop 1 keeps busy;
///  4. finally move block in steps of 32 within [min_block, 512] while it helps.
/// Each step keeps the best parameters seen; a candidate must be faster by `threshold`
/// (relative) to be accepted.
class CsrTuner {
public:
    CsrTuner(index_type rows, CsrParams start, int min_block, double threshold = 0.02);

    /// Parameters to use for the next SpMV.
    const CsrParams& next() const { return current_; }
    /// Reports the time of the SpMV that ran with next(); advances the search.
    void report(double seconds);
    bool done() const { return phase_ == Phase::done; }
    const CsrParams& best() const { return best_; }
    double best_seconds() const { return best_time_; }
    /// SpMVs measured so far.
    int trials() const { return trials_; }

private:
    enum class Phase { baseline, first_repeat, coop_up, coop_down, repeat_dir, block_up, block_down, done };
    bool valid(const CsrParams& p) const;
    /// Tries candidate p next; returns false (and does nothing) if p is invalid or equal to best.
    bool propose(const CsrParams& p);
    void start_block_search();
    /// coop doubled, else halved (keeping block), then the block search.
    void start_coop_search();
    void advance_after_reject();

    index_type rows_;
    int min_block_;
    double threshold_;
    CsrParams current_, best_, origin_;
    double best_time_ = 0;
    double origin_time_ = 0;
    int repeat_step_ = 0;  ///< -1: halve repeat, +1: double repeat
    Phase phase_ = Phase::baseline;
    int trials_ = 0;
};

}  // namespace gpufem
