#include "solver/run/compare_results.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "mesh/place_matching.hpp"
#include "mesh/vtk_reader.hpp"

namespace gpufem {
namespace {

/// The number of places (3 coordinates each).
std::size_t count_of(const std::vector<double>& places) { return places.size() / 3; }

/// Largest coordinate magnitude of either set of places, at least 1: the scale of the
/// tolerance within which two places are the same.
double extent_of(const std::vector<double>& a, const std::vector<double>& b)
{
    double extent = 1.0;
    for (double x : a) extent = std::max(extent, std::abs(x));
    for (double x : b) extent = std::max(extent, std::abs(x));
    return extent;
}

/// Largest distance between the i-th places of a and b (the same count).
double largest_offset(const std::vector<double>& a, const std::vector<double>& b)
{
    double largest = 0;
    for (std::size_t i = 0; i < count_of(a); ++i) {
        double d2 = 0;
        for (int k = 0; k < 3; ++k) d2 += (a[3 * i + k] - b[3 * i + k]) * (a[3 * i + k] - b[3 * i + k]);
        largest = std::max(largest, std::sqrt(d2));
    }
    return largest;
}

/// For each place of `from`, the index of `to`'s place within tolerance of it; throws naming
/// the first place with none.
std::vector<std::size_t> match_places(const std::vector<double>& from, const std::vector<double>& to,
                                      double tolerance, const std::string& what)
{
    const std::vector<long long> closest = closest_places_within(from, to, tolerance);
    std::vector<std::size_t> match(closest.size());
    for (std::size_t i = 0; i < closest.size(); ++i) {
        if (closest[i] < 0) {
            const double* x = &from[3 * i];
            throw std::runtime_error(fmt::format("{} {} at ({}, {}, {}) has no counterpart within {:.3g}: not the same mesh",
                                                 what, i, x[0], x[1], x[2], tolerance));
        }
        match[i] = static_cast<std::size_t>(closest[i]);
    }
    return match;
}

/// How the values of two results are paired: by index when their places agree in order, else
/// the listed (a's index, b's index) pairs.
struct Pairing {
    bool by_position = false;
    std::vector<std::pair<std::size_t, std::size_t>> pairs;  ///< by_position only
};

/// The pairing of two results' places: by index when they agree in order; else every place of
/// a with b's at the same place and every other place of b with a's (a run across ranks writes
/// the points its pieces share once per piece, in its own order).
Pairing pair_places(const std::vector<double>& a, const std::vector<double>& b, const std::string& what)
{
    const double tolerance = 1e-9 * extent_of(a, b);
    Pairing p;
    p.by_position = count_of(a) != count_of(b) || largest_offset(a, b) > tolerance;
    if (!p.by_position) return p;
    const std::vector<std::size_t> a_in_b = match_places(a, b, tolerance, "the first result's " + what);
    const std::vector<std::size_t> b_in_a = match_places(b, a, tolerance, "the second result's " + what);
    for (std::size_t i = 0; i < a_in_b.size(); ++i) p.pairs.emplace_back(i, a_in_b[i]);
    for (std::size_t j = 0; j < b_in_a.size(); ++j)
        if (a_in_b[b_in_a[j]] != j) p.pairs.emplace_back(b_in_a[j], j);  // b's other copies of a place
    return p;
}

/// The field's values of a result, a point field or (on_cells) a cell field.
const std::vector<double>& field_of(const VtuPointData& d, const std::filesystem::path& p, const std::string& field,
                                    bool on_cells)
{
    const auto& fields = on_cells ? d.cell_fields : d.fields;
    const auto it = fields.find(field);
    if (it == fields.end())
        throw std::runtime_error("'" + p.string() + "' has no " + (on_cells ? "cell" : "point or cell") + " field '" +
                                 field + "'");
    return it->second;
}

/// The differences over the paired values (NaN against NaN and equal infinities count as equal).
void compare_pairs(const std::vector<double>& fa, const std::vector<double>& fb, const Pairing& pairing,
                   FieldComparison& c)
{
    double scale = 0, sum2 = 0;
    const auto compare = [&](std::size_t i, std::size_t j) {
        if (!std::isfinite(fa[i]) || !std::isfinite(fb[j])) {
            const bool same = (std::isnan(fa[i]) && std::isnan(fb[j])) || fa[i] == fb[j];
            if (!same && c.non_finite_mismatches++ == 0) c.first_non_finite_mismatch = i;
            return;
        }
        const double diff = std::abs(fa[i] - fb[j]);
        c.max_abs = std::max(c.max_abs, diff);
        scale = std::max(scale, std::abs(fa[i]));
        sum2 += diff * diff;
    };
    if (pairing.by_position)
        for (const auto& [i, j] : pairing.pairs) compare(i, j);
    else
        for (std::size_t i = 0; i < fa.size(); ++i) compare(i, i);
    const std::size_t count = pairing.by_position ? pairing.pairs.size() : fa.size();
    c.max_rel = scale > 0 ? c.max_abs / scale : c.max_abs;
    c.rms = count == 0 ? 0.0 : std::sqrt(sum2 / static_cast<double>(count));
    if (c.non_finite_mismatches > 0) c.max_abs = c.max_rel = c.rms = std::numeric_limits<double>::infinity();
}

}  // namespace

FieldComparison compare_results(const std::filesystem::path& a, const std::filesystem::path& b,
                                const std::string& field)
{
    const VtuPointData da = read_vtu_point_data(a), db = read_vtu_point_data(b);
    if (da.cells != db.cells)
        throw std::runtime_error("'" + a.string() + "' has " + std::to_string(da.cells) + " cells, '" +
                                 b.string() + "' has " + std::to_string(db.cells) + ": not the same mesh");
    // A point field, else a cell field (finite volumes' unknowns are cell data).
    FieldComparison c;
    c.on_cells = !da.fields.contains(field) && da.cell_fields.contains(field);
    const auto& fa = field_of(da, a, field, c.on_cells);
    const auto& fb = field_of(db, b, field, c.on_cells);
    // The points are paired even for a cell field: two results on different meshes differ.
    const Pairing points = pair_places(da.points, db.points, "point");
    const Pairing cells = c.on_cells ? pair_places(da.cell_centres, db.cell_centres, "cell centre") : Pairing{};
    const Pairing& pairing = c.on_cells ? cells : points;
    c.by_position = pairing.by_position;
    c.points = c.on_cells ? da.cells : da.num_points();
    compare_pairs(fa, fb, pairing, c);
    return c;
}

}  // namespace gpufem
