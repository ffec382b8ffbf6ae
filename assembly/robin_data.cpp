#include "assembly/robin_data.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "assembly/boundary_conditions.hpp"
#include "assembly/expression.hpp"
#include "assembly/expression_kernels.hpp"
#include "assembly/reference_element.hpp"
#include "assembly/robin_kernels.hpp"

namespace gpufem {
namespace {

/// The message for the quadrature point where a Robin condition's data failed.
std::string robin_failure(const RobinCondition& bc, const double* x)
{
    const double h = Expression(bc.h).evaluate(x[0], x[1], x[2]);
    const double u = Expression(bc.u_inf).evaluate(x[0], x[1], x[2]);
    if (!std::isfinite(h) || h < 0)
        return fmt::format("problem.robin.{}.h = '{}' is {} at ({:.6g}, {:.6g}, {:.6g}); h must be >= 0 and finite",
                           bc.group, bc.h, h, x[0], x[1], x[2]);
    return fmt::format("problem.robin.{}.u_inf = '{}' is {} at ({:.6g}, {:.6g}, {:.6g}); u_inf must be finite",
                       bc.group, bc.u_inf, u, x[0], x[1], x[2]);
}

/// One block's matrices (and its loads into rhs).
template <typename V>
RobinFacetBlock facet_block(const Mesh& mesh, const double* coordinates, const RobinCondition& bc,
                            const BoundaryFacets& facets, Array<V>& rhs)
{
    const ExecPtr& exec = rhs.executor();
    const ReferenceElement ref = make_reference_element(facets.type, facets.degree, 2 * facets.degree + 1);
    if (ref.nodes != facets.nodes_per_facet)
        throw std::runtime_error(fmt::format("problem.robin.{}: facets of mesh {} have {} nodes, a {} of order {} has {}",
                                             bc.group, mesh.source, facets.nodes_per_facet,
                                             element_type_name(facets.type), facets.degree, ref.nodes));
    const Array<double> weights = Array<double>::from_host(exec, ref.rule.weights);
    const Array<double> values = Array<double>::from_host(exec, ref.values);
    const Array<double> gradients = Array<double>::from_host(exec, ref.gradients);
    const FacetTables tables{ref.dim, ref.nodes, ref.num_points(), weights.data(), values.data(), gradients.data()};
    RobinFacetBlock block;
    block.nodes_per_facet = facets.nodes_per_facet;
    block.nodes = Array<index_type>::from_host(exec, facets.connectivity);
    block.matrices = Array<double>(exec, facets.size() * facets.nodes_per_facet * facets.nodes_per_facet);
    const Array<ExprInstruction> h = program_on(exec, Expression(bc.h));
    const Array<ExprInstruction> u_inf = program_on(exec, Expression(bc.u_inf));
    const long long failed = GPUFEM_DISPATCH(
        *exec, robin_facet_terms(*exec, h.data(), u_inf.data(), coordinates, block.nodes.data(),
                                 static_cast<index_type>(facets.size()), tables, block.matrices.data(), rhs.data()));
    if (failed >= 0) {
        const FacetTables host{ref.dim, ref.nodes, ref.num_points(), ref.rule.weights.data(), ref.values.data(),
                               ref.gradients.data()};
        double x[3];
        facet_point(host, mesh.node_coordinates().data(), &facets.connectivity[(failed / tables.num_points) * ref.nodes],
                    static_cast<int>(failed % tables.num_points), x);
        throw std::runtime_error(robin_failure(bc, x));
    }
    return block;
}

}  // namespace

void check_robin_constants(const RobinCondition& bc)
{
    const Expression h(bc.h), u(bc.u_inf);
    if (h.is_constant()) {
        const double value = h.evaluate(0, 0, 0);
        if (!(value >= 0) || !std::isfinite(value))
            throw std::invalid_argument(fmt::format("problem.robin.{}.h: expected h >= 0 (a heat transfer "
                                                    "coefficient), got '{}'", bc.group, bc.h));
    }
    if (u.is_constant() && !std::isfinite(u.evaluate(0, 0, 0)))
        throw std::invalid_argument(fmt::format("problem.robin.{}.u_inf: expected a finite value, got '{}'",
                                                bc.group, bc.u_inf));
}

template <typename V>
RobinFacets robin_facets(const Mesh& mesh, const double* coordinates, const std::vector<RobinCondition>& conditions,
                         Array<V>& rhs)
{
    RobinFacets out;
    for (const RobinCondition& bc : conditions) {
        check_robin_constants(bc);
        for (const BoundaryFacets& facets : facets_by_shape(condition_facets(mesh, bc.group, "robin")))
            if (facets.size() > 0) out.blocks.push_back(facet_block(mesh, coordinates, bc, facets, rhs));
    }
    return out;
}

namespace {

/// The search of find_facet_owners for one block: its facets' corner keys, sorted, on exec.
struct BlockSearch {
    Array<index_type> keys, facet_of_key;
    Array<std::uint8_t> marked;
};

BlockSearch block_search(const ExecPtr& exec, const Mesh& mesh, const BoundaryFacets& facets)
{
    const int npf = facets.nodes_per_facet;
    const int corners = element_node_count(facets.type);
    const std::size_t n = facets.size();
    std::vector<std::array<index_type, facet_key_size>> keys(n);
    std::vector<std::uint8_t> marked(static_cast<std::size_t>(mesh.num_nodes()), 0);
    for (std::size_t f = 0; f < n; ++f) {
        index_type key[facet_key_size];
        for (int a = 0; a < facet_key_size; ++a) {
            key[a] = a < corners ? facets.connectivity[f * npf + a] : facet_key_padding;
            if (a < corners) marked[static_cast<std::size_t>(key[a])] = 1;
        }
        sort_facet_key(key);
        std::copy(key, key + facet_key_size, keys[f].begin());
    }
    std::vector<index_type> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](index_type a, index_type b) { return keys[a] < keys[b]; });
    std::vector<index_type> flat;
    flat.reserve(n * facet_key_size);
    for (index_type f : order) flat.insert(flat.end(), keys[f].begin(), keys[f].end());
    return {Array<index_type>::from_host(exec, flat), Array<index_type>::from_host(exec, order),
            Array<std::uint8_t>::from_host(exec, marked)};
}

}  // namespace

