#include "mesh/grid_coarsening.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mesh/lagrange_basis.hpp"
#include "mesh/lattice_kernels.hpp"
#include "mesh/lattice_table.hpp"
#include "mesh/shapes/cell_shape.hpp"
#include "mesh/structured_grid.hpp"
#include "mesh/structured_shapes.hpp"

namespace gpufem {

bool can_coarsen_grid(const std::string& shape, long long boxes_per_unit, ElementType type, int degree)
{
    return !shape.empty() && degree == 1 && !cell_shape(type).grid_box_cells.empty() && boxes_per_unit >= 4 && boxes_per_unit % 2 == 0;
}

bool can_coarsen_grid(const Mesh& mesh)
{
    if (mesh.is_mixed() || mesh.degree != 1) return false;
    return mesh.refined_from || can_coarsen_grid(mesh.generated_grid.shape, mesh.generated_grid.boxes_per_unit,
                                                 mesh.cell_type, mesh.degree);
}

namespace {

/// The first-order basis of a cell with corners `corners` (dim coordinates each, box units)
/// at point x: the bilinear / trilinear products for boxes, barycentric coordinates for
/// simplices (dim + 1 corners).
std::vector<double> corner_basis(const std::vector<std::array<double, 3>>& corners, bool simplex, int dim,
                                 const std::array<double, 3>& x)
{
    const std::size_t n = corners.size();
    std::vector<double> w(n, 1.0);
    if (!simplex) {
        for (std::size_t m = 0; m < n; ++m)
            for (int a = 0; a < dim; ++a) w[m] *= 1 - std::abs(x[a] - corners[m][a]);
        return w;
    }
    // x - v0 = sum_k lambda_k (v_k - v0), by Cramer's rule on the dim x dim system.
    double j[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    double r[3] = {0, 0, 0};
    for (int a = 0; a < dim; ++a) {
        for (int k = 0; k < dim; ++k) j[a][k] = corners[static_cast<std::size_t>(k) + 1][a] - corners[0][a];
        r[a] = x[a] - corners[0][a];
    }
    const auto det = [](const double m[3][3]) {
        return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
               m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    };
    const double d = det(j);
    double sum = 0;
    for (int k = 0; k < dim; ++k) {
        double jk[3][3];
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) jk[a][b] = b == k ? (a < dim ? r[a] : 0.0) : j[a][b];
        w[static_cast<std::size_t>(k) + 1] = det(jk) / d;
        sum += w[static_cast<std::size_t>(k) + 1];
    }
    w[0] = 1 - sum;
    return w;
}

}  // namespace

GridCoarsening parent_coarsening(ElementType type, long long num_cells, const RefinementParents& from,
                                 const ExecPtr& exec)
{
    const int npc = element_node_count(type);
    if (from.children <= 0 || num_cells != static_cast<long long>(from.pattern.size()) * from.children ||
        static_cast<long long>(from.parent_cells.size()) != static_cast<long long>(from.pattern.size()) * npc)
        throw std::logic_error("parent_coarsening: the cells are not the children of the parents' refinement");
    const RefinementPattern& pattern = refinement_pattern(type, 1);
    const std::vector<double> lattice = lagrange_reference_nodes(type, 2);
    const int patterns = static_cast<int>(pattern.children.size());
    GridCoarsening out;
    out.coarse_nodes = from.parent_nodes;
    out.nodes_per_cell = npc;
    out.children = patterns * from.children;
    out.weights.resize(static_cast<std::size_t>(out.children) * npc * npc);
    std::vector<double> basis, gradients;  // the first-order basis at every order-2 lattice point
    lagrange_basis(type, 1, lattice, basis, gradients);
    for (int p = 0; p < patterns; ++p)
        for (int s = 0; s < from.children; ++s)
            for (int k = 0; k < npc; ++k) {
                const int q = pattern.children[static_cast<std::size_t>(p)][static_cast<std::size_t>(s)][static_cast<std::size_t>(k)];
                double* w = &out.weights[(static_cast<std::size_t>(p * from.children + s) * npc + k) * npc];
                for (int m = 0; m < npc; ++m) {
                    const double v = basis[static_cast<std::size_t>(q) * npc + m];
                    w[m] = std::abs(v) < 1e-14 ? 0.0 : v;
                }
            }
    out.coarse_cells = from.parent_cells.clone_to(exec);
    const Array<std::uint8_t> chosen = from.pattern.clone_to(exec);
    out.parent = Array<index_type>(exec, static_cast<std::size_t>(num_cells));
    out.child = Array<std::uint8_t>(exec, static_cast<std::size_t>(num_cells));
    GPUFEM_DISPATCH(*exec, refinement_children(*exec, num_cells, from.children, chosen.data(), out.parent.data(),
                                               out.child.data()));
    return out;
}

GridLevel grid_level(const Mesh& mesh)
{
    if (mesh.generated_grid.shape.empty() || mesh.is_mixed())
        throw std::invalid_argument("grid_level: mesh '" + mesh.source + "' was not generated on a box grid by gpufem");
    GridLevel level;
    level.shape = mesh.generated_grid.shape;
    level.boxes_per_unit = mesh.generated_grid.boxes_per_unit;
    level.cell_type = mesh.cell_type;
    level.nodes_per_cell = element_node_count(mesh.cell_type);
    level.num_cells = mesh.num_cells();
    const StructuredGrid grid = box_grid(level.shape, level.boxes_per_unit, mesh.degree);
    const StructuredGrid vertices = box_grid(level.shape, level.boxes_per_unit, 1);
    level.num_nodes = vertices.num_points();
    if (grid.num_boxes() == 0 || level.num_cells % grid.num_boxes() != 0 || grid.num_points() != mesh.num_nodes())
        throw std::logic_error("grid_level: mesh '" + mesh.source + "' does not match its generated grid");
    const int per_box = static_cast<int>(level.num_cells / grid.num_boxes());
    // Box 0's cells' corners (the first nodes of each cell, Gmsh's order), as vertex numbers.
    for (int c = 0; c < per_box; ++c)
        for (int j = 0; j < level.nodes_per_cell; ++j) {
            long long p[3];
            grid.point(mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell + j], p);
            level.first_box.push_back(static_cast<index_type>(
                vertices.point_index(p[0] / mesh.degree, p[1] / mesh.degree, p[2] / mesh.degree)));
        }
    return level;
}

