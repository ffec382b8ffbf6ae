#include "solver/study/study_spec.hpp"

#include <algorithm>
#include <array>
#include <fstream>

#include <yaml-cpp/yaml.h>

#include "solver/case/case_file.hpp"
#include "solver/case/case_reader.hpp"

namespace gpufem {
namespace {

/// Reads a study's YAML, every error naming the file, the line and the key.
class StudyReader {
public:
    explicit StudyReader(std::filesystem::path file) : file_(std::move(file)) {}

    /// Throws the CaseError for a problem with the value at key.
    [[noreturn]] void fail(const YAML::Node& node, const std::string& key, const std::string& problem) const
    {
        const int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
        throw CaseError(file_.string() + (line > 0 ? ":" + std::to_string(line) : "") + ": " +
                        (key.empty() ? "" : key + ": ") + problem);
    }
    /// A scalar's text.
    std::string scalar(const YAML::Node& node, const std::string& key) const
    {
        if (!node.IsScalar()) fail(node, key, "expected a single value");
        return node.Scalar();
    }
    /// A list of scalars (one scalar is a list of one).
    std::vector<std::string> scalars(const YAML::Node& node, const std::string& key) const
    {
        if (node.IsScalar()) return {node.Scalar()};
        if (!node.IsSequence() || node.size() == 0) fail(node, key, "expected a value or a non-empty list");
        std::vector<std::string> out;
        for (const YAML::Node& item : node) out.push_back(scalar(item, key));
        return out;
    }
    /// Checks that node is a map whose keys are all among allowed.
    void check_map(const YAML::Node& node, const std::string& key, std::span<const std::string_view> allowed) const
    {
        if (!node.IsMap()) fail(node, key, "expected a map");
        for (const auto& entry : node) {
            const std::string name = entry.first.Scalar();
            if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
                fail(entry.first, key.empty() ? name : key + "." + name,
                     "unknown key (known: " + join_names(allowed) + ")");
        }
    }
    const std::filesystem::path& file() const { return file_; }

private:
    std::filesystem::path file_;
};

/// "key=value" with the value written as YAML (flow style), as --set takes it.
std::string override_text(const std::string& key, const YAML::Node& value)
{
    YAML::Emitter out;
    out << YAML::Flow << value;
    return key + "=" + out.c_str();
}

/// The case keys of a map ({key: value, ...}) as overrides, the key `label` left out.
std::vector<std::string> map_overrides(const StudyReader& reader, const YAML::Node& map, const std::string& key)
{
    std::vector<std::string> out;
    for (const auto& entry : map) {
        const std::string name = reader.scalar(entry.first, key);
        if (name != "label") out.push_back(override_text(name, entry.second));
    }
    if (out.empty()) reader.fail(map, key, "sets no case key");
    return out;
}

/// One value of an axis: a scalar sets the axis's key; a map sets its keys, labelled by
/// `label` (default: its settings joined).
StudyAxisValue read_axis_value(const StudyReader& reader, const std::string& axis, const YAML::Node& node)
{
    const std::string key = "axes." + axis;
    if (node.IsScalar()) return {node.Scalar(), {override_text(axis, node)}};
    if (!node.IsMap()) reader.fail(node, key, "each value is a value of the case key or a map of case keys");
    StudyAxisValue value{"", map_overrides(reader, node, key)};
    if (node["label"]) value.label = reader.scalar(node["label"], key + ".label");
    for (const std::string& text : value.overrides)
        if (!node["label"]) value.label += (value.label.empty() ? "" : ",") + text;
    return value;
}

/// The axes, in written order, each with distinct labels.
std::vector<StudyAxis> read_axes(const StudyReader& reader, const YAML::Node& node)
{
    if (!node || !node.IsMap() || node.size() == 0) reader.fail(node, "axes", "expected a map of at least one axis");
    std::vector<StudyAxis> axes;
    for (const auto& entry : node) {
        StudyAxis axis{reader.scalar(entry.first, "axes"), {}, entry.first.Mark().line + 1};
        const std::string key = "axes." + axis.name;
        if (!entry.second.IsSequence() || entry.second.size() == 0) reader.fail(entry.second, key, "expected a non-empty list");
        for (const YAML::Node& item : entry.second) {
            StudyAxisValue value = read_axis_value(reader, axis.name, item);
            for (const StudyAxisValue& other : axis.values)
                if (other.label == value.label) reader.fail(item, key, "the label '" + value.label + "' is given twice");
            axis.values.push_back(std::move(value));
        }
        axes.push_back(std::move(axis));
    }
    return axes;
}

}  // namespace

namespace {

/// The axis named name, or nullptr.
const StudyAxis* find_axis(const std::vector<StudyAxis>& axes, const std::string& name)
{
    for (const StudyAxis& axis : axes)
        if (axis.name == name) return &axis;
    return nullptr;
}

/// A metric named at key.
const StudyMetric* read_metric(const StudyReader& reader, const YAML::Node& node, const std::string& key)
{
    const std::string name = reader.scalar(node, key);
    if (const StudyMetric* metric = study_metrics().find(name)) return metric;
    reader.fail(node, key, "unknown metric '" + name + "' (known: " + study_metrics().joined_names() + ")");
}

/// One of paper.values: {at: {axis: label}, value: N, metric: NAME, note: TEXT}.
PaperValue read_paper_value(const StudyReader& reader, const YAML::Node& node, const StudySpec& spec)
{
    static constexpr std::array<std::string_view, 4> keys{"at", "value", "metric", "note"};
    reader.check_map(node, "paper.values", keys);
    PaperValue value{{}, spec.metric, 0, ""};
    if (!node["value"]) reader.fail(node, "paper.values", "each entry needs a value");
    try {
        value.value = node["value"].as<double>();
    } catch (const YAML::Exception&) {
        reader.fail(node["value"], "paper.values.value", "expected a number");
    }
    if (node["metric"]) value.metric = read_metric(reader, node["metric"], "paper.values.metric");
    if (node["note"]) value.note = reader.scalar(node["note"], "paper.values.note");
    if (node["at"]) {
        if (!node["at"].IsMap()) reader.fail(node["at"], "paper.values.at", "expected a map of axis: label");
        for (const auto& entry : node["at"]) {
            const std::string axis = reader.scalar(entry.first, "paper.values.at");
            if (!find_axis(spec.axes, axis)) reader.fail(entry.first, "paper.values.at." + axis, "not an axis of the study");
            value.at[axis] = reader.scalar(entry.second, "paper.values.at." + axis);
        }
    }
    return value;
}

/// paper: {source, gpu, notes, values}.
PaperSpec read_paper(const StudyReader& reader, const YAML::Node& node, const StudySpec& spec)
{
    static constexpr std::array<std::string_view, 4> keys{"source", "gpu", "notes", "values"};
    PaperSpec paper;
    if (!node) return paper;
    reader.check_map(node, "paper", keys);
    if (node["source"]) paper.source = reader.scalar(node["source"], "paper.source");
    if (node["gpu"]) paper.gpu = reader.scalar(node["gpu"], "paper.gpu");
    if (node["notes"]) paper.notes = reader.scalars(node["notes"], "paper.notes");
    if (node["values"]) {
        if (!node["values"].IsSequence()) reader.fail(node["values"], "paper.values", "expected a list");
        for (const YAML::Node& item : node["values"]) paper.values.push_back(read_paper_value(reader, item, spec));
    }
    return paper;
}

/// choose: and x:, checked against the axes (defaults: the last axis is chosen, x is the first
/// other one).
void read_choice_and_x(const StudyReader& reader, const YAML::Node& root, StudySpec& spec)
{
    spec.choose = root["choose"] ? reader.scalars(root["choose"], "choose") : std::vector{spec.axes.back().name};
    for (const std::string& name : spec.choose)
        if (!find_axis(spec.axes, name)) reader.fail(root["choose"], "choose", "'" + name + "' is not an axis of the study");
    for (const StudyAxis& axis : spec.axes)
        if (spec.x.empty() && !is_choice_axis(spec, axis.name)) spec.x = axis.name;
    if (root["x"]) {
        spec.x = reader.scalar(root["x"], "x");
        if (!find_axis(spec.axes, spec.x) || is_choice_axis(spec, spec.x))
            reader.fail(root["x"], "x", "'" + spec.x + "' is not an axis of the study that is not chosen");
    }
}

/// The root map read into a spec (the file's name and the command line's keys set by the caller).
void read_root(const StudyReader& reader, const YAML::Node& root, StudySpec& spec)
{
    static constexpr std::array<std::string_view, 9> keys{"title", "case", "set", "axes", "choose", "metric", "also", "x", "paper"};
    reader.check_map(root, "", keys);
    if (root["title"]) spec.title = reader.scalar(root["title"], "title");
    if (!root["case"]) reader.fail(root, "case", "missing: the base case file the points start from");
    spec.base_case = std::filesystem::absolute(reader.file().parent_path() / reader.scalar(root["case"], "case"));
    if (!std::filesystem::is_regular_file(spec.base_case))
        reader.fail(root["case"], "case", "no such file: " + spec.base_case.string());
    if (root["set"]) {
        if (!root["set"].IsMap()) reader.fail(root["set"], "set", "expected a map of case keys");
        spec.overrides = map_overrides(reader, root["set"], "set");
    }
    spec.axes = read_axes(reader, root["axes"]);
    spec.metric = root["metric"] ? read_metric(reader, root["metric"], "metric") : &study_metrics().entries().front();
    if (root["also"])
        for (const std::string& name : reader.scalars(root["also"], "also")) {
            spec.also.push_back(study_metrics().find(name));
            if (!spec.also.back())
                reader.fail(root["also"], "also", "unknown metric '" + name + "' (known: " + study_metrics().joined_names() + ")");
        }
    read_choice_and_x(reader, root, spec);
    spec.paper = read_paper(reader, root["paper"], spec);
}

}  // namespace

StudySpec parse_study_file(const std::filesystem::path& file, const std::vector<std::string>& cli_overrides)
{
    if (!std::filesystem::is_regular_file(file)) throw CaseError(file.string() + ": no such study file");
    const StudyReader reader(file);
    YAML::Node root;
    try {
        root = YAML::LoadFile(file.string());
    } catch (const YAML::Exception& e) {
        throw CaseError(file.string() + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
    }
    StudySpec spec;
    spec.file = std::filesystem::absolute(file);
    spec.name = file.stem().string();
    spec.title = spec.name;
    read_root(reader, root, spec);
    spec.cli_overrides = cli_overrides;
    return spec;
}

bool is_choice_axis(const StudySpec& spec, const std::string& axis)
{
    return std::find(spec.choose.begin(), spec.choose.end(), axis) != spec.choose.end();
}

}  // namespace gpufem
