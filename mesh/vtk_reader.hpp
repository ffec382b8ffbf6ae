#pragma once
// Reading point and cell fields back from .vtu and .pvtu files (results of earlier runs), via VTK.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace gpufem {

/// Points (3 coordinates each), cell centres and every scalar point and cell field of a .vtu
/// file, or of all the pieces of a .pvtu (a run across ranks: the points its pieces share
/// appear once per piece, every cell once).
struct VtuPointData {
    std::vector<double> points;
    std::vector<double> cell_centres;  ///< 3 coordinates per cell: the mean of its points
    std::map<std::string, std::vector<double>> fields;       ///< point data (one component)
    std::map<std::string, std::vector<double>> cell_fields;  ///< cell data (one component)
    std::size_t cells = 0;
    std::size_t num_points() const { return points.size() / 3; }
};

/// Reads a .vtu file, or a .pvtu and its pieces; throws std::runtime_error naming the file if
/// it (or a piece) is missing or unreadable.
VtuPointData read_vtu_point_data(const std::filesystem::path& path);

}  // namespace gpufem
