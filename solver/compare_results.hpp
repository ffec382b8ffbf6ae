#pragma once
// Comparing the same field of two result files (e.g. the CPU and the CUDA backend's runs).
#include <filesystem>
#include <string>

namespace gpufem {

/// Differences of one point field between two results on the same mesh.
struct FieldComparison {
    std::size_t points = 0;
    double max_abs = 0;       ///< max_i |a_i - b_i|
    double max_rel = 0;       ///< max_abs / max_i |a_i|
    double rms = 0;           ///< sqrt(mean (a_i - b_i)^2)
    double max_point_offset = 0;  ///< max distance between corresponding points
};

/// Reads both .vtu files and compares `field`; throws if a file or the field is missing or
/// the meshes differ in size or point positions (beyond 1e-9 relative).
FieldComparison compare_results(const std::filesystem::path& a, const std::filesystem::path& b,
                                const std::string& field);

}  // namespace gpufem
