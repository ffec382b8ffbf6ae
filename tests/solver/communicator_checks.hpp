#pragma once
// Checks of the Krylov solvers' communicator seam, shared by the CPU and GPU tests:
// - split reductions on one process (a communicator that reduces but has no peer) give
//   bit for bit the fused kernels' solve;
// - a system of two uncoupled blocks solved by two ranks (threads exchanging their sums
//   through a test communicator), each holding one block, gives the one-rank solve of the
//   whole system.
#include <algorithm>
#include <barrier>
#include <mutex>
#include <thread>

#include "solver/krylov_checks.hpp"

namespace gpufem::test {

/// A communicator of one process that still reduces (as MPI on one rank would): the merged
/// solvers split their reductions; every sum is already total. Counts the all-reduces.
class LoopbackCommunicator final : public Communicator {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::string describe() const override { return "loopback"; }
    bool reduces() const override { return true; }
    void all_reduce_sum(const Executor&, double*, int count) const override
    {
        ++calls;
        values += count;
    }
    void exchange(const Executor&, std::span<const ExchangeMessage>, std::span<const ExchangeMessage>) const override
    {
    }
    mutable int calls = 0;
    mutable int values = 0;
};

/// Ranks as threads of one process, for tests: all_reduce_sum adds the ranks' values in rank
/// order (every rank gets the same bits), synchronising the executor first.
class ThreadRanks {
public:
    explicit ThreadRanks(int size) : size_(size), sync_(size), slots_(size) {}

    /// The communicator of one rank.
    class Rank final : public Communicator {
    public:
        Rank(ThreadRanks& ranks, int rank) : ranks_(ranks), rank_(rank) {}
        int rank() const override { return rank_; }
        int size() const override { return ranks_.size_; }
        std::string describe() const override { return "threads"; }
        void all_reduce_sum(const Executor& exec, double* values, int count) const override
        {
            std::vector<double> mine(static_cast<std::size_t>(count));
            copy_bytes(*Executor::create_cpu(), mine.data(), exec, values, mine.size() * sizeof(double));
            ranks_.slots_[rank_] = mine;
            ranks_.sync_.arrive_and_wait();
            std::vector<double> total(mine.size(), 0.0);
            for (const std::vector<double>& slot : ranks_.slots_)
                for (std::size_t k = 0; k < total.size(); ++k) total[k] += slot[k];
            ranks_.sync_.arrive_and_wait();  // every rank has read every slot
            copy_bytes(exec, values, *Executor::create_cpu(), total.data(), total.size() * sizeof(double));
        }
        void exchange(const Executor&, std::span<const ExchangeMessage>, std::span<const ExchangeMessage>) const override
        {
            throw std::logic_error("ThreadRanks: no exchange (the test's blocks are uncoupled)");
        }

