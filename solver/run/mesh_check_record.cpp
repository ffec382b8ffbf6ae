#include "solver/run/mesh_check_record.hpp"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <unistd.h>

namespace gpufem {
namespace {

using nlohmann::json;

/// The record format; a record of another is ignored (and replaced by the next write).
constexpr int check_record_format = 2;

/// The most verdicts a record keeps (the oldest go first): one per refinement, degree and
/// quality bounds a case was run with.
constexpr std::size_t max_verdicts = 16;

/// The record's path beside the cache file.
std::string record_path(const std::string& cache_file) { return cache_file + ".checks"; }

/// What a verdict must match: the cache file's size, the final mesh's counts, the refinement
/// and degree that made it from the cached mesh, and the quality bounds.
json verdict_identity(const std::string& cache_file, long long cells, long long nodes, const CheckedMeshSettings& settings)
{
    std::error_code error;
    const auto bytes = std::filesystem::file_size(cache_file, error);
    return {{"cache_bytes", error ? 0 : bytes}, {"cells", cells},            {"nodes", nodes},
            {"refine", settings.refine},        {"degree", settings.degree}, {"min_quality", settings.limits.refuse},
            {"warn_quality", settings.limits.warn}};
}

/// The identity of `mesh`'s verdict.
json verdict_identity(const std::string& cache_file, const Mesh& mesh, const CheckedMeshSettings& settings)
{
    return verdict_identity(cache_file, mesh.num_cells(), mesh.num_nodes(), settings);
}

/// The verdicts of the record beside `cache_file` (none when it is missing, unreadable or of
/// another format).
json read_verdicts(const std::string& cache_file)
{
    std::ifstream in(record_path(cache_file));
    if (!in) return json::array();
    try {
        const json record = json::parse(in);
        if (record.at("format") != check_record_format || !record.at("verdicts").is_array()) return json::array();
        return record.at("verdicts");
    } catch (const json::exception&) {
        return json::array();
    }
}

/// The verdict `entry` of a record.
MeshValidation verdict_of(const json& entry)
{
    MeshValidation checked;
    checked.quality.worst = entry.at("worst").get<double>();
    checked.quality.worst_cell = entry.at("worst_cell").get<long long>();
    checked.quality.poor = entry.at("poor").get<long long>();
    checked.conformity.checked = entry.at("conformity_checked").get<bool>();
    checked.conformity.interior_faces = entry.at("interior_faces").get<long long>();
    checked.conformity.boundary_faces = entry.at("boundary_faces").get<long long>();
    checked.parts = 1;
    checked.from_record = true;
    return checked;
}

/// The identity without the final mesh's counts.
json without_counts(json identity)
{
    identity.erase("cells");
    identity.erase("nodes");
    return identity;
}

/// The verdict beside `cache_file` of a mesh of one part with this identity (with_counts:
/// false, whatever the final mesh's counts), or nothing.
std::optional<json> find_verdict(const std::string& cache_file, const json& identity, bool with_counts)
{
    try {
        for (const json& entry : read_verdicts(cache_file)) {
            if (entry.at("parts").get<index_type>() != 1) continue;
            const json& found = entry.at("identity");
            if (with_counts ? found == identity : without_counts(found) == without_counts(identity)) return entry;
        }
    } catch (const json::exception&) {
    }
    return std::nullopt;
}

/// Writes `record` as the record beside `cache_file`: whole under another name, then renamed,
/// so that a reader never sees half a record.
bool write_record(const std::string& cache_file, const json& record)
{
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

}  // namespace

void remove_check_record(const std::string& cache_file)
{
    std::error_code error;
    std::filesystem::remove(record_path(cache_file), error);
}

std::optional<MeshValidation> read_check_record(const std::string& cache_file, const Mesh& mesh,
                                                const CheckedMeshSettings& settings)
{
    const std::optional<json> entry = find_verdict(cache_file, verdict_identity(cache_file, mesh, settings), true);
    return entry ? std::optional<MeshValidation>(verdict_of(*entry)) : std::nullopt;
}

bool has_check_record(const std::string& cache_file, const CheckedMeshSettings& settings)
{
    return find_verdict(cache_file, verdict_identity(cache_file, 0, 0, settings), false).has_value();
}

bool write_check_record(const std::string& cache_file, const Mesh& mesh, const CheckedMeshSettings& settings,
                        const MeshValidation& checked)
{
    if (checked.parts != 1) return false;
    const json identity = verdict_identity(cache_file, mesh, settings);
    json verdicts = json::array();
    for (const json& entry : read_verdicts(cache_file))  // the other settings' verdicts stay
        if (!entry.contains("identity") || entry["identity"] != identity) verdicts.push_back(entry);
    verdicts.push_back({{"identity", identity},
                        {"worst", checked.quality.worst},
                        {"worst_cell", checked.quality.worst_cell},
                        {"poor", checked.quality.poor},
                        {"conformity_checked", checked.conformity.checked},
                        {"interior_faces", checked.conformity.interior_faces},
                        {"boundary_faces", checked.conformity.boundary_faces},
                        {"parts", checked.parts}});
    if (verdicts.size() > max_verdicts) verdicts.erase(verdicts.begin(), verdicts.end() - max_verdicts);
    return write_record(cache_file, {{"format", check_record_format}, {"verdicts", verdicts}});
}

}  // namespace gpufem