void locate_robin_facets(const Mesh& mesh, const std::vector<RobinCondition>& conditions, RobinFacets& facets)
{
    if (facets.located || facets.empty()) return;
    const ExecPtr exec = facets.blocks.front().nodes.executor();
    const MeshOnExec cells(mesh, exec, MeshOnExec::Parts::cells_only);
    const Array<std::uint8_t> types = Array<std::uint8_t>::from_host(
        exec, std::span<const std::uint8_t>(mesh.cell_types.data(), mesh.cell_types.size()));
    std::size_t b = 0;
    for (const RobinCondition& bc : conditions)
        for (const BoundaryFacets& group : facets_by_shape(condition_facets(mesh, bc.group, "robin"))) {
            if (group.size() == 0) continue;
            RobinFacetBlock& block = facets.blocks.at(b++);
            const BlockSearch keys = block_search(exec, mesh, group);
            const FacetOwnerSearch search{cells.cells, mesh.num_cells(), mesh.nodes_per_cell, kernel_shapes(),
                                          mesh.is_mixed() ? types.data() : nullptr, mesh.cell_type,
                                          keys.marked.data(), keys.keys.data(), keys.facet_of_key.data(),
                                          block.count()};
            block.owner = Array<index_type>(exec, static_cast<std::size_t>(block.count()));
            GPUFEM_DISPATCH(*exec, find_facet_owners(*exec, search, block.owner.data()));
            block.places = Array<index_type>(exec, block.nodes.size());
            const FacetMatrices view = facet_matrices(block);
            const long long failed = GPUFEM_DISPATCH(
                *exec, facet_places(*exec, view, cells.cells, mesh.nodes_per_cell, block.owner.data(),
                                    block.places.data()));
            if (failed >= 0)
                throw std::runtime_error(fmt::format("problem.robin.{}: facet {} of group '{}' in mesh {} is no "
                                                     "cell's face", bc.group, failed, bc.group, mesh.source));
        }
    facets.located = true;
}

template <typename V>
RobinFacets located_robin_facets(const Mesh& mesh, const std::vector<RobinCondition>& conditions, Array<V>& rhs)
{
    if (conditions.empty()) return {};
    const MeshOnExec on_exec(mesh, rhs.executor());
    RobinFacets facets = robin_facets(mesh, on_exec.coordinates, conditions, rhs);
    locate_robin_facets(mesh, conditions, facets);
    return facets;
}

namespace {

template <typename V, typename Matrix>
void add_to_matrix(const RobinFacets& facets, Matrix& a)
{
    const ExecPtr& exec = a.values.executor();
    for (const RobinFacetBlock& block : facets.blocks) {
        const FacetMatrices view = facet_matrices(block);
        GPUFEM_DISPATCH(*exec, add_facet_matrices_csr(*exec, view, a.row_ptr.data(), a.col_idx.data(), a.values.data()));
    }
}

}  // namespace

template <typename V>
void add_robin_to_csr(const RobinFacets& facets, Csr<V>& matrix)
{
    add_to_matrix<V>(facets, matrix);
}

template <typename V>
void add_robin_to_csr(const RobinFacets& facets, WideCsr<V>& matrix)
{
    add_to_matrix<V>(facets, matrix);
}

template <typename V>
void add_robin_to_cells(const RobinFacets& facets, const index_type* cell_map, int npe, index_type stride,
                        bool symmetric, Array<V>& matrices)
{
    if (facets.empty()) return;
    if (!facets.located) throw std::logic_error("add_robin_to_cells: the facets' cells are not located");
    const ExecPtr& exec = matrices.executor();
    for (const RobinFacetBlock& block : facets.blocks) {
        const FacetMatrices view = facet_matrices(block);
        GPUFEM_DISPATCH(*exec, add_facet_matrices_to_cells(*exec, view, block.owner.data(), block.places.data(),
                                                           cell_map, npe, stride, symmetric, matrices.data()));
    }
}

#define GPUFEM_INSTANTIATE(V)                                                                                  \
    template RobinFacets robin_facets(const Mesh&, const double*, const std::vector<RobinCondition>&, Array<V>&); \
    template RobinFacets located_robin_facets(const Mesh&, const std::vector<RobinCondition>&, Array<V>&);     \
    template void add_robin_to_csr(const RobinFacets&, Csr<V>&);                                               \
    template void add_robin_to_csr(const RobinFacets&, WideCsr<V>&);                                           \
    template void add_robin_to_cells(const RobinFacets&, const index_type*, int, index_type, bool, Array<V>&);
GPUFEM_INSTANTIATE(float)
GPUFEM_INSTANTIATE(double)
#undef GPUFEM_INSTANTIATE

}  // namespace gpufem