    private:
        ThreadRanks& ranks_;
        int rank_;
    };

private:
    int size_;
    std::barrier<> sync_;
    std::vector<std::vector<double>> slots_;
};

/// diag(a, b) as one CSR matrix (host arrays in, exec out).
template <typename V>
Csr<V> block_diagonal(const ExecPtr& exec, const Csr<V>& a, const Csr<V>& b)
{
    std::vector<index_type> ptr = a.row_ptr.to_host(), col = a.col_idx.to_host();
    std::vector<V> val = a.values.to_host();
    const std::vector<index_type> bp = b.row_ptr.to_host(), bc = b.col_idx.to_host();
    const std::vector<V> bv = b.values.to_host();
    for (std::size_t i = 1; i < bp.size(); ++i) ptr.push_back(bp[i] + ptr[a.rows]);
    for (index_type c : bc) col.push_back(c + a.rows);
    val.insert(val.end(), bv.begin(), bv.end());
    const index_type n = a.rows + b.rows;
    return Csr<V>{n, n, Array<index_type>::from_host(exec, ptr), Array<index_type>::from_host(exec, col),
                  Array<V>::from_host(exec, val)};
}

/// Every method, variant and preconditioner path: the split reductions of a communicator
/// that reduces give the fused solve exactly (same iterations, same bits of x and history).
template <typename V>
void check_split_reductions_change_nothing(const ExecPtr& exec, unsigned seed)
{
    const auto b = Array<V>::from_host(exec, random_vector<V>(600, seed));
    for (KrylovMethod method : {KrylovMethod::cg, KrylovMethod::bicgstab}) {
        // CG on an SPD matrix, BiCGSTAB on a non-symmetric one.
        const bool cg = method == KrylovMethod::cg;
        // csr-scalar: one kernel every time (csr's run-time tuner would change its kernel, and
        // so the SpMV's rounding, between the two solves).
        const auto built =
            build_format<V>("csr-scalar", grid_matrix<V>(exec, 30, 20, cg ? 0 : 0.6, cg ? 0 : -0.4, 0.02), {});
        const LinearOperator<V>& a = *built.op;
        for (KrylovVariant variant : {KrylovVariant::merged, KrylovVariant::reference, KrylovVariant::single_reduction})
            for (TestPreconditioner pre : {TestPreconditioner::none, TestPreconditioner::jacobi,
                                           TestPreconditioner::opaque_jacobi}) {
                if (variant == KrylovVariant::single_reduction && !cg) continue;
                SCOPED_TRACE(fmt::format("{} {} {}", method_name(method), variant_name(variant),
                                         test_preconditioner_name(pre)));
                SolveOptions options;
                options.tolerance = sizeof(V) == 8 ? 1e-9 : 1e-5;
                options.max_iterations = 5000;
                options.graph = GraphMode::off;
                const auto m = make_test_preconditioner(pre, a);
                const auto run = [&](const Communicator& comm) {
                    Array<V> x(exec, b.size());
                    fill(x, V(0));
                    const SolveResult result = solve(method, variant, a, b, x, options, m.get(), comm);
                    return std::make_pair(result, x.to_host());
                };
                const auto [fused, x_fused] = run(serial_communicator());
                const LoopbackCommunicator loopback;
                const auto [split, x_split] = run(loopback);
                ASSERT_TRUE(fused.converged()) << fused.message;
                EXPECT_EQ(split.iterations, fused.iterations);
                EXPECT_EQ(split.status, fused.status);
                EXPECT_EQ(x_split, x_fused);
                EXPECT_EQ(split.residual_history, fused.residual_history);
                // merged: one all-reduce per fused reduction; reference: one per dot and norm;
                // single reduction: one per iteration and the start's, whatever the
                // preconditioner (beside solve's two sums over b and x0 before it starts); on
                // the GPU also one per iteration queued past the stop (at most two batches).
                if (variant == KrylovVariant::single_reduction) {
                    const int before = 2 + 1;
                    EXPECT_GE(loopback.calls, fused.iterations + before);
                    EXPECT_LE(loopback.calls, fused.iterations + before + (exec->is_cuda() ? 2 * options.check_every : 0));
                    continue;
                }
                const int per_iteration = method == KrylovMethod::cg ? 2 + (pre == TestPreconditioner::opaque_jacobi &&
                                                                            variant == KrylovVariant::merged)
                                                                     : 3;
                EXPECT_GE(loopback.calls, per_iteration * fused.iterations);
            }
    }
}

/// Two ranks, each holding one of two uncoupled blocks, solve as one rank solves the whole
/// block-diagonal system: the same iterations (CG +-1, BiCGSTAB within a tenth: the sums are
/// grouped differently) and the same solution to the tolerance's reach.
template <typename V>
void check_two_ranks_solve_as_one(const ExecPtr& exec, unsigned seed)
{
    const std::vector<V> b0 = random_vector<V>(480, seed + 2);
    const std::vector<V> b1 = random_vector<V>(408, seed + 3);
    std::vector<V> b_all = b0;
    b_all.insert(b_all.end(), b1.begin(), b1.end());
    for (KrylovMethod method : {KrylovMethod::cg, KrylovMethod::bicgstab}) {
        // CG on SPD blocks, BiCGSTAB on non-symmetric ones (the scaling of D A D varies by seed).
        const bool cg = method == KrylovMethod::cg;
        const Csr<V> a0 = grid_matrix<V>(exec, 24, 20, cg ? 0 : 0.5, cg ? 0 : 0.3, 0.01, 0.3, seed);
        const Csr<V> a1 = grid_matrix<V>(exec, 24, 17, cg ? 0 : 0.5, cg ? 0 : 0.3, 0.01, 0.3, seed + 1);
        const auto whole = build_format<V>("csr", block_diagonal(exec, a0, a1), {});
        for (KrylovVariant variant : {KrylovVariant::merged, KrylovVariant::reference, KrylovVariant::single_reduction})
            for (TestPreconditioner pre : {TestPreconditioner::jacobi, TestPreconditioner::opaque_jacobi}) {
                if (variant == KrylovVariant::single_reduction && !cg) continue;
                SCOPED_TRACE(fmt::format("{} {} {}", method_name(method), variant_name(variant),
                                         test_preconditioner_name(pre)));
                SolveOptions options;
                options.tolerance = 1e-10;
                options.max_iterations = 5000;
                options.graph = GraphMode::off;
                const auto solve_block = [&](const LinearOperator<V>& a, const std::vector<V>& rhs,
                                             const Communicator& comm, const ExecPtr& on) {
                    const auto m = make_test_preconditioner(pre, a);
                    const auto b = Array<V>::from_host(on, rhs);
                    Array<V> x(on, rhs.size());
                    fill(x, V(0));
                    const SolveResult result = solve(method, variant, a, b, x, options, m.get(), comm);
                    return std::make_pair(result, x.to_host());
                };
                const auto [one, x_one] = solve_block(*whole.op, b_all, serial_communicator(), exec);
                ASSERT_TRUE(one.converged()) << one.message;
                ThreadRanks ranks(2);
                std::vector<std::pair<SolveResult, std::vector<V>>> parts(2);
                std::vector<std::string> errors(2);
                const auto rank_main = [&](int r) {
                    try {
                        // Each rank drives its own executor of the same backend.
                        const ExecPtr own = exec->is_cuda() ? Executor::create_cuda(exec->device_id())
                                                            : Executor::create_cpu();
                        const Csr<V>& block = r == 0 ? a0 : a1;
                        Csr<V> local{block.rows, block.cols, block.row_ptr.clone_to(own),
                                     block.col_idx.clone_to(own), block.values.clone_to(own)};
                        const auto built = build_format<V>("csr", std::move(local), {});
                        const ThreadRanks::Rank comm(ranks, r);
                        parts[r] = solve_block(*built.op, r == 0 ? b0 : b1, comm, own);
                    } catch (const std::exception& e) {
                        errors[r] = e.what();
                    }
                };
                std::thread second(rank_main, 1);
                rank_main(0);
                second.join();
                ASSERT_EQ(errors[0], "");
                ASSERT_EQ(errors[1], "");
                for (const auto& [result, x] : parts) {
                    EXPECT_TRUE(result.converged()) << result.message;
                    // BiCGSTAB's residual is not monotone: a different grouping of the sums can
                    // move the step that first crosses the tolerance by a few iterations.
                    const int slack = cg ? 1 : std::max(2, one.iterations / 10);
                    EXPECT_LE(std::abs(result.iterations - one.iterations), slack)
                        << "one rank took " << one.iterations << " iterations";
                    EXPECT_EQ(result.residual_history.size(), std::size_t(result.iterations) + 1);
                }
                EXPECT_EQ(parts[0].first.iterations, parts[1].first.iterations) << "the ranks stopped apart";
                EXPECT_EQ(parts[0].first.residual_history, parts[1].first.residual_history);
                std::vector<V> x_two = parts[0].second;
                x_two.insert(x_two.end(), parts[1].second.begin(), parts[1].second.end());
                EXPECT_LT(relative_difference(x_two, x_one), 1e-8);
            }
    }
}

}  // namespace gpufem::test
