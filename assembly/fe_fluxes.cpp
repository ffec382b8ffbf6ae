#include "assembly/fe_fluxes.hpp"

#include <algorithm>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "assembly/boundary_conditions.hpp"
#include "assembly/boundary_data.hpp"
#include "assembly/cell_blocks.hpp"
#include "assembly/coefficients.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/flux_kernels.hpp"
#include "assembly/poisson_assembly.hpp"
#include "assembly/robin_data.hpp"
#include "assembly/robin_kernels.hpp"
#include "assembly/tensor_flux_tables.hpp"
#include "linalg/blas1.hpp"
#include "linalg/precision.hpp"
#include "mesh/gll_output.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/stage_laps.hpp"

namespace gpufem {
namespace {

/// The flux fields' names by component.
constexpr const char* flux_field_names[3] = {"flux_x", "flux_y", "flux_z"};

/// The cells of a mesh as element blocks: the mesh itself, or its blocks of one type (with
/// each block cell's number in the mesh).
struct FluxBlocks {
    const Mesh& whole;
    std::vector<CellBlock> mixed;
    std::vector<const Mesh*> meshes;
    explicit FluxBlocks(const Mesh& mesh) : whole(mesh)
    {
        if (mesh.is_mixed()) mixed = cell_blocks(mesh);
        for (const CellBlock& b : mixed) meshes.push_back(&b.mesh);
        if (!mesh.is_mixed()) meshes.push_back(&mesh);
    }
    /// Block b's device copy on exec while the result lives (a mixed mesh's blocks; null
    /// for a mesh of one type, which has its own).
    std::unique_ptr<BlockDeviceCopy> device_copy(std::size_t b, const ExecPtr& exec)
    {
        return mixed.empty() ? nullptr : std::make_unique<BlockDeviceCopy>(mixed[b].mesh, whole, exec);
    }
    /// Block b's cell k in the mesh.
    std::size_t cell(std::size_t b, std::size_t k) const { return mixed.empty() ? k : static_cast<std::size_t>(mixed[b].cells[k]); }
};

/// Whether the mesh's own device copy is on exec (then the element kernels may run over all
/// its cells there).
bool device_copy_on(const Mesh& mesh, const ExecPtr& exec)
{
    return mesh.device && mesh.device->cells.executor() == exec;
}

/// n values on exec: 1 for the first `ones`, 0 after.
template <typename T>
Array<T> prefix_mask(const ExecPtr& exec, std::size_t n, std::size_t ones)
{
    Array<T> mask(exec, n);
    fill(mask, T(1));
    if (ones < n) GPUFEM_DISPATCH(*exec, fill(*exec, n - ones, T(0), mask.data() + ones));
    return mask;
}

/// The Neumann and Robin groups' fluxes out of the domain (-int g; int h (u - u_inf)) into
/// report, their facets' products M u added into residual and their loads into load, all on
/// u's executor; the fluxes summed over the first summed_nodes nodes.
template <typename V>
void natural_group_fluxes(const Mesh& mesh, const ProblemSpec& problem, const Array<V>& u, const double* coordinates,
                          std::size_t summed_nodes, Array<double>& residual, Array<V>& load, FluxReport& report)
{
    const ExecPtr& exec = u.executor();
    const std::size_t n = u.size();
    // The sums' weights: 1 on the nodes summed over, 0 on the others.
    const Array<V> ones = prefix_mask<V>(exec, n, summed_nodes);
    const Array<double> all = prefix_mask<double>(exec, n, summed_nodes);
    Array<V> group_load(exec, n);
    Array<double> products(exec, n);
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
            const FacetMatrices view = facet_matrices(block);
            GPUFEM_DISPATCH(*exec, add_facet_products(*exec, view, u.data(), products.data()));
        }
        const double flux = dot(products, all) - take_load();
        axpy(1.0, products, residual);
        report.groups.push_back({bc.group, "robin", flux});
    }
}

/// The Dirichlet nodes on an executor: each node's group numbered from 1 (its index in
/// problem.dirichlet plus 1; 0 for none; a node several groups fix is the last one's, as its
/// value is) and the mask of the fixed nodes.
struct DirichletOwners {
    Array<int> group;
    Array<std::uint8_t> mask;
};

