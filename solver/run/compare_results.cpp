#include "solver/run/compare_results.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "mesh/vtk_reader.hpp"

namespace gpufem {

FieldComparison compare_results(const std::filesystem::path& a, const std::filesystem::path& b,
                                const std::string& field)
{
    const VtuPointData da = read_vtu_point_data(a), db = read_vtu_point_data(b);
    if (da.num_points() != db.num_points())
        throw std::runtime_error("'" + a.string() + "' has " + std::to_string(da.num_points()) +
                                 " points, '" + b.string() + "' has " +
                                 std::to_string(db.num_points()) + ": not the same mesh");
    if (da.cells != db.cells)
        throw std::runtime_error("'" + a.string() + "' has " + std::to_string(da.cells) + " cells, '" +
                                 b.string() + "' has " + std::to_string(db.cells) + ": not the same mesh");
    // A point field, else a cell field (finite volumes' unknowns are cell data).
    const bool on_cells = !da.fields.contains(field) && da.cell_fields.contains(field);
    auto field_of = [&](const VtuPointData& d, const std::filesystem::path& p) -> const std::vector<double>& {
        const auto& fields = on_cells ? d.cell_fields : d.fields;
        const auto it = fields.find(field);
        if (it == fields.end())
            throw std::runtime_error("'" + p.string() + "' has no " + (on_cells ? "cell" : "point or cell") +
                                     " field '" + field + "'");
        return it->second;
    };
    const auto& fa = field_of(da, a);
    const auto& fb = field_of(db, b);

    FieldComparison c;
    c.on_cells = on_cells;
    c.points = fa.size();
    double extent = 0, scale = 0, sum2 = 0;
    for (std::size_t i = 0; i < da.num_points(); ++i) {
        double d2 = 0;
        for (int k = 0; k < 3; ++k) {
            const double d = da.points[3 * i + k] - db.points[3 * i + k];
            d2 += d * d;
            extent = std::max(extent, std::abs(da.points[3 * i + k]));
        }
        c.max_point_offset = std::max(c.max_point_offset, std::sqrt(d2));
    }
    for (std::size_t i = 0; i < c.points; ++i) {
        if (!std::isfinite(fa[i]) || !std::isfinite(fb[i])) {
            const bool same = (std::isnan(fa[i]) && std::isnan(fb[i])) || fa[i] == fb[i];
            if (!same && c.non_finite_mismatches++ == 0) c.first_non_finite_mismatch = i;
            continue;
        }
        const double diff = std::abs(fa[i] - fb[i]);
        c.max_abs = std::max(c.max_abs, diff);
        scale = std::max(scale, std::abs(fa[i]));
        sum2 += diff * diff;
    }
    if (c.max_point_offset > 1e-9 * std::max(extent, 1.0))
        throw std::runtime_error("the two results' points differ (by up to " +
                                 std::to_string(c.max_point_offset) + "): not the same mesh");
    c.max_rel = scale > 0 ? c.max_abs / scale : c.max_abs;
    c.rms = c.points ? std::sqrt(sum2 / c.points) : 0.0;
    if (c.non_finite_mismatches > 0) {
        c.max_abs = c.max_rel = c.rms = std::numeric_limits<double>::infinity();
    }
    return c;
}

}  // namespace gpufem
