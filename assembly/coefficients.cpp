#include "assembly/coefficients.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assembly/element_data.hpp"
#include "assembly/expression.hpp"
#include "mesh/cell_fields.hpp"

namespace gpufem {
namespace {

constexpr const char* tensor_2d[] = {"xx", "xy", "yy"};
constexpr const char* tensor_3d[] = {"xx", "xy", "xz", "yy", "yz", "zz"};

/// A scalar kappa as the diagonal tensor of dim.
std::vector<std::string> diagonal_tensor(const std::string& k, int dim)
{
    if (dim == 2) return {k, "0", k};
    return {k, "0", "0", k, "0", k};
}

/// The global value of the coefficient (its components), empty when the problem has none.
std::vector<std::string> global_components(const Mesh& mesh, const ProblemSpec& problem, CoefficientKind kind)
{
    switch (kind) {
    case CoefficientKind::kappa: return problem.kappa_tensor.empty() ? std::vector<std::string>{problem.kappa} : problem.kappa_tensor;
    case CoefficientKind::f: return {problem.f};
    case CoefficientKind::reaction:
        if (Expression c(problem.reaction); c.is_constant() && c.evaluate(0, 0, 0) == 0.0) return {};
        return {problem.reaction};
    case CoefficientKind::convection: {
        if (!problem.convection_field.empty()) return problem.convection_field;
        std::vector<std::string> b;
        for (double v : checked_convection(problem.convection, mesh.dim)) b.push_back(fmt::format("{:.17g}", v));
        return b;
    }
    }
    return {};
}

/// The cell data a coefficient is given by everywhere (none for convection).
CellDataRef global_data(const ProblemSpec& problem, CoefficientKind kind)
{
    switch (kind) {
    case CoefficientKind::kappa: return problem.kappa_data;
    case CoefficientKind::f: return problem.f_data;
    case CoefficientKind::reaction: return problem.reaction_data;
    case CoefficientKind::convection: return {};
    }
    return {};
}

/// A piece given by cell data: the mesh's field; throws when the mesh was loaded without it.
CoefficientPiece data_piece(const Mesh& mesh, const std::string& key, int tag, const std::string& region,
                            const CellDataRef& data)
{
    const CellField* field = find_cell_field(mesh, data.field, data.file);
    if (!field || field->values.size() != static_cast<std::size_t>(mesh.num_cells()) * static_cast<std::size_t>(field->components))
        throw std::runtime_error(fmt::format("problem.{}{}: mesh {} was loaded without its cell data '{}'{}", key,
                                             region.empty() ? "" : "." + region, mesh.source, data.field,
                                             data.file.empty() ? "" : " of " + data.file));
    return {tag, region, {}, field};
}

/// The regions' map of a coefficient.
const std::vector<RegionValue>& region_values(const ProblemSpec& problem, CoefficientKind kind)
{
    switch (kind) {
    case CoefficientKind::kappa: return problem.kappa_regions;
    case CoefficientKind::f: return problem.f_regions;
    case CoefficientKind::reaction: return problem.reaction_regions;
    case CoefficientKind::convection: return problem.convection_regions;
    }
    return problem.f_regions;
}

/// The physical tag of a region (a group of the mesh's dimension); throws listing those there are.
int region_tag(const Mesh& mesh, const std::string& key, const std::string& region)
{
    std::vector<std::string> names;
    for (const PhysicalGroup& group : mesh.subdomains) {
        if (group.dim != mesh.dim) continue;
        if (group.name == region) return group.tag;
        names.push_back(group.name);
    }
    throw std::runtime_error(fmt::format("problem.{}.{}: mesh {} has no physical group '{}' of dimension {} (its regions: {})",
                                         key, region, mesh.source, region, mesh.dim,
                                         names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
}

/// Throws when some cell lies in none of the pieces' regions, naming their groups and counts.
void check_coverage(const Mesh& mesh, const MeshCoefficient& c)
{
    std::vector<int> named;
    for (const CoefficientPiece& piece : c.pieces) named.push_back(piece.tag);
    std::sort(named.begin(), named.end());
    // A large mesh is all covered in the common case: one pass that finds so, on the device
    // when the regions are there; the cells are counted only for the message.
    if (!present_region_tags(mesh, named).others) return;
    const auto cells = static_cast<long long>(mesh.cell_group.size());
    long long total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (long long k = 0; k < cells; ++k)
        total += !std::binary_search(named.begin(), named.end(), mesh.cell_group[static_cast<std::size_t>(k)]);
    std::map<int, long long> uncovered;
    if (mesh.cell_group.empty()) uncovered[0] = total = mesh.num_cells();
    for (const int tag : mesh.cell_group)
        if (!std::binary_search(named.begin(), named.end(), tag)) ++uncovered[tag];
    std::vector<std::string> parts;
    for (const auto& [tag, count] : uncovered) {
        std::string name;
        for (const PhysicalGroup& group : mesh.subdomains)
            if (group.tag == tag && group.dim == mesh.dim) name = group.name;
        parts.push_back(tag == 0 || name.empty() ? fmt::format("{} in no physical group", count)
                                                 : fmt::format("{} in '{}'", count, name));
    }
    throw std::runtime_error(fmt::format("problem.{}: {} of the {} cells of mesh {} lie in no region the map names ({}); "
                                         "give a value for every region", c.key, total, mesh.num_cells(), mesh.source,
                                         fmt::join(parts, ", ")));
}

/// A tensor given as xx xy xz yy yz zz ("" where not given) as dim's packed components:
/// off-diagonals default to 0; a 2D mesh takes no xz, yz or zz, a 3D one needs zz.
std::vector<std::string> packed_tensor(const std::string& name, const std::vector<std::string>& six, int dim)
{
    const auto given = [&](int k) { return !six[static_cast<std::size_t>(k)].empty(); };
    const auto or_zero = [&](int k) { return given(k) ? six[static_cast<std::size_t>(k)] : std::string("0"); };
    if (dim == 2) {
        if (given(2) || given(4) || given(5))
            throw std::runtime_error(fmt::format("{}: a 2D mesh takes the tensor's xx, xy and yy only (xz, yz, zz given)", name));
        return {six[0], or_zero(1), six[3]};
    }
    if (!given(5)) throw std::runtime_error(fmt::format("{}: a 3D mesh needs the tensor's zz", name));
    return {six[0], or_zero(1), or_zero(2), six[3], or_zero(4), six[5]};
}

/// Brings every piece to the coefficient's number of components: a kappa tensor in dim's
/// packed order (a scalar among tensors as a diagonal tensor), a 2D velocity without a third
/// component 0; throws naming the piece otherwise.
void shape_components(MeshCoefficient& c, int dim)
{
    const bool tensor = c.kind == CoefficientKind::kappa &&
                        std::any_of(c.pieces.begin(), c.pieces.end(), [](const CoefficientPiece& p) { return p.components.size() > 1; });
    c.components = tensor ? dim * (dim + 1) / 2 : c.kind == CoefficientKind::convection ? dim : 1;
    for (CoefficientPiece& piece : c.pieces) {
        std::vector<std::string>& k = piece.components;
        if (piece.field) continue;  // one value per cell: the kernel puts it on a tensor's diagonal
        if (tensor && k.size() == 1) k = diagonal_tensor(k[0], dim);
        if (tensor && k.size() == 6) k = packed_tensor(c.name(piece, -1), k, dim);
        if (c.kind == CoefficientKind::convection && dim == 2 && k.size() == 3 && Expression(k[2]).is_constant() &&
            Expression(k[2]).evaluate(0, 0, 0) == 0.0)
            k.pop_back();
        if (static_cast<int>(k.size()) != c.components)
            throw std::runtime_error(fmt::format("{}: a {}D mesh needs {} components, got {}", c.name(piece, -1), dim,
                                                 c.components, k.size()));
    }
}

}  // namespace

bool MeshCoefficient::constant() const
{
    if (pieces.size() != 1 || pieces.front().tag >= 0 || pieces.front().field) return false;
    for (const std::string& text : pieces.front().components)
        if (!Expression(text).is_constant()) return false;
    return true;
}

std::vector<double> MeshCoefficient::constant_values() const
{
    std::vector<double> values;
    for (const std::string& text : pieces.front().components) values.push_back(Expression(text).evaluate(0, 0, 0));
    return values;
}

std::string MeshCoefficient::name(const CoefficientPiece& piece, int component) const
{
    std::string text = "problem." + key + (piece.tag >= 0 ? "." + piece.region : "");
    if (component < 0 || components == 1) return text;
    if (kind == CoefficientKind::convection) return fmt::format("{}[{}]", text, component);
    return text + "." + (components == 3 ? tensor_2d[component] : tensor_3d[component]);
}

MeshCoefficient mesh_coefficient(const Mesh& mesh, const ProblemSpec& problem, CoefficientKind kind)
{
    MeshCoefficient c;
    c.kind = kind;
    c.key = kind == CoefficientKind::kappa ? "kappa" : kind == CoefficientKind::f ? "f"
          : kind == CoefficientKind::reaction ? "c" : "convection";
    const std::vector<RegionValue>& regions = region_values(problem, kind);
    if (const CellDataRef data = global_data(problem, kind); regions.empty() && data.given()) {
        c.pieces.push_back(data_piece(mesh, c.key, -1, "", data));
    } else if (regions.empty()) {
        std::vector<std::string> global = global_components(mesh, problem, kind);
        if (!global.empty()) c.pieces.push_back({-1, "", std::move(global)});
    }
    for (const RegionValue& r : regions) {
        const int tag = region_tag(mesh, c.key, r.region);
        c.pieces.push_back(r.data.given() ? data_piece(mesh, c.key, tag, r.region, r.data)
                                          : CoefficientPiece{tag, r.region, r.components});
    }
    if (c.pieces.empty()) return c;
    if (!regions.empty()) check_coverage(mesh, c);
    shape_components(c, mesh.dim);
    return c;
}

Array<int> cell_regions(const ExecPtr& exec, const Mesh& mesh)
{
    if (mesh.cell_group.empty()) return Array<int>::from_host(exec, std::vector<int>(static_cast<std::size_t>(mesh.num_cells()), 0));
    // A mesh refined on this device holds its regions there: copied on the device.
    if (mesh.device && mesh.device->cell_group.size() == mesh.cell_group.size() &&
        mesh.device->cell_group.executor() == exec)
        return mesh.device->cell_group.clone_to(exec);
    return Array<int>::from_host(exec, std::span<const int>(mesh.cell_group.data(), mesh.cell_group.size()));
}

PresentTags present_region_tags(const Mesh& mesh, std::vector<int> candidates)
{
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    PresentTags out;
    if (mesh.cell_group.empty()) {  // every cell tag 0
        if (mesh.num_cells() == 0) return out;
        if (std::binary_search(candidates.begin(), candidates.end(), 0)) out.tags = {0};
        else out.others = true;
        return out;
    }
    static const ExecPtr host = Executor::create_cpu();
    const bool on_device = mesh.device && mesh.device->cell_group.size() == mesh.cell_group.size();
    const ExecPtr& exec = on_device ? mesh.device->cell_group.executor() : host;
    const int m = static_cast<int>(candidates.size());
    const Array<int> tags = Array<int>::from_host(exec, candidates);
    Array<std::uint8_t> present(exec, candidates.size() + 1);
    zero_bytes(*exec, present.data(), present.size());
    const int* region = on_device ? mesh.device->cell_group.data() : mesh.cell_group.data();
    GPUFEM_DISPATCH(*exec, mark_present_tags(*exec, static_cast<long long>(mesh.cell_group.size()), region,
                                             tags.data(), m, present.data()));
    const std::vector<std::uint8_t> flags = present.to_host();
    for (int k = 0; k < m; ++k)
        if (flags[static_cast<std::size_t>(k)]) out.tags.push_back(candidates[static_cast<std::size_t>(k)]);
    out.others = flags[static_cast<std::size_t>(m)] != 0;
    return out;
}

namespace {

/// How each coefficient's values are checked, and what its message adds.
ValueCheck check_of(const MeshCoefficient& c)
{
    if (c.kind == CoefficientKind::kappa) return c.components == 1 ? ValueCheck::positive : ValueCheck::finite;
    return c.kind == CoefficientKind::reaction ? ValueCheck::nonnegative : ValueCheck::finite;
}

std::string requirement(const MeshCoefficient& c)
{
    if (c.kind == CoefficientKind::kappa) return "; kappa must be positive and finite";
    if (c.kind == CoefficientKind::reaction) return "; c must be >= 0 and finite";
    return "";
}

}  // namespace

template <typename V>
Array<V> evaluate_coefficient(const ExecPtr& exec, const MeshCoefficient& c, const CoefficientPoints& at,
                              const std::function<PointPlace(long long)>& place)
{
    const ValueCheck check = check_of(c);
    const int dim = c.components == 3 ? 2 : 3;
    if (c.constant()) {
        const std::vector<double> values = c.constant_values();
        for (std::size_t k = 0; k < values.size(); ++k)
            if (!passes(check, values[k]))
                throw std::runtime_error(fmt::format("{} = '{}' is {} everywhere{}", c.name(c.pieces[0], static_cast<int>(k)),
                                                     c.pieces[0].components[k], values[k], requirement(c)));
        if (c.kind == CoefficientKind::kappa && c.components > 1 && !positive_definite_tensor(values.data(), dim))
            throw std::runtime_error(fmt::format("problem.kappa = ({}) is not positive definite",
                                                 fmt::join(c.pieces[0].components, ", ")));
        return Array<V>::from_host(exec, std::vector<V>(values.begin(), values.end()));
    }
    const long long points = at.num_cells * at.per_cell;
    Array<V> out(exec, static_cast<std::size_t>(points * c.components));
    for (const CoefficientPiece& piece : c.pieces) {
        if (piece.field) {  // checked when the mesh was loaded (mesh/cell_fields.hpp)
            const Array<double> values = Array<double>::from_host(exec, piece.field->values);
            GPUFEM_DISPATCH(*exec, spread_cell_values(*exec, values.data(), at, piece.tag, c.components, out.data()));
            continue;
        }
        for (int k = 0; k < c.components; ++k) {
            const Expression expr(piece.components[k]);
            const Array<ExprInstruction> program = program_on(exec, expr);
            const long long first = GPUFEM_DISPATCH(
                *exec, evaluate_coefficient_piece(*exec, program.data(), at, piece.tag, c.components, k, check, out.data()));
            if (first < 0) continue;
            const PointPlace p = place(first);
            throw std::runtime_error(fmt::format("{} = '{}' is {} at ({:.6g}, {:.6g}, {:.6g}) ({}){}", c.name(piece, k),
                                                 piece.components[k], expr.evaluate(p.x[0], p.x[1], p.x[2]), p.x[0],
                                                 p.x[1], p.x[2], p.what, requirement(c)));
        }
    }
    if (c.kind == CoefficientKind::kappa && c.components > 1) {
        const long long first = GPUFEM_DISPATCH(*exec, first_indefinite_tensor(*exec, out.data(), points, dim));
        if (first >= 0) {
            const PointPlace p = place(first);
            throw std::runtime_error(fmt::format("problem.kappa is not positive definite at ({:.6g}, {:.6g}, {:.6g}) ({}); "
                                                 "a tensor kappa must be symmetric positive definite everywhere",
                                                 p.x[0], p.x[1], p.x[2], p.what));
        }
    }
    return out;
}

template Array<float> evaluate_coefficient(const ExecPtr&, const MeshCoefficient&, const CoefficientPoints&,
                                           const std::function<PointPlace(long long)>&);
template Array<double> evaluate_coefficient(const ExecPtr&, const MeshCoefficient&, const CoefficientPoints&,
                                            const std::function<PointPlace(long long)>&);

}  // namespace gpufem
