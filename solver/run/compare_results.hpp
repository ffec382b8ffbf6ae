#pragma once
// Comparing the same field of two result files (e.g. the CPU and the CUDA backend's runs, or a
// run across ranks and one process).
#include <filesystem>
#include <string>

namespace gpufem {

/// Differences of one field (point data, or cell data such as finite volumes' u) between
/// two results on the same mesh.
struct FieldComparison {
    bool on_cells = false;  ///< the field is cell data (no point field of that name)
    std::size_t points = 0;  ///< the values compared: points, or cells when on_cells
    double max_abs = 0;       ///< max_i |a_i - b_i|
    double max_rel = 0;       ///< max_abs / max_i |a_i|
    double rms = 0;           ///< sqrt(mean (a_i - b_i)^2)
    /// The values were paired by position (the points, or cell centres, differ in number or
    /// order: a run across ranks' .pvtu against one process's .vtu, say).
    bool by_position = false;
    /// Points where one value is NaN or infinite and the other is not (or infinities of
    /// different signs): a difference, so max_abs and max_rel are infinite when any exist.
    std::size_t non_finite_mismatches = 0;
    std::size_t first_non_finite_mismatch = 0;  ///< such a point (cell) of the first result, in its numbering
};

/// Reads both results (.vtu, or .pvtu with its pieces) and compares `field`, a point field or
/// else a cell field (NaN against NaN and equal infinities count as equal, NaN or an infinity
/// against anything else as an infinite difference). Values are paired by index when the
/// points (cell centres) agree in order, else by position (within 1e-9 times the largest
/// coordinate or 1, whichever is larger):
/// each point of one result against the other's at the same place, both ways, so the points a
/// .pvtu's pieces share count once per piece. Throws if a file or the field is missing or the
/// meshes differ in cells or in the places of points or cells.
FieldComparison compare_results(const std::filesystem::path& a, const std::filesystem::path& b,
                                const std::string& field);

}  // namespace gpufem
