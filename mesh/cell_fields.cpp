#include "mesh/cell_fields.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mesh/gmsh_session.hpp"
#include "mesh/vtu_cell_fields.hpp"

namespace gpufem {
namespace {

/// "problem.kappa: cell_data 'perm' of mesh.msh": how every message about a request begins.
std::string request_name(const Mesh& mesh, const CellFieldRequest& r)
{
    return fmt::format("{}: cell_data '{}' of {}", r.key, r.name, r.file.empty() ? mesh.source : r.file);
}

/// The mesh file's own $ElementData field of the request; throws listing those it has.
CellField element_data_field(const Mesh& mesh, const CellFieldRequest& r)
{
    std::vector<std::string> names;
    for (const CellField& field : mesh.cell_fields) {
        if (!field.file.empty()) continue;
        if (field.name == r.name) return field;
        names.push_back("'" + field.name + "'");
    }
    throw MeshSourceError(fmt::format("{}: the mesh file has no $ElementData field '{}' ({})", request_name(mesh, r), r.name,
                                      names.empty() ? std::string("it has no $ElementData")
                                                    : fmt::format("its fields: {}", fmt::join(names, ", "))));
}

/// Whether v passes the check.
bool passes(CellFieldCheck check, double v)
{
    switch (check) {
    case CellFieldCheck::positive: return std::isfinite(v) && v > 0;
    case CellFieldCheck::nonnegative: return std::isfinite(v) && v >= 0;
    case CellFieldCheck::finite: return std::isfinite(v);
    }
    return false;
}

/// What the check asks, for messages.
const char* requirement(CellFieldCheck check)
{
    switch (check) {
    case CellFieldCheck::positive: return "positive and finite";
    case CellFieldCheck::nonnegative: return ">= 0 and finite";
    case CellFieldCheck::finite: return "finite";
    }
    return "";
}

/// "cell 7 at (0.25, 0.5, 0)".
std::string cell_place(const Mesh& mesh, index_type c)
{
    double x[3];
    cell_corner_centroid(mesh, c, x);
    return fmt::format("cell {} at ({:.6g}, {:.6g}, {:.6g})", c, x[0], x[1], x[2]);
}

/// Throws unless the field has one component, a value for every cell, each passing r.check.
void check_field(const Mesh& mesh, const CellField& field, const CellFieldRequest& r)
{
    if (field.components != 1)
        throw MeshSourceError(fmt::format("{}: the field has {} components; a coefficient takes 1 (a scalar per cell)",
                                          request_name(mesh, r), field.components));
    if (field.missing > 0)
        throw MeshSourceError(fmt::format("{}: no value for {} of the {} cells (the first: {})", request_name(mesh, r),
                                          field.missing, mesh.num_cells(),
                                          cell_place(mesh, static_cast<index_type>(field.first_missing))));
    for (std::size_t c = 0; c < field.values.size(); ++c)
        if (!passes(r.check, field.values[c]))
            throw MeshSourceError(fmt::format("{}: the value {} at {}; {} must be {}", request_name(mesh, r), field.values[c],
                                              cell_place(mesh, static_cast<index_type>(c)), r.key, requirement(r.check)));
}

}  // namespace

void resolve_cell_fields(Mesh& mesh, const std::vector<CellFieldRequest>& requests)
{
    std::vector<CellField> kept;
    for (const CellFieldRequest& r : requests) {
        auto field = std::find_if(kept.begin(), kept.end(),
                                  [&](const CellField& f) { return f.name == r.name && f.file == r.file; });
        if (field == kept.end()) {
            kept.push_back(r.file.empty() ? element_data_field(mesh, r) : read_vtu_cell_field(mesh, r.file, r.name, r.key));
            field = kept.end() - 1;
        }
        check_field(mesh, *field, r);
    }
    mesh.cell_fields = std::move(kept);
}

std::vector<CellField> cell_fields_of(const std::vector<CellField>& fields, std::span<const index_type> from)
{
    std::vector<CellField> out;
    for (const CellField& field : fields) {
        CellField f = field;
        const auto n = static_cast<std::size_t>(field.components);
        f.values.resize(from.size() * n);
        for (std::size_t i = 0; i < from.size(); ++i)
            std::copy_n(field.values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(from[i]) * n), n,
                        f.values.begin() + static_cast<std::ptrdiff_t>(i * n));
        out.push_back(std::move(f));
    }
    return out;
}

std::vector<CellField> cell_fields_prefix(const std::vector<CellField>& fields, index_type count)
{
    std::vector<CellField> out = fields;
    for (CellField& f : out) f.values.resize(static_cast<std::size_t>(count) * static_cast<std::size_t>(f.components));
    return out;
}

const CellField* find_cell_field(const Mesh& mesh, const std::string& name, const std::string& file)
{
    for (const CellField& field : mesh.cell_fields)
        if (field.name == name && field.file == file) return &field;
    return nullptr;
}

std::string cell_field_file(const Mesh& mesh, const CellField& field)
{
    return field.file.empty() ? mesh.source : field.file;
}

void cell_corner_centroid(const Mesh& mesh, index_type c, double (&x)[3])
{
    const int corners = element_node_count(mesh.type_of_cell(c));
    const index_type* nodes = mesh.cells.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(mesh.nodes_per_cell);
    x[0] = x[1] = x[2] = 0;
    for (int i = 0; i < corners; ++i)
        for (int a = 0; a < 3; ++a) x[a] += mesh.node_coordinates()[3 * static_cast<std::size_t>(nodes[i]) + a] / corners;
}

}  // namespace gpufem
