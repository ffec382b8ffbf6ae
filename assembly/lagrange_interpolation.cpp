#include "assembly/lagrange_interpolation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "assembly/interpolation_kernels.hpp"
#include "assembly/reference_element.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/structured_shapes.hpp"

namespace gpufem {
namespace {

/// Whether lagrange_space takes degree c on degree-k cells of `type`: c divides k, or on a box
/// c < k and no i k / c (0 < i < c) lies at a half between two integers.
bool lattice_fits(ElementType type, int k, int c)
{
    if (c >= 1 && k % c == 0) return true;
    if (is_simplex_type(type)) return c == 2 && k % 2 == 1;
    if (!is_box_type(type) || c < 2 || c >= k) return false;
    for (int i = 1; i < c; ++i)
        if ((2 * i * k) % (2 * c) == c) return false;
    return true;
}

/// The degree-k lattice coordinate (of a box's [-1, 1]) nearest x.
double nearest_lattice_coordinate(double x, int k)
{
    return 2.0 * std::round((x + 1.0) * k / 2.0) / k - 1.0;
}

/// Reference points as the matching below compares them: a simplex's in barycentric
/// coordinates (each edge's midpoint then nearer its own edge's nodes than any face's).
std::vector<double> matching_coordinates(ElementType type, std::vector<double> points, int dim)
{
    if (!is_simplex_type(type)) return points;
    std::vector<double> out;
    for (std::size_t p = 0; p < points.size(); p += dim) {
        double rest = 1;
        for (int d = 0; d < dim; ++d) rest -= points[p + d];
        out.insert(out.end(), points.begin() + p, points.begin() + p + dim);
        out.push_back(rest);
    }
    return out;
}

/// For each local node of the degree-k element: the local index of the degree-c node at the
/// same lattice point, or -1 (lattice_fits: the degree-c lattice is part of the degree-k one,
/// or on a box each of its coordinates is rounded to the nearest degree-k one). Matched by the
/// equispaced positions: a degree-c unknown sits on the mesh node of its lattice point (from
/// degree 5, or where c does not divide k, elsewhere than the degree-c node; the transfer
/// still evaluates the degree-c basis where the degree-k nodes are). On a simplex of odd
/// degree k, a degree-2 edge midpoint is between two degree-k nodes: both take its index.
std::vector<int> coarse_local_nodes(ElementType type, int k, int c)
{
    const int dim = element_dimension(type);
    std::vector<double> coarse = c == 1 ? reference_nodes(type) : equispaced_reference_nodes(type, c);
    if (is_box_type(type))
        for (double& x : coarse) x = nearest_lattice_coordinate(x, k);
    const std::size_t nc = coarse.size() / dim;
    const std::vector<double> fine = matching_coordinates(type, equispaced_reference_nodes(type, k), dim);
    coarse = matching_coordinates(type, std::move(coarse), dim);
    const std::size_t width = coarse.size() / nc, nf = fine.size() / width;
    std::vector<int> match(nf, -1);
    for (std::size_t m = 0; m < nc; ++m) {
        std::vector<double> distance(nf, 0.0);
        for (std::size_t j = 0; j < nf; ++j)
            for (std::size_t d = 0; d < width; ++d) distance[j] += std::abs(fine[j * width + d] - coarse[m * width + d]);
        const double nearest = *std::min_element(distance.begin(), distance.end());
        std::size_t found = 0;
        for (std::size_t j = 0; j < nf; ++j)
            if (distance[j] < nearest + 1e-9 && match[j] < 0) {
                match[j] = static_cast<int>(m);
                ++found;
            }
        if (found != (nearest < 1e-9 ? 1u : 2u) || (nearest >= 1e-9 && !is_simplex_type(type)))
            throw std::logic_error("lagrange_space: the degree-" + std::to_string(c) + " nodes of a " +
                                   element_type_name(type) + " do not lie on distinct degree-" + std::to_string(k) +
                                   " nodes");
    }
    return match;
}

/// The degree-c positions of a space on exec, and the view the kernels read (with the cells'
/// types on a mesh of several).
struct SubspaceOnExec {
    Array<int> fine_local;
    Array<int> fine_twin;
    Array<std::uint8_t> cell_types;
    CoarseLatticeView view;

