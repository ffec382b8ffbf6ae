#include "solver/study/study_state.hpp"

#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "solver/study/study_metrics.hpp"

namespace gpufem {

bool point_finished(const nlohmann::json& row)
{
    const std::string status = row.value("status", "");
    return status == point_done || status == point_not_converged;
}

std::string point_key(const StudyPoint& point)
{
    std::string key;
    for (const std::string& text : point.overrides) key += text + "\n";
    return key;
}

std::string base_case_fingerprint(const std::filesystem::path& base_case, const std::string& backend)
{
    std::ifstream in(base_case);
    std::stringstream text;
    text << in.rdbuf();
    return fmt::format("{:016x}", std::hash<std::string>{}(text.str() + "\nbackend=" + backend));
}

nlohmann::json read_study_json(const std::filesystem::path& file)
{
    std::ifstream in(file);
    if (!in) throw std::runtime_error(file.string() + ": cannot be read");
    try {
        nlohmann::json study = nlohmann::json::parse(in);
        if (!study.is_object() || !study.contains("points") || !study["points"].is_array())
            throw std::runtime_error("no list of points");
        return study;
    } catch (const std::exception& e) {
        throw std::runtime_error(file.string() + ": not a study record (" + e.what() + "); remove it to start again");
    }
}

std::map<std::string, nlohmann::json> finished_rows(const std::filesystem::path& folder, const std::string& fingerprint)
{
    std::map<std::string, nlohmann::json> rows;
    const std::filesystem::path file = folder / study_json_file;
    if (!std::filesystem::exists(file)) return rows;
    const nlohmann::json study = read_study_json(file);
    if (study.value("base_case_fingerprint", "") != fingerprint) return rows;
    for (const nlohmann::json& row : study["points"])
        if (point_finished(row)) rows[row.value("key", "")] = row;
    return rows;
}

namespace {

/// A CSV field: quoted when it holds a comma or a quote.
std::string csv_field(const std::string& text)
{
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string out = "\"";
    for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

/// A number of a row's member (0 when absent).
double row_number(const nlohmann::json& row, const char* key)
{
    return row.contains(key) && row[key].is_number() ? row[key].get<double>() : 0.0;
}

}  // namespace

std::string study_csv(const nlohmann::json& study)
{
    std::string out = "index";
    for (const nlohmann::json& axis : study["axes"]) out += fmt::format(",{}", csv_field(axis["name"].get<std::string>()));
    out += ",status,unknowns,nnz,iterations";
    for (const StudyMetric& metric : study_metrics().entries()) out += "," + metric.name;
    out += ",folder,reason\n";
    for (const nlohmann::json& row : study["points"]) {
        out += std::to_string(row.value("index", 0));
        for (const nlohmann::json& axis : study["axes"])
            out += fmt::format(",{}", csv_field(row["labels"].value(axis["name"].get<std::string>(), "")));
        out += fmt::format(",{},{:.0f},{:.0f},{:.0f}", row.value("status", ""), row_number(row, "unknowns"),
                           row_number(row, "nnz"), row_number(row, "iterations"));
        for (const StudyMetric& metric : study_metrics().entries())
            out += fmt::format(",{:.6g}", row.contains("metrics") ? row["metrics"].value(metric.name, 0.0) : 0.0);
        out += fmt::format(",{},{}\n", csv_field(row.value("folder", "")), csv_field(row.value("reason", "")));
    }
    return out;
}

std::string utc_now()
{
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

}  // namespace gpufem
