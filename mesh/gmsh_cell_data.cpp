#include "mesh/gmsh_cell_data.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include <gmsh.h>

namespace gpufem {
namespace {

/// The cells sorted by their element tags, to find a tag's cell.
std::vector<std::pair<std::size_t, index_type>> cells_by_tag(const std::vector<std::size_t>& cell_tags)
{
    std::vector<std::pair<std::size_t, index_type>> sorted(cell_tags.size());
    for (std::size_t c = 0; c < cell_tags.size(); ++c) sorted[c] = {cell_tags[c], static_cast<index_type>(c)};
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

/// One ElementData view's values on the cells.
CellField view_field(const std::vector<std::pair<std::size_t, index_type>>& cells, const std::string& name,
                     const std::vector<std::size_t>& tags, const std::vector<std::vector<double>>& data, int components)
{
    CellField field{name, "", components, {}, 0, -1};
    const auto n = static_cast<std::size_t>(components);
    field.values.assign(cells.size() * n, std::numeric_limits<double>::quiet_NaN());
    std::vector<char> given(cells.size(), 0);
    for (std::size_t k = 0; k < tags.size(); ++k) {
        const auto at = std::lower_bound(cells.begin(), cells.end(), std::make_pair(tags[k], index_type{-1}));
        if (at == cells.end() || at->first != tags[k] || data[k].size() < n) continue;
        const auto c = static_cast<std::size_t>(at->second);
        std::copy_n(data[k].begin(), n, field.values.begin() + static_cast<std::ptrdiff_t>(c * n));
        given[c] = 1;
    }
    for (std::size_t c = 0; c < given.size(); ++c)
        if (!given[c]) {
            if (field.missing++ == 0) field.first_missing = static_cast<long long>(c);
        }
    return field;
}

}  // namespace

bool gmsh_has_views()
{
    std::vector<int> tags;
    gmsh::view::getTags(tags);
    return !tags.empty();
}

std::vector<CellField> gmsh_element_data(const std::vector<std::size_t>& cell_tags)
{
    std::vector<int> views;
    gmsh::view::getTags(views);
    const auto cells = cells_by_tag(cell_tags);
    std::vector<CellField> fields;
    for (const int view : views) {
        std::string type, name;
        std::vector<std::size_t> tags;
        std::vector<std::vector<double>> data;
        double time = 0;
        int components = 0;
        try {
            gmsh::view::getModelData(view, 0, type, tags, data, time, components);
        } catch (...) {
            continue;  // a list-based view: not data on the model's elements
        }
        if (type != "ElementData" || components < 1) continue;
        gmsh::option::getString("View[" + std::to_string(gmsh::view::getIndex(view)) + "].Name", name);
        const bool seen = std::any_of(fields.begin(), fields.end(), [&](const CellField& f) { return f.name == name; });
        if (!seen) fields.push_back(view_field(cells, name, tags, data, components));
    }
    return fields;
}

}  // namespace gpufem