GridLevel next_grid_level(const GridLevel& level, const GridCoarsening& coarse)
{
    GridLevel next = level;
    next.boxes_per_unit = coarse.coarse_boxes_per_unit;
    next.num_cells = static_cast<long long>(coarse.coarse_cells.size()) / coarse.nodes_per_cell;
    next.num_nodes = coarse.coarse_nodes;
    // The coarse grid's cells follow box 0's pattern (fill_structured_mesh), so box 0 of the
    // coarser grid is read off its first cells (only those come to the host).
    next.first_box.resize(level.first_box.size());
    if (coarse.coarse_cells.size() < next.first_box.size())
        throw std::logic_error("next_grid_level: the coarser grid has fewer cells than one box");
    static const ExecPtr host = Executor::create_cpu();
    copy_bytes(*host, next.first_box.data(), *coarse.coarse_cells.executor(), coarse.coarse_cells.data(),
               next.first_box.size() * sizeof(index_type));
    return next;
}

bool can_coarsen_grid(const GridLevel& level)
{
    return can_coarsen_grid(level.shape, level.boxes_per_unit, level.cell_type, 1);
}

GridCoarsening coarsen_grid(const Mesh& mesh, const ExecPtr& exec)
{
    if (!can_coarsen_grid(mesh))
        throw std::invalid_argument("coarsen_grid: mesh '" + mesh.source +
                                    "' is neither a first-order grid of boxes generated by gpufem with an even "
                                    "number of boxes per unit length nor a first-order mesh refined by gpufem");
    if (mesh.refined_from) return parent_coarsening(mesh.cell_type, mesh.num_cells(), *mesh.refined_from, exec);
    return coarsen_grid(grid_level(mesh), exec);
}

