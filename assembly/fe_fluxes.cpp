#include "assembly/fe_fluxes.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "assembly/boundary_conditions.hpp"
#include "assembly/boundary_data.hpp"
#include "assembly/cell_blocks.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/flux_kernels.hpp"
#include "assembly/poisson_assembly.hpp"
#include "assembly/robin_data.hpp"
#include "assembly/robin_kernels.hpp"
#include "linalg/blas1.hpp"
#include "mesh/lagrange_basis.hpp"

namespace gpufem {
namespace {

/// The reference element whose points are the element's nodes (weights 1): the flux at the
/// nodes. The pyramid's rational basis has no gradient at its apex: its points are moved
/// towards the centre by 1e-9 of the way.
ReferenceElement nodal_reference(ElementType type, int degree)
{
    QuadratureRule rule;
    rule.dim = element_dimension(type);
    rule.points = degree == 1 ? reference_nodes(type) : lagrange_reference_nodes(type, degree);
    rule.weights.assign(rule.points.size() / static_cast<std::size_t>(rule.dim), 1.0);
    if (type == ElementType::pyramid) {
        const double centre[3] = {0.0, 0.0, 0.25};
        for (std::size_t k = 0; k < rule.points.size(); ++k)
            rule.points[k] += 1e-9 * (centre[k % 3] - rule.points[k]);
    }
    return make_reference_element(type, degree, std::move(rule));
}

/// The cells of a mesh as element blocks: the mesh itself, or its blocks of one type (with
/// each block cell's number in the mesh).
struct FluxBlocks {
    std::vector<CellBlock> mixed;
    std::vector<const Mesh*> meshes;
    explicit FluxBlocks(const Mesh& mesh)
    {
        if (mesh.is_mixed()) mixed = cell_blocks(mesh);
        for (const CellBlock& b : mixed) meshes.push_back(&b.mesh);
        if (!mesh.is_mixed()) meshes.push_back(&mesh);
    }
    /// Block b's cell k in the mesh.
    std::size_t cell(std::size_t b, std::size_t k) const { return mixed.empty() ? k : static_cast<std::size_t>(mixed[b].cells[k]); }
};

/// The Neumann and Robin groups' fluxes out of the domain (-int g; int h (u - u_inf)) into
/// report, their facets' products M u added into residual and their loads into load, all on
/// u's executor.
template <typename V>
void natural_group_fluxes(const Mesh& mesh, const ProblemSpec& problem, const Array<V>& u, const double* coordinates,
                          Array<double>& residual, Array<V>& load, FluxReport& report)
{
    const ExecPtr& exec = u.executor();
    const std::size_t n = u.size();
    Array<V> ones(exec, n), group_load(exec, n);
    Array<double> all(exec, n), products(exec, n);
    fill(ones, V(1));
    fill(all, 1.0);
    // The group's load: its integral, added into load.
    const auto take_load = [&] {
        const double total = dot(group_load, ones);
        axpy(V(1), group_load, load);
        return total;
    };
    for (const BoundaryCondition& bc : problem.neumann) {
        fill(group_load, V(0));
        add_neumann_load(mesh, coordinates, {bc}, group_load);
        report.groups.push_back({bc.group, "neumann", -take_load()});
    }
    for (const RobinCondition& bc : problem.robin) {
        fill(group_load, V(0));
        fill(products, 0.0);
        const RobinFacets facets = robin_facets(mesh, coordinates, {bc}, group_load);
        for (const RobinFacetBlock& block : facets.blocks) {
            const FacetMatrices view{block.count(), block.nodes_per_facet, block.nodes.data(), block.matrices.data()};
            GPUFEM_DISPATCH(*exec, add_facet_products(*exec, view, u.data(), products.data()));
        }
        const double flux = dot(products, all) - take_load();
        axpy(1.0, products, residual);
        report.groups.push_back({bc.group, "robin", flux});
    }
}

/// Each node's Dirichlet group (its index in problem.dirichlet; -1 for none): a node several
/// groups fix belongs to the last, as its value does.
std::vector<int> dirichlet_owners(const Mesh& mesh, const ProblemSpec& problem)
{
    std::vector<int> owner(static_cast<std::size_t>(mesh.num_nodes()), -1);
    for (std::size_t g = 0; g < problem.dirichlet.size(); ++g)
        for (index_type node : condition_facets(mesh, problem.dirichlet[g].group, "dirichlet").connectivity)
            if (node >= 0) owner[static_cast<std::size_t>(node)] = static_cast<int>(g);
    return owner;
}

/// A u - f of the cells that hold a Dirichlet node (the cells' part of the residual there)
/// added into residual at the Dirichlet nodes: only those cells reach them.
template <typename V>
void add_dirichlet_residual(const Mesh& mesh, const ProblemSpec& problem, const std::vector<int>& owner,
                            const Array<V>& u, Array<double>& residual)
{
    const ExecPtr& exec = u.executor();
    std::vector<std::uint8_t> fixed(owner.size()), touching(static_cast<std::size_t>(mesh.num_cells()), 0);
    for (std::size_t i = 0; i < owner.size(); ++i) fixed[i] = owner[i] >= 0;
    const std::size_t stride = static_cast<std::size_t>(mesh.nodes_per_cell);
    for (std::size_t c = 0; c < touching.size(); ++c)
        for (std::size_t k = 0; k < stride && !touching[c]; ++k) {
            const index_type node = mesh.cells[c * stride + k];
            touching[c] = node >= 0 && fixed[static_cast<std::size_t>(node)];
        }
    const Array<std::uint8_t> mask = Array<std::uint8_t>::from_host(exec, fixed);
    for (const CellBlock& block : cell_blocks(mesh, touching)) {
        const ElementData<V> data = make_problem_element_data<V>(exec, block.mesh, problem);
        GPUFEM_DISPATCH(*exec, element_residual(*exec, data, u.data(), mask.data(), residual.data()));
    }
}

/// The Dirichlet groups' fluxes out of the domain, -sum (A u - b)_i over each group's nodes
/// (owner: dirichlet_owners; residual: A u without the Neumann and Robin loads; load: those
/// loads), put before the other groups in report.
template <typename V>
void dirichlet_group_fluxes(const ProblemSpec& problem, const std::vector<int>& owner,
                            const std::vector<double>& residual, const std::vector<V>& load, FluxReport& report)
{
    std::vector<double> flux(problem.dirichlet.size(), 0.0);
    for (std::size_t i = 0; i < residual.size(); ++i)
        if (owner[i] >= 0) flux[static_cast<std::size_t>(owner[i])] -= residual[i] - static_cast<double>(load[i]);
    for (std::size_t g = 0; g < problem.dirichlet.size(); ++g)
        report.groups.insert(report.groups.begin() + static_cast<long>(g),
                             {problem.dirichlet[g].group, "dirichlet", flux[g]});
}

/// What one pass over the cells gives: each cell's mean flux and integrals (host, in the
/// mesh's cell order), and on the executor the node sums of the flux with their weights.
struct CellPass {
    std::vector<double> cell_flux, integrals;
    Array<double> node_sum, node_weight;
};

/// The cell pass of u, block by block on a mixed mesh.
template <typename V>
CellPass cell_pass(const Mesh& mesh, const ProblemSpec& problem, const Array<V>& u)
{
    const ExecPtr& exec = u.executor();
    const std::size_t n = u.size();
    const FluxBlocks blocks(mesh);
    CellPass pass{std::vector<double>(3 * static_cast<std::size_t>(mesh.num_cells())),
                  std::vector<double>(5 * static_cast<std::size_t>(mesh.num_cells())),
                  Array<double>(exec, 3 * n), Array<double>(exec, n)};
    fill(pass.node_sum, 0.0), fill(pass.node_weight, 0.0);
    for (std::size_t b = 0; b < blocks.meshes.size(); ++b) {
        const Mesh& cells = *blocks.meshes[b];
        const std::size_t count = static_cast<std::size_t>(cells.num_cells());
        const ElementData<V> data = make_problem_element_data<V>(exec, cells, problem);
        Array<double> flux(exec, 3 * count), sums(exec, 5 * count);
        GPUFEM_DISPATCH(*exec, cell_flux_integrals(*exec, data, u.data(), flux.data(), sums.data()));
        const std::vector<double> f = flux.to_host(), s = sums.to_host();
        for (std::size_t k = 0; k < count; ++k) {
            std::copy_n(f.begin() + static_cast<long>(3 * k), 3, pass.cell_flux.begin() + static_cast<long>(3 * blocks.cell(b, k)));
            std::copy_n(s.begin() + static_cast<long>(5 * k), 5, pass.integrals.begin() + static_cast<long>(5 * blocks.cell(b, k)));
        }
        const ReferenceElement at_nodes = nodal_reference(cells.cell_type, cells.degree);
        ElementData<V> nodal = make_geometry_data<V>(exec, cells, at_nodes);
        add_coefficients(nodal, cells, at_nodes, problem);
        GPUFEM_DISPATCH(*exec, node_flux_sums(*exec, nodal, u.data(), pass.node_sum.data(), pass.node_weight.data()));
    }
    return pass;
}

}  // namespace

std::vector<MeshField> flux_fields(int dim, const std::vector<double>& flux)
{
    const char* names[3] = {"flux_x", "flux_y", "flux_z"};
    std::vector<MeshField> fields;
    const std::size_t n = flux.size() / 3;
    for (int d = 0; d < dim; ++d) {
        HostVector<double> values(n);
        for (std::size_t i = 0; i < n; ++i) values[i] = flux[3 * i + static_cast<std::size_t>(d)];
        fields.emplace_back(names[d], std::move(values));
    }
    return fields;
}

std::vector<double> node_means(std::vector<double> sum, const std::vector<double>& weight)
{
    for (std::size_t i = 0; i < weight.size(); ++i)
        for (std::size_t d = 0; d < 3; ++d) sum[3 * i + d] = weight[i] > 0 ? sum[3 * i + d] / weight[i] : 0.0;
    return sum;
}

std::vector<RegionIntegrals> region_integrals(const Mesh& mesh, const std::vector<double>& per_cell)
{
    std::map<int, RegionIntegrals> by_tag;
    const std::size_t cells = per_cell.size() / 5;
    int last_tag = 0;
    RegionIntegrals* last = nullptr;  // cells of one region mostly follow each other
    for (std::size_t c = 0; c < cells; ++c) {
        const int tag = mesh.cell_group.empty() ? 0 : mesh.cell_group[c];
        if (!last || tag != last_tag) last = &by_tag[tag], last_tag = tag;
        RegionIntegrals& r = *last;
        r.volume += per_cell[5 * c];
        r.u += per_cell[5 * c + 1];
        r.source += per_cell[5 * c + 2];
        r.reaction += per_cell[5 * c + 3];
        r.convection += per_cell[5 * c + 4];
    }
    std::vector<RegionIntegrals> out;
    for (auto& [tag, r] : by_tag) {
        if (tag != 0) r.region = std::to_string(tag);  // a group without a name
        for (const PhysicalGroup& g : mesh.subdomains)
            if (g.tag == tag && g.dim == mesh.dim) r.region = g.name;
        out.push_back(r);
    }
    return out;
}

template <typename V>
SolutionFluxes fe_fluxes(const Mesh& mesh, const ProblemSpec& problem, const Array<V>& u)
{
    const ExecPtr& exec = u.executor();
    CellPass pass = cell_pass(mesh, problem, u);
    SolutionFluxes out;
    out.report.method = "finite elements: Dirichlet groups by the residual of the unconstrained system at their "
                        "nodes, Neumann -int g, Robin int h (u - u_inf)";
    out.report.regions = region_integrals(mesh, pass.integrals);
    Array<double> residual(exec, u.size());
    Array<V> load(exec, u.size());
    fill(residual, 0.0), fill(load, V(0));
    const std::vector<int> owner = dirichlet_owners(mesh, problem);
    if (!problem.dirichlet.empty()) add_dirichlet_residual(mesh, problem, owner, u, residual);
    const MeshOnExec on_exec(mesh, exec);
    natural_group_fluxes(mesh, problem, u, on_exec.coordinates, residual, load, out.report);
    if (!problem.dirichlet.empty()) dirichlet_group_fluxes(problem, owner, residual.to_host(), load.to_host(), out.report);
    out.point_fields = flux_fields(mesh.dim, node_means(pass.node_sum.to_host(), pass.node_weight.to_host()));
    out.cell_fields = flux_fields(mesh.dim, pass.cell_flux);
    return out;
}

template SolutionFluxes fe_fluxes(const Mesh&, const ProblemSpec&, const Array<float>&);
template SolutionFluxes fe_fluxes(const Mesh&, const ProblemSpec&, const Array<double>&);

}  // namespace gpufem
