#pragma once
// Shared by the benchmarks: medians, the device's copy bandwidth measured in the run, the
// x vectors of timed SpMVs, and their files.
#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "linalg/array.hpp"
#include "linalg/executor.hpp"
#include "solver/case/case_file.hpp"

namespace gpufem {

/// The sum of values (a timer's intervals).
double total(const std::vector<double>& values);

/// The median (upper median for an even count; 0 for none).
double median(std::vector<double> values);

/// Seconds per iteration from two timed solves of long_its > short_its iterations: the
/// marginal cost (T(long) - T(short)) / (long - short), which leaves out a solve's fixed costs.
/// Where timing noise swamps that difference (it is not positive, or under a quarter of the
/// long solve's mean iteration, as on oversubscribed CPU ranks), the long solve's mean
/// iteration, fixed costs included, so the figure is never negative or vanishing.
double seconds_per_iteration(double long_seconds, int long_its, double short_seconds, int short_its);

/// Copy bandwidth (bytes read + written per second), median of 20 copies of a buffer far
/// larger than the caches (1 GiB on CUDA, 256 MiB on the CPU).
double measure_copy_bandwidth(const ExecPtr& exec);

/// Writes a benchmark's text file `name` into the case's output folder (output_dir, or the
/// default beside the case), staged and renamed into place.
void write_bench_file(const CaseSpec& spec, const std::filesystem::path& output_dir, const std::string& name,
                      const std::string& text);

/// The x vectors of timed SpMVs: enough copies of random values in [-1, 1] (fixed seed, the
/// same inputs for every format and parameter set) to cycle through 256 MB, so x is not
/// served from cache.
template <typename V>
std::vector<Array<V>> bench_inputs(const ExecPtr& exec, std::size_t n)
{
    std::mt19937 rng(12345);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    const std::size_t copies =
        std::clamp<std::size_t>((std::size_t(256) << 20) / std::max<std::size_t>(1, n * sizeof(V)), 2, 64);
    std::vector<Array<V>> xs;
    for (std::size_t c = 0; c < copies; ++c) {
        std::vector<V> h(n);
        for (auto& v : h) v = static_cast<V>(dist(rng));
        xs.push_back(Array<V>::from_host(exec, h));
    }
    return xs;
}

}  // namespace gpufem