    SubspaceOnExec(const Mesh& mesh, const MeshOnExec& on_exec, const LagrangeSpace& space, const ExecPtr& exec)
        : fine_local(Array<int>::from_host(exec, space.embedding.fine_local))
    {
        if (space.embedding.per_cell_type)
            cell_types = Array<std::uint8_t>::from_host(
                exec, std::span<const std::uint8_t>(mesh.cell_types.data(), mesh.cell_types.size()));
        if (!space.embedding.fine_twin.empty()) {
            if (!on_exec.coordinates)
                throw std::logic_error("lagrange_space: the degree-" + std::to_string(space.degree()) +
                                       " space of mesh '" + mesh.source + "' needs its coordinates");
            fine_twin = Array<int>::from_host(exec, space.embedding.fine_twin);
            view.fine_twin = fine_twin.data();
            view.coordinates = on_exec.coordinates;
        }
        view.cells = on_exec.cells;
        view.num_cells = mesh.num_cells();
        view.nodes_per_cell = mesh.nodes_per_cell;
        view.num_nodes = mesh.num_nodes();
        view.fine_local = fine_local.data();
        view.coarse_per_cell = space.dofs_per_cell;
        view.cell_types = space.embedding.per_cell_type ? cell_types.data() : nullptr;
    }
};

/// How the degree-c element sits in the degree-k element of `type` (lattice_fits).
LagrangeEmbedding lagrange_embedding(ElementType type, int k, int c)
{
    const int dim = element_dimension(type);
    const std::vector<int> coarse_of = coarse_local_nodes(type, k, c);
    const int npc = static_cast<int>(coarse_of.size());
    const int ncl = 1 + *std::max_element(coarse_of.begin(), coarse_of.end());
    LagrangeEmbedding embedding;
    std::vector<int>& fine_of = embedding.fine_local;  // local degree-k index of each degree-c node
    std::vector<int> twin_of(static_cast<std::size_t>(ncl), -1);  // the second one, where it is between two
    fine_of.assign(static_cast<std::size_t>(ncl), -1);
    for (int j = 0; j < npc; ++j)
        if (coarse_of[j] >= 0) (fine_of[coarse_of[j]] < 0 ? fine_of : twin_of)[coarse_of[j]] = j;
    if (std::any_of(twin_of.begin(), twin_of.end(), [](int j) { return j >= 0; }))
        embedding.fine_twin = std::move(twin_of);
    // The degree-c basis at each degree-k reference node, once per local node.
    const std::vector<double> xi = lagrange_reference_nodes(type, k);
    embedding.weights.assign(static_cast<std::size_t>(npc) * ncl, 0.0);
    if (c == 1) {
        std::vector<double> gradients(static_cast<std::size_t>(ncl) * dim);
        for (int j = 0; j < npc; ++j)
            lagrange1_basis(type, &xi[static_cast<std::size_t>(j) * dim],
                            &embedding.weights[static_cast<std::size_t>(j) * ncl], gradients.data());
    } else {
        std::vector<double> gradients;
        lagrange_basis(type, c, xi, embedding.weights, gradients);
    }
    return embedding;
}

/// lagrange_embedding(type, k, c) with the rows a transfer into the degree-f space reads (c < f,
/// both lattice_fits under k) made exact: at each degree-k node on the degree-f lattice, the degree-c
/// basis at the degree-f element's own node there. From degree 5 on boxes the degree-f node
/// (a GLL point) is not where the degree-k node is, and the degree-c basis at the degree-k
/// node would not represent a degree-c function in the degree-f space (the chain of transfers
/// would then not be the product of the embeddings the coarse operators are made with).
LagrangeEmbedding embedding_into(ElementType type, int k, int f, int c)
{
    LagrangeEmbedding embedding = lagrange_embedding(type, k, c);
    if (f == k) return embedding;
    const int dim = element_dimension(type);
    const std::size_t ncl = embedding.fine_local.size();
    const std::vector<int> on_f = coarse_local_nodes(type, k, f);
    const std::vector<double> nodes_f = f == 1 ? reference_nodes(type) : lagrange_reference_nodes(type, f);
    for (std::size_t j = 0; j < on_f.size(); ++j) {
        if (on_f[j] < 0) continue;  // a row the transfer never reads
        const std::vector<double> point(nodes_f.begin() + on_f[j] * dim, nodes_f.begin() + (on_f[j] + 1) * dim);
        std::vector<double> values(ncl), gradients(ncl * dim);
        if (c == 1) lagrange1_basis(type, point.data(), values.data(), gradients.data());
        else lagrange_basis(type, c, point, values, gradients);
        std::copy(values.begin(), values.end(), embedding.weights.begin() + j * ncl);
    }
    return embedding;
}

/// The embedding of each cell type of a mesh of several (LagrangeEmbedding's tables per
/// type): npc = the mesh's nodes_per_cell rows of ncl = the most degree-c nodes of its types;
/// with f < k, each type's embedding_into(type, k, f, c).
LagrangeEmbedding embedding_per_cell_type(const Mesh& mesh, int k, int c, int f = 0)
{
    std::vector<std::pair<int, LagrangeEmbedding>> of_type;
    int ncl = 0;
    for (int t = 0; t < element_type_count; ++t)  // a scan of the cells per type of the mesh's dimension
        if (element_dimension(static_cast<ElementType>(t)) == mesh.dim && mesh.has_cells_of(static_cast<ElementType>(t))) {
            of_type.emplace_back(t, embedding_into(static_cast<ElementType>(t), k, f > 0 ? f : k, c));
            ncl = std::max(ncl, static_cast<int>(of_type.back().second.fine_local.size()));
        }
    if (of_type.empty()) throw std::logic_error("lagrange_interpolation: mesh '" + mesh.source + "' has no cells");
    const std::size_t npc = static_cast<std::size_t>(mesh.nodes_per_cell), width = static_cast<std::size_t>(ncl);
    LagrangeEmbedding out;
    out.per_cell_type = true;
    out.fine_local.assign(element_type_count * width, -1);
    out.weights.assign(element_type_count * npc * width, 0.0);
    for (const auto& [t, own] : of_type) {
        const std::size_t n = own.fine_local.size(), rows = own.weights.size() / n, table = static_cast<std::size_t>(t);
        std::copy(own.fine_local.begin(), own.fine_local.end(), out.fine_local.begin() + table * width);
        for (std::size_t j = 0; j < rows; ++j)
            std::copy_n(own.weights.begin() + j * n, n, out.weights.begin() + (table * npc + j) * width);
    }
    return out;
}

/// What of the mesh the spaces of these degrees read on an executor: the cells, and where one
/// is degree 2 under an odd degree on simplices (which names an edge's unknown by its nodes'
/// order) the coordinates.
MeshOnExec::Parts parts_for_spaces(const Mesh& mesh, std::span<const int> degrees)
{
    const bool ordered = has_simplex_cells(mesh) && mesh.degree % 2 == 1 &&
                         std::find(degrees.begin(), degrees.end(), 2) != degrees.end();
    return ordered ? MeshOnExec::Parts::cells_and_coordinates : MeshOnExec::Parts::cells_only;
}

/// The degree-c space of mesh, whose cells and coordinates are on_exec's (see lagrange_space): its
/// unknowns numbered in node order on exec, and its dof map when asked for.
LagrangeSpace space_on(const Mesh& mesh, const MeshOnExec& on_exec, int c, const ExecPtr& exec, bool with_dof_map)
{
    const int k = mesh.degree;
    if (c < 1 || (mesh.is_mixed() ? k % c != 0 : !lattice_fits(mesh.cell_type, k, c)))
        throw std::invalid_argument("lagrange_interpolation: no degree-" + std::to_string(c) + " space on mesh '" +
                                    mesh.source + "' of degree " + std::to_string(k) +
                                    " (a lower degree divides the mesh's, on quadrilaterals and hexahedra is "
                                    "odd under an odd one, on triangles and tetrahedra is 2 under an odd one)");
    LagrangeSpace space;
    space.embedding = mesh.is_mixed() ? embedding_per_cell_type(mesh, k, c) : lagrange_embedding(mesh.cell_type, k, c);
    const int ncl = static_cast<int>(space.embedding.fine_local.size() /
                                     (space.embedding.per_cell_type ? element_type_count : 1));
    space.dofs_per_cell = ncl;
    const Executor& e = *exec;
    const SubspaceOnExec subspace(mesh, on_exec, space, exec);
    const std::size_t n = static_cast<std::size_t>(mesh.num_nodes());
    space.node_dofs = Array<index_type>(exec, n);
    const long long dofs = GPUFEM_DISPATCH(e, number_coarse_nodes(e, subspace.view, space.node_dofs.data()));
    space.dof_nodes = Array<index_type>(exec, static_cast<std::size_t>(dofs));
    GPUFEM_DISPATCH(e, list_coarse_nodes(e, space.node_dofs.data(), static_cast<long long>(n), space.dof_nodes.data()));
    if (with_dof_map) {
        space.cell_dofs = Array<index_type>(exec, static_cast<std::size_t>(mesh.num_cells()) * ncl);
        GPUFEM_DISPATCH(e, coarse_cell_nodes(e, subspace.view, space.node_dofs.data(), space.cell_dofs.data()));
    }
    space.space = {UnknownLocation::nodes, &mesh, c, owned_layout(static_cast<index_type>(dofs))};
    return space;
}

/// The reference interpolation of a coarsening and what the kernels need to read it: tables
/// (one per child index, npc x ncl each) with their kept entries per row, on exec.
struct ReferenceOnExec {
    Array<double> weights;
    Array<int> lengths;
    int longest = 0;  ///< the most kept entries of a row

