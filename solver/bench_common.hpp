#pragma once
// Shared by the benchmarks: medians and the device's copy bandwidth measured in the run.
#include <vector>

#include "linalg/executor.hpp"

namespace gpufem {

/// The median (upper median for an even count; 0 for none).
double median(std::vector<double> values);

/// Copy bandwidth (bytes read + written per second), median of 20 copies of a buffer far
/// larger than the caches (1 GiB on CUDA, 256 MiB on the CPU).
double measure_copy_bandwidth(const ExecPtr& exec);

}  // namespace gpufem
