#include "solver/case/case_coefficients.hpp"

#include <algorithm>
#include <string_view>

#include "assembly/expression.hpp"

namespace gpufem {
namespace {

using nlohmann::json;

constexpr std::string_view tensor_keys[] = {"xx", "xy", "xz", "yy", "yz", "zz"};

/// Whether value is a map whose keys are all tensor components (xx, xy, ...).
bool is_tensor_map(const CaseValue& value)
{
    if (!value.node.IsMap() || value.node.size() == 0) return false;
    for (const auto& entry : value.node) {
        const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
        if (std::find(std::begin(tensor_keys), std::end(tensor_keys), key) == std::end(tensor_keys)) return false;
    }
    return true;
}

/// A tensor map's six components in the order xx xy xz yy yz zz ("" where not given).
std::vector<std::string> read_tensor(const CaseReader& reader, const CaseValue& value)
{
    std::vector<std::string> components(6);
    for (const CaseValue& entry : reader.entries(value, tensor_keys)) {
        const auto at = std::find(std::begin(tensor_keys), std::end(tensor_keys), entry.key) - std::begin(tensor_keys);
        components[static_cast<std::size_t>(at)] = reader.to_expression(entry);
    }
    if (components[0].empty() || components[3].empty())
        reader.fail(value, "a tensor kappa needs xx and yy (and zz in 3D); xy, xz, yz default to 0");
    return components;
}

/// A tensor's JSON: its given components.
json tensor_json(const std::vector<std::string>& components)
{
    json out = json::object();
    for (std::size_t k = 0; k < components.size(); ++k)
        if (!components[k].empty()) out[std::string(tensor_keys[k])] = components[k];
    return out;
}

constexpr std::string_view cell_data_keys[] = {"cell_data", "file"};

/// Whether value is a map naming cell data: {cell_data: NAME} or {cell_data: NAME, file: PATH}.
bool is_cell_data_map(const CaseValue& value)
{
    return value.node.IsMap() && value.node["cell_data"].IsDefined();
}

/// A cell data map: the field's name, and the .vtu holding it ("" = the mesh file's own
/// $ElementData; the path as written, resolved against the case's folder by the case reader).
CellDataRef read_cell_data(const CaseReader& reader, const CaseValue& value)
{
    CellDataRef data;
    for (const CaseValue& entry : reader.entries(value, cell_data_keys)) {
        if (entry.key == "cell_data") data.field = reader.to_scalar(entry, "the name of a per-cell field");
        else data.file = reader.to_scalar(entry, "a .vtu file on the same mesh");
        if (entry.key == "file" && !data.file.ends_with(".vtu"))
            reader.fail(entry, "expected a .vtu file (a cell array on the same mesh); the mesh file's own "
                               "$ElementData needs no file");
    }
    if (data.field.empty()) reader.fail(value, "cell_data: expected the name of a per-cell field");
    return data;
}

/// Cell data's JSON: {cell_data: NAME} and its file when given.
json cell_data_json(const CellDataRef& data)
{
    json out = {{"cell_data", data.field}};
    if (!data.file.empty()) out["file"] = data.file;
    return out;
}

/// Fails unless a constant expression is > 0 (kappa) or >= 0 (c).
void check_sign(const CaseReader& reader, const CaseValue& value, const std::string& text, bool strictly, const char* name)
{
    const Expression expression(text);
    if (!expression.is_constant()) return;
    const double v = expression.evaluate(0, 0, 0);
    if (strictly ? !(v > 0) : !(v >= 0))
        reader.fail(value, std::string("expected ") + name + (strictly ? " > 0" : " >= 0") + ", got '" + text + "'");
}

/// A list of 2 or 3 numbers or expressions (a velocity).
std::vector<std::string> read_vector(const CaseReader& reader, const CaseValue& value)
{
    if (!value.node.IsSequence() || value.node.size() < 2 || value.node.size() > 3)
        reader.fail(value, "expected a list of 2 or 3 numbers or expressions (the velocity b: [bx, by] or [bx, by, bz])");
    std::vector<std::string> b;
    for (std::size_t i = 0; i < value.node.size(); ++i)
        b.push_back(reader.to_expression({value.path + "[" + std::to_string(i) + "]", value.key, value.node[i], value.mark}));
    return b;
}

}  // namespace

json read_kappa(const CaseReader& reader, const CaseValue& value, ProblemSpec& problem, std::vector<std::string>& kappas,
                std::size_t max_kappas)
{
    if (is_cell_data_map(value)) {
        problem.kappa_data = read_cell_data(reader, value);
        return cell_data_json(problem.kappa_data);
    }
    if (is_tensor_map(value)) {
        problem.kappa_tensor = read_tensor(reader, value);
        return tensor_json(problem.kappa_tensor);
    }
    if (value.node.IsMap()) {
        json out = json::object();
        for (const CaseValue& entry : reader.entries(value, {})) {
            RegionValue region{entry.key, {}, {}};
            if (is_cell_data_map(entry)) {
                region.data = read_cell_data(reader, entry);
                out[entry.key] = cell_data_json(region.data);
            } else if (is_tensor_map(entry)) {
                region.components = read_tensor(reader, entry);
                out[entry.key] = tensor_json(region.components);
            } else {
                region.components = {reader.to_expression(entry)};
                check_sign(reader, entry, region.components[0], true, "kappa");
                out[entry.key] = region.components[0];
            }
            problem.kappa_regions.push_back(std::move(region));
        }
        return out;
    }
    kappas = reader.to_expression_list(value, max_kappas);
    for (std::size_t i = 0; i < kappas.size(); ++i) {
        const Expression expression(kappas[i]);
        if (expression.is_constant() && !(expression.evaluate(0.0, 0.0, 0.0) > 0.0))
            reader.fail(value, "expected kappa > 0, got '" + kappas[i] + "'" +
                                   (kappas.size() > 1 ? " (entry " + std::to_string(i) + ")" : ""));
    }
    problem.kappa = kappas.front();
    return kappas.size() == 1 ? json(problem.kappa) : json(kappas);
}

json read_scalar_coefficient(const CaseReader& reader, const CaseValue& value, std::string& global,
                             std::vector<RegionValue>& regions, CellDataRef& data, bool nonnegative)
{
    if (is_cell_data_map(value)) {
        data = read_cell_data(reader, value);
        return cell_data_json(data);
    }
    if (!value.node.IsMap()) {
        global = reader.to_expression(value);
        if (nonnegative) check_sign(reader, value, global, false, value.key.c_str());
        return global;
    }
    json out = json::object();
    for (const CaseValue& entry : reader.entries(value, {})) {
        if (is_cell_data_map(entry)) {
            regions.push_back({entry.key, {}, read_cell_data(reader, entry)});
            out[entry.key] = cell_data_json(regions.back().data);
            continue;
        }
        const std::string text = reader.to_expression(entry);
        if (nonnegative) check_sign(reader, entry, text, false, value.key.c_str());
        regions.push_back({entry.key, {text}, {}});
        out[entry.key] = text;
    }
    return out;
}

json read_convection(const CaseReader& reader, const CaseValue& value, ProblemSpec& problem)
{
    if (value.node.IsMap()) {
        json out = json::object();
        for (const CaseValue& entry : reader.entries(value, {})) {
            problem.convection_regions.push_back({entry.key, read_vector(reader, entry), {}});
            out[entry.key] = problem.convection_regions.back().components;
        }
        return out;
    }
    const std::vector<std::string> b = read_vector(reader, value);
    bool numbers = true;
    for (const std::string& text : b) numbers = numbers && Expression(text).is_constant();
    if (!numbers) {
        problem.convection_field = b;
        return b;
    }
    for (const std::string& text : b) problem.convection.push_back(Expression(text).evaluate(0, 0, 0));
    return problem.convection;
}

}  // namespace gpufem