/// The Dirichlet owners of the n nodes on exec: the groups' facet nodes marked there in order.
DirichletOwners dirichlet_owners(const Mesh& mesh, const ProblemSpec& problem, const ExecPtr& exec, std::size_t n)
{
    DirichletOwners out{Array<int>(exec, n), Array<std::uint8_t>(exec, n)};
    zero_bytes(*exec, out.group.data(), n * sizeof(int));
    zero_bytes(*exec, out.mask.data(), n);
    for (std::size_t g = 0; g < problem.dirichlet.size(); ++g) {
        const std::vector<index_type>& nodes = condition_facets(mesh, problem.dirichlet[g].group, "dirichlet").connectivity;
        const Array<index_type> on_exec = Array<index_type>::from_host(exec, nodes);
        GPUFEM_DISPATCH(*exec, mark_dirichlet_group(*exec, on_exec.data(), static_cast<long long>(nodes.size()),
                                                    static_cast<int>(g) + 1, out.group.data(), out.mask.data()));
    }
    return out;
}

/// A u - f of the cells that hold a Dirichlet node (the cells' part of the residual there)
/// added into residual at the Dirichlet nodes (mask): only those cells reach them. whole: the
/// problem's element data of the whole mesh on u's executor, or null.
template <typename V>
void add_dirichlet_residual(const Mesh& mesh, const ProblemSpec& problem, const Array<std::uint8_t>& mask,
                            const Array<V>& u, const ElementData<V>* whole, Array<double>& residual)
{
    const ExecPtr& exec = u.executor();
    const long long cells = mesh.num_cells();
    if (whole && device_copy_on(mesh, exec)) {
        // The mesh is on the device already: every cell's residual there (the element kernels
        // compute only the Dirichlet rows) costs less than cutting and uploading the cells
        // that touch them.
        GPUFEM_DISPATCH(*exec, element_residual(*exec, *whole, u.data(), mask.data(), residual.data()));
        return;
    }
    const std::vector<std::uint8_t> fixed = mask.to_host();
    const long long stride = mesh.nodes_per_cell;
    std::vector<std::uint8_t> touching(static_cast<std::size_t>(cells));
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < cells; ++c) {
        std::uint8_t touches = 0;
        for (long long k = 0; k < stride && !touches; ++k) {
            const index_type node = mesh.cells[c * stride + k];
            touches = node >= 0 && fixed[static_cast<std::size_t>(node)];
        }
        touching[c] = touches;
    }
    for (CellBlock& block : cell_blocks(mesh, touching)) {
        const BlockDeviceCopy on_device(block.mesh, mesh, exec);
        const ElementData<V> data = make_problem_element_data<V>(exec, block.mesh, problem);
        GPUFEM_DISPATCH(*exec, element_residual(*exec, data, u.data(), mask.data(), residual.data()));
    }
}

/// The Dirichlet groups' fluxes out of the domain, -sum (A u - b)_i over each group's nodes
/// (residual: A u without the Neumann and Robin loads, which it loses here; load: those
/// loads), summed on the executor over the first summed_nodes nodes, put before the other
/// groups in report.
template <typename V>
void dirichlet_group_fluxes(const ProblemSpec& problem, const DirichletOwners& owners, std::size_t summed_nodes,
                            Array<double>& residual, const Array<V>& load, FluxReport& report)
{
    const ExecPtr& exec = residual.executor();
    const auto n = static_cast<long long>(residual.size());
    GPUFEM_DISPATCH(*exec, subtract_load(*exec, n, load.data(), residual.data()));
    const long long summed = std::min(static_cast<long long>(summed_nodes), n);
    for (std::size_t g = 0; g < problem.dirichlet.size(); ++g) {
        const double flux = -GPUFEM_DISPATCH(*exec, region_sum(*exec, summed, owners.group.data(), static_cast<int>(g) + 1,
                                                               residual.data()));
        report.groups.insert(report.groups.begin() + static_cast<long>(g), {problem.dirichlet[g].group, "dirichlet", flux});
    }
}

/// What one pass over the cells gives, on u's executor: each cell's mean flux (3 columns)
/// and integrals (5 columns) in columns of mesh.num_cells() values in the mesh's cell order,
/// and the node sums of the flux (3 per node) with their weights.
struct CellPass {
    Array<double> cell_flux, integrals;
    Array<double> node_sum, node_weight;
};