    ReferenceOnExec(const std::vector<double>& table, int ncl, const ExecPtr& exec)
        : weights(Array<double>::from_host(exec, table))
    {
        std::vector<int> row_length(table.size() / ncl, 0);
        for (std::size_t r = 0; r < row_length.size(); ++r)
            for (int m = 0; m < ncl; ++m) row_length[r] += interpolation_weight_kept(table[r * ncl + m]);
        longest = *std::max_element(row_length.begin(), row_length.end());
        lengths = Array<int>::from_host(exec, row_length);
    }
    ReferenceInterpolationView view() const { return {weights.data(), lengths.data()}; }
};

/// The interpolation into the mesh's space at the mesh nodes row_nodes (null: every mesh
/// node, in order), each row read off the cell slot `owner` gives its node, the coarse nodes
/// found through `view` (column: of the mesh nodes, p-coarsening; unused for h-coarsening).
template <typename V>
Csr<V> interpolation_rows(const std::string& source, const CoarseLatticeView& view, const ReferenceOnExec& reference,
                          const index_type* column, long long columns, const Array<long long>& owner,
                          const index_type* row_nodes, long long rows, const std::string& what, const ExecPtr& exec)
{
    const Executor& e = *exec;
    if (rows * reference.longest > std::numeric_limits<index_type>::max())
        throw std::overflow_error("lagrange_interpolation: up to " + std::to_string(rows * reference.longest) +
                                  " entries of the " + what + " interpolation of mesh '" + source +
                                  "' do not fit 32-bit row offsets");
    Array<index_type> ptr(exec, static_cast<std::size_t>(rows) + 1);
    const long long nnz = GPUFEM_DISPATCH(
        e, interpolation_row_offsets(e, view, owner.data(), row_nodes, rows, reference.lengths.data(), ptr.data()));
    Array<index_type> col(exec, static_cast<std::size_t>(nnz));
    Array<V> val(exec, static_cast<std::size_t>(nnz));
    GPUFEM_DISPATCH(e, interpolation_entries(e, view, reference.view(), owner.data(), row_nodes, rows, column,
                                             ptr.data(), col.data(), val.data()));
    return Csr<V>{static_cast<index_type>(rows), static_cast<index_type>(columns), std::move(ptr), std::move(col),
                  std::move(val)};
}

/// The interpolation from the degree-c `space` (see interpolation_rows), its rows read off
/// `weights` (space's embedding, or for a transfer into a lower degree than the mesh's, the
/// embedding_into that degree's space).
template <typename V>
Csr<V> space_interpolation_rows(const Mesh& mesh, const MeshOnExec& on_exec, const LagrangeSpace& space,
                                const std::vector<double>& weights, const Array<long long>& owner,
                                const index_type* row_nodes, long long rows, const ExecPtr& exec)
{
    const SubspaceOnExec lattice(mesh, on_exec, space, exec);
    return interpolation_rows<V>(mesh.source, lattice.view, ReferenceOnExec(weights, space.dofs_per_cell, exec),
                                 space.node_dofs.data(), static_cast<long long>(space.dof_nodes.size()), owner,
                                 row_nodes, rows, "degree-" + std::to_string(space.degree()), exec);
}

/// The cells of a mesh (or of a first-order level below it) as the kernels read them.
CoarseLatticeView cells_view(const index_type* cells, long long num_cells, int nodes_per_cell, long long num_nodes)
{
    CoarseLatticeView view;
    view.cells = cells;
    view.num_cells = num_cells;
    view.nodes_per_cell = nodes_per_cell;
    view.num_nodes = num_nodes;
    return view;
}

CoarseLatticeView cells_view(const Mesh& mesh, const index_type* cells)
{
    return cells_view(cells, mesh.num_cells(), mesh.nodes_per_cell, mesh.num_nodes());
}

/// The first cell slot of every node of the cells (see node_owner_slots), on exec.
Array<long long> node_owners(const CoarseLatticeView& cells, const ExecPtr& exec)
{
    Array<long long> owner(exec, static_cast<std::size_t>(cells.num_nodes));
    GPUFEM_DISPATCH(*exec, node_owner_slots(*exec, cells, owner.data()));
    return owner;
}

/// The interpolation from a coarser first-order mesh (`coarse`: the coarsening of `cells`,
/// their nodes the rows) into the space of the first-order cells.
template <typename V>
Csr<V> coarsening_rows(const std::string& source, CoarseLatticeView view, const GridCoarsening& coarse,
                       const ExecPtr& exec)
{
    const Array<long long> owner = node_owners(view, exec);
    view.coarse_per_cell = coarse.nodes_per_cell;
    view.coarse_cells = coarse.coarse_cells.data();
    view.parent = coarse.parent.data();
    view.child = coarse.child.data();
    return interpolation_rows<V>(source, view, ReferenceOnExec(coarse.weights, coarse.nodes_per_cell, exec), nullptr,
                                 coarse.coarse_nodes, owner, nullptr, view.num_nodes, "coarser mesh's", exec);
}

/// Appends to chain the transfers down the refinements by gpufem that made the first-order
/// cells `level` (of `type`; `from`: the last refinement's parents, each holding the one
/// before): to the parent mesh, then to its parent, ..., to the mesh gpufem refined first.
template <typename V>
void append_refinement_levels(std::vector<Csr<V>>& chain, ElementType type, CoarseLatticeView level,
                              const RefinementParents* from, const std::string& source, const ExecPtr& exec)
{
    Array<index_type> cells;  // the current level's cells on exec (the first: the caller's)
    for (; from; from = from->previous.get()) {
        GridCoarsening coarse = parent_coarsening(type, level.num_cells, *from, exec);
        chain.push_back(coarsening_rows<V>(source, level, coarse, exec));
        cells = std::move(coarse.coarse_cells);
        level = cells_view(cells.data(), static_cast<long long>(from->pattern.size()), level.nodes_per_cell,
                           from->parent_nodes);
    }
}

/// Appends to chain the transfers down a generated grid's halvings from the first-order grid
/// `level` (its cells `cells`, on exec): the grid of half the boxes, then of a quarter, ...,
/// while the boxes per unit length stay even and at least 4 (can_coarsen_grid).
template <typename V>
void append_grid_levels(std::vector<Csr<V>>& chain, GridLevel level, CoarseLatticeView cells,
                        const std::string& source, const ExecPtr& exec)
{
    Array<index_type> coarse_cells;  // the current level's cells on exec (the first: the caller's)
    while (can_coarsen_grid(level)) {
        GridCoarsening coarse = coarsen_grid(level, exec);
        chain.push_back(coarsening_rows<V>(source, cells, coarse, exec));
        GridLevel next = next_grid_level(level, coarse);
        coarse_cells = std::move(coarse.coarse_cells);
        cells = cells_view(coarse_cells.data(), next.num_cells, next.nodes_per_cell, next.num_nodes);
        level = std::move(next);
    }
}

/// Whether the mesh has levels below its degree-1 space: the refinements by gpufem that made
/// its first-order cells (Mesh::refined_from; a degree-k mesh numbered from them keeps them),
/// or a generated grid's halvings.
bool has_h_levels(const Mesh& mesh)
{
    return !mesh.is_mixed() &&
           (mesh.refined_from ||
            can_coarsen_grid(mesh.generated_grid.shape, mesh.generated_grid.boxes_per_unit, mesh.cell_type, 1));
}

/// Appends the transfers below the mesh's degree-1 space, whose cells are `level` (its nodes:
/// the mesh's vertices in node order; has_h_levels must hold): down the refinements, or down
/// the grid's halvings.
template <typename V>
void append_h_levels(std::vector<Csr<V>>& chain, const Mesh& mesh, const CoarseLatticeView& level,
                     const ExecPtr& exec)
{
    if (mesh.refined_from) {
        append_refinement_levels(chain, mesh.cell_type, level, mesh.refined_from.get(), mesh.source, exec);
        return;
    }
    const GridLevel grid = grid_level(mesh);
    if (grid.num_nodes != level.num_nodes)
        throw std::logic_error("pmg_interpolations: the degree-1 space of mesh '" + mesh.source +
                               "' does not number its generated grid's vertices");
    append_grid_levels(chain, grid, level, mesh.source, exec);
}

}  // namespace

LagrangeSpace lagrange_space(const Mesh& mesh, int c, const ExecPtr& exec, bool with_dof_map)
{
    const MeshOnExec on_exec(mesh, exec, parts_for_spaces(mesh, std::span<const int>(&c, 1)));
    return space_on(mesh, on_exec, c, exec, with_dof_map);
}

template <typename V>
Csr<V> lagrange_interpolation(const Mesh& mesh, int coarse_degree, const ExecPtr& exec)
{
    const MeshOnExec on_exec(mesh, exec, parts_for_spaces(mesh, std::span<const int>(&coarse_degree, 1)));
    const LagrangeSpace space = space_on(mesh, on_exec, coarse_degree, exec, false);
    return space_interpolation_rows<V>(mesh, on_exec, space, space.embedding.weights,
                                       node_owners(cells_view(mesh, on_exec.cells), exec), nullptr, mesh.num_nodes(),
                                       exec);
}

template <typename V>
Csr<V> grid_interpolation(const Mesh& mesh, const GridCoarsening& coarse, const ExecPtr& exec)
{
    const MeshOnExec on_exec(mesh, exec, MeshOnExec::Parts::cells_only);
    return coarsening_rows<V>(mesh.source, cells_view(mesh, on_exec.cells), coarse, exec);
}

template <typename V>
std::vector<Csr<V>> pmg_interpolations(const Mesh& mesh, const ExecPtr& exec, bool with_first,
                                       std::span<const int> degrees)
{
    std::vector<Csr<V>> chain;
    const bool h_levels = has_h_levels(mesh);
    if (mesh.degree <= 1) {
        if (h_levels) {
            const MeshOnExec on_exec(mesh, exec, MeshOnExec::Parts::cells_only);
            append_h_levels(chain, mesh, cells_view(mesh, on_exec.cells), exec);
        }
        return chain;
    }
    // Below degree 1 the h-levels start from the degree-1 space's cells (its nodes are the
    // vertices: the refined mesh's nodes, or the grid's points, in node order).
    std::vector<DegreeLevel<V>> levels = degree_levels<V>(mesh, exec, h_levels, with_first, degrees);
    for (std::size_t l = with_first ? 0 : 1; l < levels.size(); ++l) chain.push_back(std::move(levels[l].transfer));
    const LagrangeSpace& coarsest = levels.back().space;
    if (h_levels && coarsest.degree() == 1)
        append_h_levels(chain, mesh,
                        cells_view(coarsest.cell_dofs.data(), mesh.num_cells(), coarsest.dofs_per_cell,
                                   static_cast<long long>(coarsest.dof_nodes.size())),
                        exec);
    return chain;
}

std::vector<std::optional<StructuredGrid>> pmg_coarse_grids(const Mesh& mesh, std::span<const int> degrees)
{
    std::vector<std::optional<StructuredGrid>> out;
    const bool h_levels = has_h_levels(mesh);
    if (mesh.degree > 1) out.assign(pmg_degrees_or_default(mesh, degrees).size(), std::nullopt);
    if (!h_levels) return out;
    if (mesh.refined_from) {
        for (const RefinementParents* from = mesh.refined_from.get(); from; from = from->previous.get())
            out.emplace_back(std::nullopt);
        return out;
    }
    GridLevel level = grid_level(mesh);
    while (can_coarsen_grid(level)) {
        const long long coarse = level.boxes_per_unit / 2;
        out.emplace_back(box_grid(level.shape, coarse, 1));
        level.boxes_per_unit = coarse;
    }
    return out;
}

template <typename V>
std::vector<DegreeLevel<V>> degree_levels(const Mesh& mesh, const ExecPtr& exec, bool degree_one_dof_map,
                                          bool with_first, std::span<const int> degrees)
{
    std::vector<DegreeLevel<V>> levels;
    if (mesh.degree <= 1) return levels;
    const std::vector<int> lower = pmg_degrees_or_default(mesh, degrees);
    const MeshOnExec on_exec(mesh, exec, parts_for_spaces(mesh, lower));
    const Array<long long> owner = node_owners(cells_view(mesh, on_exec.cells), exec);
    // Each coarser transfer in the finer coarse space's numbering: the rows of the mesh's
    // interpolation from that degree at the finer space's nodes, the coarse basis evaluated at
    // the finer element's own nodes (a lower-degree function is represented exactly in every
    // higher-degree space of the same mesh, and the chain is the product of the embeddings).
    for (const int degree : lower) {
        LagrangeSpace space = space_on(mesh, on_exec, degree, exec, degree_one_dof_map && degree == 1);
        const bool first = levels.empty();
        if (first && !with_first) {
            levels.push_back({Csr<V>{}, std::move(space)});
            continue;
        }
        const int finer = first ? mesh.degree : levels.back().space.degree();
        const std::vector<double> weights =
            first ? space.embedding.weights
                  : (mesh.is_mixed() ? embedding_per_cell_type(mesh, mesh.degree, degree, finer)
                                     : embedding_into(mesh.cell_type, mesh.degree, finer, degree))
                        .weights;
        Csr<V> transfer = space_interpolation_rows<V>(
            mesh, on_exec, space, weights, owner, first ? nullptr : levels.back().space.dof_nodes.data(),
            first ? mesh.num_nodes() : static_cast<long long>(levels.back().space.dof_nodes.size()), exec);
        levels.push_back({std::move(transfer), std::move(space)});
    }
    return levels;
}

template Csr<float> lagrange_interpolation(const Mesh&, int, const ExecPtr&);
template Csr<double> lagrange_interpolation(const Mesh&, int, const ExecPtr&);
template Csr<float> grid_interpolation(const Mesh&, const GridCoarsening&, const ExecPtr&);
template Csr<double> grid_interpolation(const Mesh&, const GridCoarsening&, const ExecPtr&);
template std::vector<Csr<float>> pmg_interpolations(const Mesh&, const ExecPtr&, bool, std::span<const int>);
template std::vector<Csr<double>> pmg_interpolations(const Mesh&, const ExecPtr&, bool, std::span<const int>);
template std::vector<DegreeLevel<float>> degree_levels(const Mesh&, const ExecPtr&, bool, bool, std::span<const int>);
template std::vector<DegreeLevel<double>> degree_levels(const Mesh&, const ExecPtr&, bool, bool, std::span<const int>);

}  // namespace gpufem
