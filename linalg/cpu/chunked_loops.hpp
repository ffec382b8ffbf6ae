#pragma once
// Loops of the CPU kernels over [0, n) in fixed chunks handed out to the OpenMP threads on
// demand. Two properties the CPU backend needs on a shared machine:
// - a thread slowed down by another process takes fewer chunks, so the loop does not wait for
//   it the way a static partition does (2 threads stay faster than 1 beside a busy process);
// - a sum is formed per chunk and the chunk sums are added in chunk order: the partition does
//   not depend on the thread count, so results are bit-identical for 1 and N threads.
#include <array>
#include <cstddef>
#include <vector>

namespace gpufem::kernels::cpu {

/// Entries per chunk: large enough that handing out a chunk costs little, small enough that
/// a few hundred thousand entries still make enough chunks to balance.
inline constexpr long long loop_chunk = 4096;

/// Calls body(i) for every i in [0, n), chunks handed out dynamically.
template <typename Body>
void chunked_for(long long n, Body&& body)
{
    const long long chunks = (n + loop_chunk - 1) / loop_chunk;
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (long long c = 0; c < chunks; ++c) {
        const long long end = c * loop_chunk + loop_chunk < n ? c * loop_chunk + loop_chunk : n;
        for (long long i = c * loop_chunk; i < end; ++i) body(i);
    }
}

/// K sums over [0, n): body(i, sums) adds entry i's terms to sums[0..K). Deterministic: the
/// same chunks, each summed in index order, added in chunk order, for any thread count.
template <int K, typename Body>
std::array<double, K> chunked_sums(long long n, Body&& body)
{
    const long long chunks = (n + loop_chunk - 1) / loop_chunk;
    std::vector<std::array<double, K>> partial(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (long long c = 0; c < chunks; ++c) {
        std::array<double, K> sums{};
        const long long end = c * loop_chunk + loop_chunk < n ? c * loop_chunk + loop_chunk : n;
        for (long long i = c * loop_chunk; i < end; ++i) body(i, sums);
        partial[static_cast<std::size_t>(c)] = sums;
    }
    std::array<double, K> total{};
    for (const auto& sums : partial)
        for (int k = 0; k < K; ++k) total[k] += sums[k];
    return total;
}

}  // namespace gpufem::kernels::cpu