/// The cells' mean fluxes and integrals of u into pass, block by block on a mixed mesh
/// (whole: the problem's element data of a mesh of one cell type, or null). On a mixed mesh
/// with Dirichlet nodes (dirichlet_mask not null) each block's A u - f at those nodes is added
/// into residual from the same element data (every cell's on the device costs less than
/// cutting and uploading the cells that touch them).
template <typename V>
void add_cell_means(FluxBlocks& blocks, const ProblemSpec& problem, const Array<V>& u,
                    const ElementData<V>* whole, long long cells_total, CellPass& pass,
                    const std::uint8_t* dirichlet_mask, Array<double>& residual)
{
    const ExecPtr& exec = u.executor();
    for (std::size_t b = 0; b < blocks.meshes.size(); ++b) {
        const auto on_device = whole ? nullptr : blocks.device_copy(b, exec);
        std::optional<ElementData<V>> own;
        const ElementData<V>& data =
            whole ? *whole : own.emplace(make_problem_element_data<V>(exec, *blocks.meshes[b], problem));
        const Array<index_type> cell_of =
            blocks.mixed.empty() ? Array<index_type>() : Array<index_type>::from_host(exec, blocks.mixed[b].cells);
        GPUFEM_DISPATCH(*exec, cell_flux_integrals(*exec, data, u.data(), cell_of.empty() ? nullptr : cell_of.data(),
                                                   cells_total, pass.cell_flux.data(), pass.integrals.data()));
        if (!whole && dirichlet_mask)
            GPUFEM_DISPATCH(*exec, element_residual(*exec, data, u.data(), dirichlet_mask, residual.data()));
        exec->synchronize();  // cell_of is freed
    }
}

/// The flux's node sums of u and their weights into pass (the flux at each cell's nodes),
/// block by block on a mixed mesh, by sum factorisation where tensor is given (the stages'
/// times into laps).
template <typename V>
void add_node_sums(FluxBlocks& blocks, const ProblemSpec& problem, const Array<V>& u,
                   const TensorFluxTables<V>* tensor, CellPass& pass, StageLaps& laps)
{
    const ExecPtr& exec = u.executor();
    for (std::size_t b = 0; b < blocks.meshes.size(); ++b) {
        const auto on_device = blocks.device_copy(b, exec);
        const Mesh* cells = blocks.meshes[b];
        const ReferenceElement at_nodes = nodal_reference(cells->cell_type, cells->degree);
        ElementData<V> nodal = make_geometry_data<V>(exec, *cells, at_nodes);
        laps.lap_after(*exec, "nodal geometry");
        add_coefficients(nodal, *cells, at_nodes, problem);
        laps.lap_after(*exec, "nodal coefficients");
        if (tensor)
            GPUFEM_DISPATCH(*exec, tensor_node_fluxes(*exec, nodal.args(), tensor->at_nodes(), u.data(),
                                                      pass.node_sum.data(), pass.node_weight.data()));
        else
            GPUFEM_DISPATCH(*exec, node_flux_sums(*exec, nodal, u.data(), pass.node_sum.data(), pass.node_weight.data()));
        exec->synchronize();  // nodal is freed
    }
}

/// Tag 0 and the tags of the mesh's subdomains (of its dimension), in increasing order.
std::vector<int> subdomain_tags(const Mesh& mesh)
{
    std::vector<int> tags{0};
    for (const PhysicalGroup& g : mesh.subdomains)
        if (g.dim == mesh.dim) tags.push_back(g.tag);
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    return tags;
}

/// The distinct subdomain tags of the mesh's cells in increasing order ({0} without groups):
/// found among the subdomains' tags in one pass (on the device where the regions are), the
/// cells read on the host only when some hold a tag of no subdomain.
std::vector<int> region_tags(const Mesh& mesh)
{
    if (mesh.cell_group.empty()) return {0};
    PresentTags present = present_region_tags(mesh, subdomain_tags(mesh));
    if (!present.others) return std::move(present.tags);
    std::vector<int> tags;
    const long long cells = static_cast<long long>(mesh.cell_group.size());
#pragma omp parallel
    {
        std::vector<int> seen;  // cells of one region mostly follow each other
#pragma omp for schedule(static) nowait
        for (long long c = 0; c < cells; ++c) {
            const int tag = mesh.cell_group[static_cast<std::size_t>(c)];
            if (seen.empty() || (seen.back() != tag && std::find(seen.begin(), seen.end(), tag) == seen.end()))
                seen.push_back(tag);
        }
#pragma omp critical
        tags.insert(tags.end(), seen.begin(), seen.end());
    }
    std::sort(tags.begin(), tags.end());
    tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
    return tags;
}

