#pragma once
// The format lists of the benchmarks: names resolved against the format registry, each
// expanded into its variants (e.g. lma-all: both scatters and both storages).
#include <string>
#include <vector>

#include "linalg/executor.hpp"
#include "assembly/operator_levels.hpp"

namespace gpufem {

/// One entry of a benchmark's format list.
struct BenchFormat {
    OperatorChoice choice;                ///< the format or operator level
    std::string label;                    ///< as printed ("sellp", "lma-colour-sym:twin")
    FormatOptions options;                ///< the case's options with the variant's applied
};

/// The benchmark entries for names: a registry name (a format with variants gives its plain
/// variant), or <name><suffix> for a format with variants (lma-all, lma-colour:tile). Empty
/// names: every format backend has, each with its default benchmark variants. Throws
/// std::invalid_argument naming an unknown name or a bad suffix.
std::vector<BenchFormat> bench_formats(const std::vector<std::string>& names,
                                       const FormatOptions& base, Backend backend);

}  // namespace gpufem
