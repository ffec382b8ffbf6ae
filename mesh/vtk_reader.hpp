#pragma once
// Reading point fields back from .vtu files (results of earlier runs), via VTK.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace gpufem {

/// Points (3 coordinates each) and every scalar point field of a .vtu file.
struct VtuPointData {
    std::vector<double> points;
    std::map<std::string, std::vector<double>> fields;       ///< point data (one component)
    std::map<std::string, std::vector<double>> cell_fields;  ///< cell data (one component)
    std::size_t cells = 0;
    std::size_t num_points() const { return points.size() / 3; }
};

/// Reads a .vtu file; throws std::runtime_error naming the file if it is missing or unreadable.
VtuPointData read_vtu_point_data(const std::filesystem::path& path);

}  // namespace gpufem