/// The regions' integrals from each cell's integrals on the executor (5 columns of
/// mesh.num_cells() values), summed there by the cells' subdomain tags over the first
/// `summed` cells: for each tag the cells hold, or (every_subdomain) for subdomain_tags.
std::vector<RegionIntegrals> device_region_integrals(const Mesh& mesh, const Array<double>& integrals,
                                                     long long summed, bool every_subdomain)
{
    const ExecPtr& exec = integrals.executor();
    const long long cells = mesh.num_cells();
    const std::vector<int> tags = every_subdomain ? subdomain_tags(mesh) : region_tags(mesh);
    const bool one_tag = !every_subdomain && tags.size() == 1;
    const Array<int> regions = one_tag || mesh.cell_group.empty() ? Array<int>() : cell_regions(exec, mesh);
    std::vector<RegionIntegrals> out;
    for (const int tag : tags) {
        double sums[5] = {0, 0, 0, 0, 0};
        if (!regions.empty() || one_tag || tag == 0)
            for (int k = 0; k < 5; ++k)
                sums[k] = GPUFEM_DISPATCH(*exec, region_sum(*exec, summed, regions.empty() ? nullptr : regions.data(),
                                                            tag, integrals.data() + k * cells));
        RegionIntegrals r{region_name(mesh, tag), sums[0], sums[1], sums[2], sums[3], sums[4]};
        out.push_back(std::move(r));
    }
    return out;
}

/// Component d of the flux fields' columns of n values on the executor, copied to the host.
template <typename T>
HostVector<T> column_to_host(const Array<T>& columns, std::size_t n, int d)
{
    static const ExecPtr host = Executor::create_cpu();
    HostVector<T> values(n);
    if (n > 0)
        copy_bytes(*host, values.data(), *columns.executor(), columns.data() + static_cast<std::size_t>(d) * n,
                   n * sizeof(T));
    return values;
}

}  // namespace

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

std::vector<MeshField> column_fields(int dim, const Array<double>& columns, std::size_t n, bool float32)
{
    std::vector<MeshField> fields;
    if (float32) {
        const Array<float> narrow = converted<float>(columns);  // half the bytes to copy and keep
        for (int d = 0; d < dim; ++d) fields.emplace_back(flux_field_names[d], column_to_host(narrow, n, d));
        return fields;
    }
    for (int d = 0; d < dim; ++d) fields.emplace_back(flux_field_names[d], column_to_host(columns, n, d));
    return fields;
}

std::vector<MeshField> node_mean_fields(int dim, const Array<double>& sum, const Array<double>& weight, bool float32,
                                        const EquispacedConversion* equispaced)
{
    const ExecPtr& exec = weight.executor();
    const std::size_t n = weight.size();
    Array<double> columns(exec, static_cast<std::size_t>(dim) * n);
    GPUFEM_DISPATCH(*exec, node_flux_means(*exec, static_cast<long long>(n), dim, sum.data(), weight.data(), columns.data()));
    if (!equispaced) return column_fields(dim, columns, n, float32);
    Array<double> converted(exec, columns.size());
    for (int d = 0; d < dim; ++d) equispaced->apply(columns.data() + d * n, converted.data() + d * n);
    return column_fields(dim, converted, n, float32);
}


std::vector<RegionIntegrals> region_integrals(const Mesh& mesh, const Array<double>& integrals, long long summed,
                                              bool every_subdomain)
{
    return device_region_integrals(mesh, integrals, summed, every_subdomain);
}

std::string region_name(const Mesh& mesh, int tag)
{
    for (const PhysicalGroup& g : mesh.subdomains)
        if (g.tag == tag && g.dim == mesh.dim) return g.name;
    return tag != 0 ? std::to_string(tag) : std::string();  // a group without a name
}

