#include "solver/run/mesh_check_record.hpp"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <unistd.h>

namespace gpufem {
namespace {

using nlohmann::json;

/// The record format; a record of another is ignored.
constexpr int check_record_format = 1;

/// The record's path beside the cache file.
std::string record_path(const std::string& cache_file) { return cache_file + ".checks"; }

/// What a record must match: the format, the cache file's size, the mesh's counts and the
/// quality bounds.
json record_identity(const std::string& cache_file, const Mesh& mesh, const QualityLimits& limits)
{
    std::error_code error;
    const auto bytes = std::filesystem::file_size(cache_file, error);
    return {{"format", check_record_format}, {"cache_bytes", error ? 0 : bytes}, {"cells", mesh.num_cells()},
            {"nodes", mesh.num_nodes()}, {"min_quality", limits.refuse}, {"warn_quality", limits.warn}};
}

}  // namespace

void remove_check_record(const std::string& cache_file)
{
    std::error_code error;
    std::filesystem::remove(record_path(cache_file), error);
}

std::optional<MeshValidation> read_check_record(const std::string& cache_file, const Mesh& mesh,
                                                const QualityLimits& limits)
{
    std::ifstream in(record_path(cache_file));
    if (!in) return std::nullopt;
    try {
        const json record = json::parse(in);
        if (record.at("identity") != record_identity(cache_file, mesh, limits) || record.at("parts").get<index_type>() != 1)
            return std::nullopt;
        MeshValidation checked;
        checked.quality.worst = record.at("worst").get<double>();
        checked.quality.worst_cell = record.at("worst_cell").get<long long>();
        checked.quality.poor = record.at("poor").get<long long>();
        checked.conformity.checked = record.at("conformity_checked").get<bool>();
        checked.conformity.interior_faces = record.at("interior_faces").get<long long>();
        checked.conformity.boundary_faces = record.at("boundary_faces").get<long long>();
        checked.parts = 1;
        checked.from_record = true;
        return checked;
    } catch (const json::exception&) {
        return std::nullopt;
    }
}

bool write_check_record(const std::string& cache_file, const Mesh& mesh, const QualityLimits& limits,
                        const MeshValidation& checked)
{
    if (checked.parts != 1) return false;
    const json record = {{"identity", record_identity(cache_file, mesh, limits)},
                         {"worst", checked.quality.worst},
                         {"worst_cell", checked.quality.worst_cell},
                         {"poor", checked.quality.poor},
                         {"conformity_checked", checked.conformity.checked},
                         {"interior_faces", checked.conformity.interior_faces},
                         {"boundary_faces", checked.conformity.boundary_faces},
                         {"parts", checked.parts}};
    // Written whole under another name, then renamed: a reader never sees half a record.
    const std::string path = record_path(cache_file),
                      partial = path + ".partial." + std::to_string(static_cast<long long>(::getpid()));
    {
        std::ofstream out(partial, std::ios::trunc);
        out << record.dump();
        if (!out) return false;
    }
    std::error_code error;
    std::filesystem::rename(partial, path, error);
    if (error) std::filesystem::remove(partial, error);
    return !error;
}

}  // namespace gpufem
