#include "assembly/boundary_conditions.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "assembly/expression.hpp"
#include "assembly/reference_element.hpp"

namespace gpufem {
namespace {

/// The groups of a list of conditions, for messages.
std::vector<std::string> group_names(const std::vector<BoundaryCondition>& conditions)
{
    std::vector<std::string> names;
    for (const auto& bc : conditions) names.push_back(bc.group);
    return names;
}

}  // namespace

const BoundaryFacets& condition_facets(const Mesh& mesh, const std::string& group, const char* kind)
{
    if (const BoundaryFacets* facets = mesh.find_boundary(group)) return *facets;
    for (const IgnoredGroup& ignored : mesh.ignored_boundaries)
        if (ignored.name == group)
            throw std::runtime_error(fmt::format("problem.{}.{}: {}", kind, group, ignored.reason));
    for (const PhysicalGroup& sub : mesh.subdomains) {
        if (sub.name == group)
            throw std::runtime_error(fmt::format(
                "problem.{}.{}: physical group '{}' of mesh {} is a subdomain (dimension {}), "
                "not a boundary",
                kind, group, group, mesh.source, sub.dim));
    }
    const auto names = mesh.boundary_names();
    throw std::runtime_error(fmt::format(
        "problem.{}.{}: mesh {} has no boundary physical group named '{}' (boundary groups: {})",
        kind, group, mesh.source, group, names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
}

std::vector<BoundaryFacets> facets_by_shape(const BoundaryFacets& facets)
{
    if (!facets.mixed_triangles) return {facets};
    BoundaryFacets triangles = facets, quadrilaterals = facets;
    triangles.type = ElementType::triangle;
    triangles.nodes_per_facet = lagrange_node_count(ElementType::triangle, facets.degree);
    triangles.mixed_triangles = quadrilaterals.mixed_triangles = false;
    triangles.connectivity.clear();
    quadrilaterals.connectivity.clear();
    const int per_triangle = triangles.nodes_per_facet, per_quadrilateral = facets.nodes_per_facet;
    for (std::size_t f = 0; f < facets.size(); ++f) {
        const index_type* nodes = &facets.connectivity[f * facets.nodes_per_facet];
        // A triangle's row ends with -1 after its nodes (fewer than a quadrilateral's).
        if (nodes[per_triangle] < 0)
            triangles.connectivity.insert(triangles.connectivity.end(), nodes, nodes + per_triangle);
        else
            quadrilaterals.connectivity.insert(quadrilaterals.connectivity.end(), nodes, nodes + per_quadrilateral);
    }
    return {std::move(triangles), std::move(quadrilaterals)};
}

void check_boundary_groups(const Mesh& mesh, const ProblemSpec& problem)
{
    for (const auto& bc : problem.dirichlet) condition_facets(mesh, bc.group, "dirichlet");
    for (const auto& bc : problem.neumann) condition_facets(mesh, bc.group, "neumann");
    for (const auto& bc : problem.robin) condition_facets(mesh, bc.group, "robin");
    if (problem.dirichlet.empty() || (problem.neumann.empty() && problem.robin.empty())) return;
    // A Neumann facet whose nodes are all Dirichlet nodes adds nothing (its rows are replaced
    // by the Dirichlet values): a Neumann group lying on a Dirichlet group would be dropped.
    std::vector<std::uint8_t> fixed(static_cast<std::size_t>(mesh.num_nodes()), 0);
    for (const auto& bc : problem.dirichlet)
        for (index_type node : condition_facets(mesh, bc.group, "dirichlet").connectivity)
            if (node >= 0) fixed[node] = 1;  // a mixed group's triangles end with -1
    std::vector<std::pair<const char*, std::string>> loaded;  // the conditions that add a flux
    for (const auto& bc : problem.neumann) loaded.emplace_back("neumann", bc.group);
    for (const auto& bc : problem.robin) loaded.emplace_back("robin", bc.group);
    for (const auto& [kind, name] : loaded) {
        const BoundaryFacets& group = condition_facets(mesh, name, kind);
        std::size_t covered = 0;
        for (const BoundaryFacets& facets : facets_by_shape(group))
            for (std::size_t f = 0; f < facets.size(); ++f) {
                bool all = true;
                for (int i = 0; i < facets.nodes_per_facet && all; ++i)
                    all = fixed[facets.connectivity[f * facets.nodes_per_facet + i]] != 0;
                covered += all;
            }
        if (covered > 0 && covered == group.size())
            throw std::runtime_error(fmt::format(
                "problem.{}.{}: every facet of group '{}' lies on nodes that Dirichlet "
                "conditions fix (problem.dirichlet: {}), so its flux would be ignored; remove "
                "the group from one of the two conditions",
                kind, name, name, fmt::join(group_names(problem.dirichlet), ", ")));
    }
}

DirichletNodes dirichlet_nodes(const Mesh& mesh, const std::vector<BoundaryCondition>& conditions)
{
    DirichletNodes result;
    result.mask.assign(mesh.num_nodes(), 0);
    result.values.assign(mesh.num_nodes(), 0.0);
    for (const auto& bc : conditions) {
        const BoundaryFacets& facets = condition_facets(mesh, bc.group, "dirichlet");
        const Expression g(bc.expression);
        for (index_type node : facets.connectivity) {
            if (node < 0) continue;  // a mixed group's triangles end with -1
            const double* x = &mesh.node_coordinates()[3 * static_cast<std::size_t>(node)];
            const double value = g.evaluate(x[0], x[1], x[2]);
            if (!std::isfinite(value))
                throw std::runtime_error(fmt::format(
                    "problem.dirichlet.{} = '{}' is not finite at ({:.6g}, {:.6g}, {:.6g})",
                    bc.group, bc.expression, x[0], x[1], x[2]));
            result.mask[node] = 1;
            result.values[node] = value;
        }
    }
    for (std::uint8_t m : result.mask) result.count += m;
    return result;
}

std::vector<double> neumann_load(const Mesh& mesh, const std::vector<BoundaryCondition>& conditions)
{
    std::vector<double> load(mesh.num_nodes(), 0.0);
    for (const auto& bc : conditions) {
        for (const BoundaryFacets& facets : facets_by_shape(condition_facets(mesh, bc.group, "neumann"))) {
            const Expression g(bc.expression);
            const ReferenceElement ref =
                make_reference_element(facets.type, facets.degree, 2 * facets.degree + 1);
            const int m = ref.dim, npf = facets.nodes_per_facet, nq = ref.num_points();
            if (ref.nodes != npf)
                throw std::runtime_error(fmt::format(
                    "problem.neumann.{}: facets of mesh {} have {} nodes, a {} of order {} has {}",
                    bc.group, mesh.source, npf, element_type_name(facets.type), facets.degree,
                    ref.nodes));
            for (std::size_t f = 0; f < facets.size(); ++f) {
                const index_type* nodes = &facets.connectivity[f * npf];
                for (int q = 0; q < nq; ++q) {
                    double x[3] = {0, 0, 0}, t[2][3] = {{0, 0, 0}, {0, 0, 0}};
                    for (int i = 0; i < npf; ++i) {
                        const double* xi = &mesh.node_coordinates()[3 * static_cast<std::size_t>(nodes[i])];
                        for (int d = 0; d < 3; ++d) {
                            x[d] += ref.values[q * npf + i] * xi[d];
                            for (int c = 0; c < m; ++c)
                                t[c][d] += ref.gradients[(q * npf + i) * m + c] * xi[d];
                        }
                    }
                    double measure;
                    if (m == 1) {
                        measure = std::sqrt(t[0][0] * t[0][0] + t[0][1] * t[0][1] + t[0][2] * t[0][2]);
                    } else {
                        const double n0 = t[0][1] * t[1][2] - t[0][2] * t[1][1];
                        const double n1 = t[0][2] * t[1][0] - t[0][0] * t[1][2];
                        const double n2 = t[0][0] * t[1][1] - t[0][1] * t[1][0];
                        measure = std::sqrt(n0 * n0 + n1 * n1 + n2 * n2);
                    }
                    const double value = g.evaluate(x[0], x[1], x[2]);
                    if (!std::isfinite(value))
                        throw std::runtime_error(fmt::format(
                            "problem.neumann.{} = '{}' is not finite at ({:.6g}, {:.6g}, {:.6g})",
                            bc.group, bc.expression, x[0], x[1], x[2]));
                    const double w = ref.rule.weights[q] * measure * value;
                    for (int i = 0; i < npf; ++i) load[nodes[i]] += w * ref.values[q * npf + i];
                }
            }
        }
    }
    return load;
}

}  // namespace gpufem