template <typename V>
SolutionFluxes fe_fluxes(const Mesh& mesh, const ProblemSpec& problem, const Array<V>& u, FluxScope scope,
                         const FluxFieldOptions& fields)
{
    const std::size_t summed_nodes = scope.owned_nodes >= 0 ? static_cast<std::size_t>(scope.owned_nodes) : u.size();
    const long long summed_cells = scope.own_cells >= 0 ? scope.own_cells : mesh.num_cells();
    const ExecPtr& exec = u.executor();
    StageLaps laps;
    FluxBlocks blocks(mesh);
    const std::size_t n = u.size(), cells_total = static_cast<std::size_t>(mesh.num_cells());
    CellPass pass{Array<double>(exec, 3 * cells_total), Array<double>(exec, 5 * cells_total),
                  Array<double>(exec, 3 * n), Array<double>(exec, n)};
    // The problem's data at the assembly rule's points, made once for a mesh of one cell type
    // (the cells' means and the Dirichlet residual), freed before the node sums make theirs.
    std::optional<ElementData<V>> whole;
    if (!mesh.is_mixed()) whole.emplace(make_problem_element_data<V>(exec, mesh, problem));
    laps.lap_after(*exec, "element data");
    Array<double> residual(exec, u.size());
    Array<V> load(exec, u.size());
    fill(residual, 0.0), fill(load, V(0));
    const DirichletOwners owners = dirichlet_owners(mesh, problem, exec, u.size());
    laps.lap_after(*exec, "Dirichlet nodes");
    const bool blocks_residual = mesh.is_mixed() && device_copy_on(mesh, exec);
    // Quadrilaterals and hexahedra of degree 2 and up: the means and the Dirichlet rows'
    // residual in one pass by sum factorisation.
    const std::optional<TensorFluxTables<V>> tensor = whole ? TensorFluxTables<V>::make(exec, mesh) : std::nullopt;
    if (tensor)
        GPUFEM_DISPATCH(*exec, tensor_cell_fluxes(*exec, whole->args(), tensor->at_points(), u.data(),
                                                  problem.dirichlet.empty() ? nullptr : owners.mask.data(),
                                                  static_cast<long long>(cells_total), pass.cell_flux.data(),
                                                  pass.integrals.data(), residual.data()));
    else
        add_cell_means(blocks, problem, u, whole ? &*whole : nullptr, static_cast<long long>(cells_total), pass,
                       blocks_residual && !problem.dirichlet.empty() ? owners.mask.data() : nullptr, residual);
    laps.lap("cell means");
    SolutionFluxes out;
    out.cell_fields = column_fields(mesh.dim, pass.cell_flux, cells_total, fields.float32);
    if (fields.cells_ready) fields.cells_ready(out.cell_fields);
    laps.lap("cell fields");
    out.report.method = "finite elements: Dirichlet groups by the residual of the unconstrained system at their "
                        "nodes, Neumann -int g, Robin int h (u - u_inf)";
    out.report.regions = device_region_integrals(mesh, pass.integrals, summed_cells, scope.partial());
    laps.lap("regions");
    if (!problem.dirichlet.empty() && !blocks_residual && !tensor)
        add_dirichlet_residual(mesh, problem, owners.mask, u, whole ? &*whole : nullptr, residual);
    exec->synchronize();  // the laps time what the device did
    laps.lap("their residual");
    whole.reset();
    fill(pass.node_sum, 0.0), fill(pass.node_weight, 0.0);
    add_node_sums(blocks, problem, u, tensor ? &*tensor : nullptr, pass, laps);
    laps.lap("node sums");
    const MeshOnExec on_exec(mesh, exec);
    natural_group_fluxes(mesh, problem, u, on_exec.coordinates, summed_nodes, residual, load, out.report);
    exec->synchronize();
    laps.lap("natural groups");
    if (!problem.dirichlet.empty())
        dirichlet_group_fluxes(problem, owners, summed_nodes, residual, load, out.report);
    laps.lap("Dirichlet groups");
    out.point_fields = node_mean_fields(mesh.dim, pass.node_sum, pass.node_weight, fields.float32, fields.equispaced);
    laps.lap("point fields");
    spdlog::debug("fluxes: {}", laps.text);
    return out;
}

template SolutionFluxes fe_fluxes(const Mesh&, const ProblemSpec&, const Array<float>&, FluxScope,
                                  const FluxFieldOptions&);
template SolutionFluxes fe_fluxes(const Mesh&, const ProblemSpec&, const Array<double>&, FluxScope,
                                  const FluxFieldOptions&);

}  // namespace gpufem
