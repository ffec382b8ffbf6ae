#include "solver/report/mesh_summary_output.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpufem {
namespace {

/// "[0, 2] x [0, 1] x [0, 0]".
std::string box_text(const MeshSummary& s)
{
    std::string out;
    for (int d = 0; d < 3; ++d)
        out += fmt::format("{}[{:.6g}, {:.6g}]", d ? " x " : "", s.box_min[static_cast<std::size_t>(d)],
                           s.box_max[static_cast<std::size_t>(d)]);
    return out;
}

/// The groups as a table: dimension, tag, name, size.
std::string groups_text(const MeshSummary& s)
{
    if (s.groups.empty()) return "physical groups     none\n";
    std::size_t width = 4;
    for (const GroupSummary& g : s.groups) width = std::max(width, g.name.size());
    std::string out = fmt::format("physical groups\n  {:<4} {:>6}  {:<{}}  size\n", "dim", "tag", "name", width);
    for (const GroupSummary& g : s.groups)
        out += fmt::format("  {:<4} {:>6}  {:<{}}  {} {}\n", g.dim, g.tag, g.name, width, g.size,
                           g.region ? "cells" : "facets");
    if (s.cells_in_no_region > 0 && !s.regions().empty())
        out += fmt::format("  {} cells lie in no region (a coefficient given per region must cover them)\n",
                           s.cells_in_no_region);
    for (const UnusableGroup& g : s.unusable_groups) out += fmt::format("  {} cannot be used: {}\n", g.name, g.reason);
    return out;
}

/// The Jacobian ratio, the angles, and the cells of non-positive Jacobian.
std::string quality_text(const MeshSummary& s)
{
    std::string out = "quality\n";
    out += fmt::format("  Jacobian ratio    min {:.4g}, max {:.4g} (min det J / max |det J| at each cell's nodes)\n",
                       s.jacobian.min, s.jacobian.max);
    if (s.triangle_angles.cells > 0)
        out += fmt::format("  triangle angles   min {:.2f}, max {:.2f} degrees\n", s.triangle_angles.min,
                           s.triangle_angles.max);
    if (s.tetrahedron_angles.cells > 0)
        out += fmt::format("  dihedral angles   min {:.2f}, max {:.2f} degrees (tetrahedra)\n", s.tetrahedron_angles.min,
                           s.tetrahedron_angles.max);
    if (s.jacobian.non_positive == 0) return out + "  every cell has a positive Jacobian\n";
    out += fmt::format("  {} {} a non-positive Jacobian (inverted, folded or flat); the first:\n", s.jacobian.non_positive,
                       s.jacobian.non_positive == 1 ? "cell has" : "cells have");
    for (const std::string& cell : s.non_positive_cells) out += "    " + cell + "\n";
    return out;
}

/// {cells, min_degrees, max_degrees}.
nlohmann::json angles_json(const AngleRange& range)
{
    return {{"cells", range.cells}, {"min_degrees", range.min}, {"max_degrees", range.max}};
}

/// The quality as quality_text gives it, under stable keys.
nlohmann::json quality_json(const MeshSummary& s)
{
    nlohmann::json bad = nlohmann::json::array();
    for (std::size_t k = 0; k < s.non_positive_cells.size(); ++k)
        bad.push_back({{"cell", s.jacobian.first_non_positive[k]}, {"description", s.non_positive_cells[k]}});
    nlohmann::json out = {{"jacobian_ratio", {{"min", s.jacobian.min}, {"max", s.jacobian.max}}},
                          {"non_positive_jacobian", {{"cells", s.jacobian.non_positive}, {"first", bad}}}};
    if (s.triangle_angles.cells > 0) out["triangle_angles"] = angles_json(s.triangle_angles);
    if (s.tetrahedron_angles.cells > 0) out["tetrahedron_dihedral_angles"] = angles_json(s.tetrahedron_angles);
    return out;
}

}  // namespace

std::string mesh_summary_text(const std::string& file, const MeshSummary& s)
{
    std::string out = fmt::format("mesh                {}\n", file);
    out += fmt::format("dimension           {}\n", s.dim);
    out += fmt::format("cells               {}\n", cell_counts_text(s));
    out += fmt::format("nodes               {}\n", s.nodes);
    out += fmt::format("geometry order      {}\n", s.geometry_order);
    out += fmt::format("bounding box        {}\n", box_text(s));
    return out + groups_text(s) + quality_text(s);
}

nlohmann::json mesh_summary_json(const std::string& file, const MeshSummary& s)
{
    nlohmann::json types = nlohmann::json::object();
    for (const CellTypeCount& t : s.cell_types) types[element_type_name(t.type)] = t.cells;
    nlohmann::json groups = nlohmann::json::array();
    for (const GroupSummary& g : s.groups)
        groups.push_back({{"name", g.name}, {"dim", g.dim}, {"tag", g.tag}, {"size", g.size},
                          {"kind", g.region ? "region" : "boundary"}, {"counts", g.region ? "cells" : "facets"}});
    nlohmann::json unusable = nlohmann::json::array();
    for (const UnusableGroup& g : s.unusable_groups) unusable.push_back({{"name", g.name}, {"reason", g.reason}});
    return {{"file", file},
            {"source", s.source},
            {"dimension", s.dim},
            {"cells", s.cells},
            {"cell_types", types},
            {"nodes", s.nodes},
            {"geometry_order", s.geometry_order},
            {"bounding_box", {{"min", s.box_min}, {"max", s.box_max}}},
            {"groups", groups},
            {"cells_in_no_region", s.cells_in_no_region},
            {"unusable_groups", unusable},
            {"quality", quality_json(s)}};
}

}  // namespace gpufem
