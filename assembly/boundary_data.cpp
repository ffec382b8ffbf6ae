#include "assembly/boundary_data.hpp"

#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "assembly/boundary_conditions.hpp"
#include "assembly/boundary_kernels.hpp"
#include "assembly/expression_kernels.hpp"
#include "assembly/reference_element.hpp"
#include "linalg/blas1.hpp"

namespace gpufem {
template <typename V>
const double* double_coordinates(const Mesh& mesh, const ElementData<V>& data,
                                 Array<double>& storage)
{
    if constexpr (std::is_same_v<V, double>) {
        return data.coordinates.data();
    } else {
        storage = Array<double>::from_host(data.coordinates.executor(), mesh.node_coordinates());
        return storage.data();
    }
}

template <typename V>
DirichletData<V> dirichlet_data(const ExecPtr& exec, const Mesh& mesh, const double* coordinates,
                                const std::vector<BoundaryCondition>& conditions)
{
    DirichletData<V> out;
    out.mask = Array<std::uint8_t>(exec, mesh.num_nodes());
    out.values = Array<V>(exec, mesh.num_nodes());
    zero_bytes(*exec, out.mask.data(), out.mask.size());
    fill(out.values, V(0));
    // Which nodes are constrained is topology: counted here, the values stay on exec.
    std::vector<std::uint8_t> constrained(mesh.num_nodes(), 0);
    for (const auto& bc : conditions) {
        const BoundaryFacets& facets = condition_facets(mesh, bc.group, "dirichlet");
        std::vector<index_type> facet_nodes;  // without the -1 that ends a mixed group's triangles
        facet_nodes.reserve(facets.connectivity.size());
        for (index_type node : facets.connectivity)
            if (node >= 0) facet_nodes.push_back(node), constrained[node] = 1;
        const Expression g(bc.expression);
        const Array<ExprInstruction> program = program_on(exec, g);
        const Array<index_type> nodes = Array<index_type>::from_host(exec, facet_nodes);
        const long long failed = GPUFEM_DISPATCH(
            *exec, set_dirichlet_values(*exec, program.data(), coordinates, nodes.data(),
                                        static_cast<index_type>(nodes.size()), out.mask.data(),
                                        out.values.data()));
        if (failed >= 0) {
            const double* x = &mesh.node_coordinates()[3 * static_cast<std::size_t>(facet_nodes[failed])];
            throw std::runtime_error(fmt::format(
                "problem.dirichlet.{} = '{}' is not finite at ({:.6g}, {:.6g}, {:.6g})", bc.group,
                bc.expression, x[0], x[1], x[2]));
        }
    }
    for (std::uint8_t c : constrained) out.count += c;
    return out;
}

template <typename V>
void add_neumann_load(const Mesh& mesh, const double* coordinates,
                      const std::vector<BoundaryCondition>& conditions, Array<V>& rhs)
{
    const ExecPtr& exec = rhs.executor();
    for (const auto& bc : conditions) {
        for (const BoundaryFacets& facets : facets_by_shape(condition_facets(mesh, bc.group, "neumann"))) {
            if (facets.size() == 0) continue;
            const ReferenceElement ref =
                make_reference_element(facets.type, facets.degree, 2 * facets.degree + 1);
            if (ref.nodes != facets.nodes_per_facet)
                throw std::runtime_error(fmt::format(
                    "problem.neumann.{}: facets of mesh {} have {} nodes, a {} of order {} has {}",
                    bc.group, mesh.source, facets.nodes_per_facet, element_type_name(facets.type),
                    facets.degree, ref.nodes));
            const Array<double> weights = Array<double>::from_host(exec, ref.rule.weights);
            const Array<double> values = Array<double>::from_host(exec, ref.values);
            const Array<double> gradients = Array<double>::from_host(exec, ref.gradients);
            const FacetTables tables{ref.dim, ref.nodes, ref.num_points(), weights.data(),
                                     values.data(), gradients.data()};
            const Expression g(bc.expression);
            const Array<ExprInstruction> program = program_on(exec, g);
            const Array<index_type> nodes = Array<index_type>::from_host(exec, facets.connectivity);
            const long long failed = GPUFEM_DISPATCH(
                *exec, add_neumann_load(*exec, program.data(), coordinates, nodes.data(),
                                        static_cast<index_type>(facets.size()), tables, rhs.data()));
            if (failed >= 0) {
                // The point again on the host, from the host tables, for the message.
                const FacetTables host{ref.dim, ref.nodes, ref.num_points(), ref.rule.weights.data(),
                                       ref.values.data(), ref.gradients.data()};
                double x[3];
                facet_point(host, mesh.node_coordinates().data(),
                            &facets.connectivity[(failed / tables.num_points) * ref.nodes],
                            static_cast<int>(failed % tables.num_points), x);
                throw std::runtime_error(fmt::format(
                    "problem.neumann.{} = '{}' is not finite at ({:.6g}, {:.6g}, {:.6g})", bc.group,
                    bc.expression, x[0], x[1], x[2]));
            }
        }
    }
}

#define GPUFEM_INSTANTIATE(V)                                                                     \
    template const double* double_coordinates(const Mesh&, const ElementData<V>&, Array<double>&); \
    template DirichletData<V> dirichlet_data(const ExecPtr&, const Mesh&, const double*,          \
                                             const std::vector<BoundaryCondition>&);              \
    template void add_neumann_load(const Mesh&, const double*,                                    \
                                   const std::vector<BoundaryCondition>&, Array<V>&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