GridCoarsening coarsen_grid(const GridLevel& level, const ExecPtr& exec)
{
    if (!can_coarsen_grid(level))
        throw std::invalid_argument("coarsen_grid: a grid of " + std::to_string(level.boxes_per_unit) +
                                    " boxes per unit length has no coarser grid of half the boxes");
    const StructuredGrid fine = box_grid(level.shape, level.boxes_per_unit, 1);
    const StructuredGrid coarse = box_grid(level.shape, level.boxes_per_unit / 2, 1);
    const int npc = level.nodes_per_cell;
    const int dim = fine.dim;
    const bool simplex = cell_shape(level.cell_type).simplex;
    if (fine.num_boxes() == 0 || level.num_cells % fine.num_boxes() != 0 || fine.num_points() != level.num_nodes ||
        static_cast<long long>(level.first_box.size()) != level.num_cells / fine.num_boxes() * npc)
        throw std::logic_error("coarsen_grid: a grid level does not match its generated grid");
    const int per_box = static_cast<int>(level.num_cells / fine.num_boxes());

    // The box's cells' corners in Gmsh's order, read off the first box (its lowest corner is
    // lattice point 0): every box of the grid, fine or coarse, has the same.
    std::vector<int> offsets(static_cast<std::size_t>(3 * per_box * npc));
    std::vector<std::vector<std::array<double, 3>>> corners(static_cast<std::size_t>(per_box));
    for (int s = 0; s < per_box; ++s)
        for (int j = 0; j < npc; ++j) {
            long long p[3];
            fine.point(level.first_box[static_cast<std::size_t>(s) * npc + j], p);
            std::array<double, 3> x{};
            for (int axis = 0; axis < 3; ++axis) {
                offsets[3 * (s * npc + j) + axis] = static_cast<int>(p[axis]);
                x[axis] = static_cast<double>(p[axis]);
            }
            corners[static_cast<std::size_t>(s)].push_back(x);
        }

    GridCoarsening out;
    out.coarse_nodes = coarse.num_points();
    out.coarse_boxes_per_unit = coarse.n;
    out.nodes_per_cell = npc;
    out.children = per_box << dim;
    // Child type t = s 2^dim + bits: cell s of the fine box at the corner `bits` of the coarse
    // box. Its nodes lie at (bits + corner) / 2 in the coarse box; the coarse cell S holding its
    // centroid (they nest: the finer grid's cells split the coarser one's) gives the weights,
    // its first-order basis there.
    std::vector<int> coarse_cell_of_child(static_cast<std::size_t>(out.children), -1);
    out.weights.resize(static_cast<std::size_t>(out.children) * npc * npc);
    for (int t = 0; t < out.children; ++t) {
        const int s = t >> dim;
        std::vector<std::array<double, 3>> nodes;
        std::array<double, 3> centroid{};
        for (int j = 0; j < npc; ++j) {
            std::array<double, 3> x{};
            for (int axis = 0; axis < dim; ++axis) {
                x[axis] = 0.5 * (((t >> axis) & 1) + corners[static_cast<std::size_t>(s)][static_cast<std::size_t>(j)][axis]);
                centroid[axis] += x[axis] / npc;
            }
            nodes.push_back(x);
        }
        for (int c = 0; c < per_box && coarse_cell_of_child[static_cast<std::size_t>(t)] < 0; ++c) {
            const std::vector<double> at_centroid = corner_basis(corners[static_cast<std::size_t>(c)], simplex, dim, centroid);
            if (*std::min_element(at_centroid.begin(), at_centroid.end()) > 1e-9)
                coarse_cell_of_child[static_cast<std::size_t>(t)] = c;
        }
        const int c = coarse_cell_of_child[static_cast<std::size_t>(t)];
        if (c < 0) throw std::logic_error("coarsen_grid: a cell of the finer grid lies in no cell of the coarser one");
        for (int j = 0; j < npc; ++j) {
            const std::vector<double> w = corner_basis(corners[static_cast<std::size_t>(c)], simplex, dim, nodes[static_cast<std::size_t>(j)]);
            for (int m = 0; m < npc; ++m) {
                if (w[static_cast<std::size_t>(m)] < -1e-12)
                    throw std::logic_error("coarsen_grid: a node of the finer grid lies outside its coarse cell");
                out.weights[(static_cast<std::size_t>(t) * npc + j) * npc + m] =
                    std::abs(w[static_cast<std::size_t>(m)]) < 1e-14 ? 0.0 : w[static_cast<std::size_t>(m)];
            }
        }
    }

    const Executor& e = *exec;
    const Array<int> patterns = Array<int>::from_host(exec, offsets);
    const Array<int> coarse_cells_of_children = Array<int>::from_host(exec, coarse_cell_of_child);
    out.coarse_cells = Array<index_type>(exec, static_cast<std::size_t>(coarse.num_boxes()) * per_box * npc);
    GPUFEM_DISPATCH(e, fill_structured_mesh(e, coarse, patterns.data(), per_box, npc, nullptr, out.coarse_cells.data()));
    out.parent = Array<index_type>(exec, static_cast<std::size_t>(level.num_cells));
    out.child = Array<std::uint8_t>(exec, static_cast<std::size_t>(level.num_cells));
    GPUFEM_DISPATCH(e, nested_box_parents(e, fine, coarse, per_box, coarse_cells_of_children.data(), out.parent.data(),
                                          out.child.data()));
    return out;
}

}  // namespace gpufem
