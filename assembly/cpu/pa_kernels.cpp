// The partial-assembly kernels on the CPU: the readable reference. An apply takes one cell at
// a time: the reference gradients (and values) of x at the quadrature points by
// one-dimensional contractions, the stored factors at each point, the transposed
// contractions back to the nodes.
#include <algorithm>
#include <array>
#include <vector>

#include "assembly/pa_kernels.hpp"
#include "assembly/pa_point_math.hpp"
#include "assembly/cpu/tensor_contraction.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// The tables applied along each direction: the derivative along derivative_dir, the basis
/// along the others (derivative_dir < 0: the basis everywhere).
template <typename V>
std::array<const V*, 3> tables_for(const PaArgs<V>& a, int derivative_dir)
{
    std::array<const V*, 3> t{};
    for (int c = 0; c < 3; ++c) t[c] = c == derivative_dir ? a.derivative : a.basis;
    return t;
}

/// The tensor product of the tables (one per direction) applied to in: nodes to points, or
/// transposed points to nodes.
template <typename V>
std::vector<V> tensor_apply(const PaArgs<V>& a, const std::array<const V*, 3>& tables, bool transposed,
                            std::vector<V> values)
{
    std::array<int, 3> extent{1, 1, 1};
    for (int c = 0; c < a.dim; ++c) extent[c] = transposed ? a.q1 : a.p1;
    for (int c = 0; c < a.dim; ++c) values = contract_1d(tables[c], a.q1, a.p1, transposed, c, extent, values);
    return values;
}

/// Cells whose node values are computed in parallel before they are added, in cell order (the
/// same sums on any number of threads).
constexpr index_type chunk_cells = 256;

/// For each chunk of cells: cell_values(e) (one value per lexicographic node) in parallel, then
/// add(e, values) cell after cell.
template <typename V, typename CellValues, typename Add>
void cells_in_chunks(const PaArgs<V>& a, index_type begin, index_type end, CellValues&& cell_values, Add&& add)
{
    std::vector<std::vector<V>> values(static_cast<std::size_t>(chunk_cells));
    for (index_type first = begin; first < end; first += chunk_cells) {
        const index_type last = std::min(end, first + chunk_cells);
#pragma omp parallel for schedule(static)
        for (index_type e = first; e < last; ++e) values[static_cast<std::size_t>(e - first)] = cell_values(e);
        for (index_type e = first; e < last; ++e) add(e, values[static_cast<std::size_t>(e - first)]);
    }
}

/// Products of the 1D tables: B B, B D and D D entry by entry (q1 x p1 each).
template <typename V>
struct ProductTables {
    std::vector<V> bb, bd, dd;
    explicit ProductTables(const PaArgs<V>& a)
    {
        const std::size_t n = static_cast<std::size_t>(a.q1) * a.p1;
        for (std::size_t i = 0; i < n; ++i) {
            bb.push_back(a.basis[i] * a.basis[i]);
            bd.push_back(a.basis[i] * a.derivative[i]);
            dd.push_back(a.derivative[i] * a.derivative[i]);
        }
    }
    /// The table along direction dir of a term whose derivatives are along first and second
    /// (-1: none): D D where both are dir, B D where one is, B B elsewhere.
    const V* along(int dir, int first, int second) const
    {
        const int hits = (dir == first) + (dir == second);
        return hits == 2 ? dd.data() : hits == 1 ? bd.data() : bb.data();
    }
};

/// The diagonal of cell e's element matrix at all its lexicographic nodes by sum factorisation:
/// each term of sum_q dN_l^T G dN_l (+ N_l beta . dN_l + (w |det J| c) N_l^2) is a product of
/// 1D tables per direction, so one transposed contraction of its point factor.
template <typename V>
std::vector<V> cell_diagonal_by_tensors(const PaArgs<V>& a, const ProductTables<V>& t, index_type e)
{
    const int points = pa_points_per_cell(a), npe = pa_nodes_per_cell(a), packed = a.dim * (a.dim + 1) / 2;
    std::vector<V> diagonal(static_cast<std::size_t>(npe), V(0)), w(static_cast<std::size_t>(points));
    const auto add_term = [&](int component, V scale, int first, int second) {
        for (int q = 0; q < points; ++q) w[static_cast<std::size_t>(q)] = scale * pa_factor(a, component, e, q);
        const std::array<const V*, 3> tables{t.along(0, first, second), t.along(1, first, second),
                                             t.along(2, first, second)};
        const std::vector<V> part = tensor_apply(a, tables, true, w);
        for (int l = 0; l < npe; ++l) diagonal[static_cast<std::size_t>(l)] += part[static_cast<std::size_t>(l)];
    };
    for (int c = 0, s = 0; c < a.dim; ++c)
        for (int c2 = c; c2 < a.dim; ++c2, ++s) add_term(s, c == c2 ? V(1) : V(2), c, c2);
    if (a.lower_order) {
        for (int c = 0; c < a.dim; ++c) add_term(packed + c, V(1), c, -1);
        add_term(packed + a.dim, V(1), -1, -1);
    }
    return diagonal;
}

/// Whether the stored node value is read under columns.
bool reads(index_type stored, PaColumns columns)
{
    return (stored < 0) == (columns == PaColumns::dirichlet);
}

/// K_e xe for cell e (xe: its values at its nodes, lexicographic), by sum factorisation.
template <typename V>
std::vector<V> cell_action(const PaArgs<V>& a, index_type e, const std::vector<V>& xe)
{
    const int npe = pa_nodes_per_cell(a), points = pa_points_per_cell(a);
    const int packed = a.dim * (a.dim + 1) / 2;
    std::vector<std::vector<V>> gradient(a.dim);
    for (int c = 0; c < a.dim; ++c) gradient[c] = tensor_apply(a, tables_for(a, c), false, xe);
    const std::vector<V> value = a.lower_order ? tensor_apply(a, tables_for(a, -1), false, xe) : std::vector<V>();

    // At each point: G grad (one vector per direction) and beta . grad + (w |det J| c) u.
    std::vector<std::vector<V>> flux(a.dim, std::vector<V>(points));
    std::vector<V> source(points, V(0));
    for (int q = 0; q < points; ++q) {
        for (int c = 0, s = 0; c < a.dim; ++c)
            for (int c2 = c; c2 < a.dim; ++c2, ++s) {
                const V g = pa_factor(a, s, e, q);
                flux[c][q] += g * gradient[c2][q];
                if (c2 != c) flux[c2][q] += g * gradient[c][q];
            }
        if (!a.lower_order) continue;
        for (int c = 0; c < a.dim; ++c) source[q] += pa_factor(a, packed + c, e, q) * gradient[c][q];
        source[q] += pa_factor(a, packed + a.dim, e, q) * value[q];
    }

    std::vector<V> ye(npe, V(0));
    for (int c = 0; c < a.dim; ++c) {
        const std::vector<V> part = tensor_apply(a, tables_for(a, c), true, flux[c]);
        for (int l = 0; l < npe; ++l) ye[l] += part[l];
    }
    if (a.lower_order) {
        const std::vector<V> part = tensor_apply(a, tables_for(a, -1), true, source);
        for (int l = 0; l < npe; ++l) ye[l] += part[l];
    }
    return ye;
}

/// P^T K~_e P of cell e (ncl x ncl, row-major), K~_e its element matrix with the Dirichlet
/// nodes' rows and columns zeroed but their diagonal kept; p: npe x ncl, lexicographic rows.
template <typename V>
std::vector<V> coarse_cell_matrix(const PaArgs<V>& a, index_type e, int ncl, const V* p)
{
    const int npe = pa_nodes_per_cell(a);
    const index_type* nodes = a.nodes + static_cast<long long>(e) * npe;
    std::vector<V> kp(static_cast<std::size_t>(npe) * ncl), column(npe), diagonal(npe, V(0));
    for (int l = 0; l < npe; ++l)
        if (nodes[l] < 0) diagonal[l] = pa::cell_diagonal(a, e, l);  // a Dirichlet row keeps only it
    for (int b = 0; b < ncl; ++b) {
        for (int l = 0; l < npe; ++l) column[l] = nodes[l] < 0 ? V(0) : p[l * ncl + b];
        const std::vector<V> ye = cell_action(a, e, column);
        for (int l = 0; l < npe; ++l)
            kp[static_cast<std::size_t>(l) * ncl + b] = nodes[l] < 0 ? diagonal[l] * p[l * ncl + b] : ye[l];
    }
    std::vector<V> out(static_cast<std::size_t>(ncl) * ncl, V(0));
    for (int i = 0; i < ncl; ++i)
        for (int j = 0; j < ncl; ++j)
            for (int l = 0; l < npe; ++l) out[i * ncl + j] += p[l * ncl + i] * kp[static_cast<std::size_t>(l) * ncl + j];
    return out;
}

/// Whether cell e has a Dirichlet node.
template <typename V>
bool has_dirichlet_node(const PaArgs<V>& a, index_type e)
{
    const int npe = pa_nodes_per_cell(a);
    const index_type* nodes = a.nodes + static_cast<long long>(e) * npe;
    return std::any_of(nodes, nodes + npe, [](index_type n) { return n < 0; });
}

template <int DIM, typename V>
void point_factors_of(const ElementArgs<V>& a, const int* rule_of_lex, V* factors, V* loads)
{
    const int points = a.num_points;
#pragma omp parallel for schedule(static)
    for (index_type e = 0; e < a.num_cells; ++e)
        for (int q = 0; q < points; ++q) pa::store_point_factors<DIM>(a, e, q, rule_of_lex[q], points, factors, loads);
}

}  // namespace

void pa_lexicographic_nodes(const Executor&, index_type num_cells, int npe, const index_type* cells,
                            const int* gmsh_of_lex, const std::uint8_t* mask, index_type* nodes)
{
#pragma omp parallel for schedule(static)
    for (index_type e = 0; e < num_cells; ++e)
        for (int l = 0; l < npe; ++l) {
            const index_type node = cells[static_cast<std::size_t>(e) * npe + gmsh_of_lex[l]];
            nodes[static_cast<std::size_t>(e) * npe + l] = mask && mask[node] ? ~node : node;
        }
}

template <typename V>
JacobianSigns pa_point_factors(const Executor& exec, const ElementArgs<V>& a, const PaArgs<V>&, const int* rule_of_lex,
                               V* factors, V* loads)
{
    if (a.dim == 2) point_factors_of<2>(a, rule_of_lex, factors, loads);
    else point_factors_of<3>(a, rule_of_lex, factors, loads);
    return jacobian_signs(exec, a);
}

template <typename V>
bool pa_cell_factors(const Executor&, const PaArgs<V>& a, const V* weights, V* cell_factors)
{
    bool same = true;
#pragma omp parallel for schedule(static) reduction(&& : same)
    for (index_type e = 0; e < a.cells; ++e) same = pa::cell_factors_of(a, weights, e, cell_factors) && same;
    return same;
}

template <typename V>
void pa_loads(const Executor&, const PaArgs<V>& a, const V* loads, V* rhs)
{
    const int npe = pa_nodes_per_cell(a), points = pa_points_per_cell(a);
    cells_in_chunks(
        a, 0, a.cells,
        [&](index_type e) {
            const V* cell = loads + static_cast<long long>(e) * points;
            return tensor_apply(a, tables_for(a, -1), true, std::vector<V>(cell, cell + points));
        },
        [&](index_type e, const std::vector<V>& values) {
            for (int l = 0; l < npe; ++l) {
                const index_type node = a.nodes[static_cast<long long>(e) * npe + l];
                rhs[node < 0 ? ~node : node] += values[static_cast<std::size_t>(l)];
            }
        });
}

template <typename V>
void pa_diagonal(const Executor&, const PaArgs<V>& a, V* diag)
{
    const int npe = pa_nodes_per_cell(a);
    const ProductTables<V> tables(a);
    cells_in_chunks(
        a, 0, a.cells, [&](index_type e) { return cell_diagonal_by_tensors(a, tables, e); },
        [&](index_type e, const std::vector<V>& values) {
            for (int l = 0; l < npe; ++l) {
                const index_type node = a.nodes[static_cast<long long>(e) * npe + l];
                diag[node < 0 ? ~node : node] += values[static_cast<std::size_t>(l)];
            }
        });
}

template <typename V>
void pa_apply_cells(const Executor&, const PaArgs<V>& a, index_type begin, index_type end, V alpha, const V* x, V* y,
                    PaColumns columns)
{
    const int npe = pa_nodes_per_cell(a);
    cells_in_chunks(
        a, begin, end,
        [&](index_type e) {
            const index_type* nodes = a.nodes + static_cast<long long>(e) * npe;
            std::vector<V> xe(static_cast<std::size_t>(npe));
            for (int l = 0; l < npe; ++l)
                xe[static_cast<std::size_t>(l)] = reads(nodes[l], columns) ? x[nodes[l] < 0 ? ~nodes[l] : nodes[l]] : V(0);
            return cell_action(a, e, xe);
        },
        [&](index_type e, const std::vector<V>& ye) {
            const index_type* nodes = a.nodes + static_cast<long long>(e) * npe;
            for (int l = 0; l < npe; ++l)
                if (nodes[l] >= 0) y[nodes[l]] += alpha * ye[static_cast<std::size_t>(l)];
        });
}

template <typename V>
void pa_element_galerkin(const Executor&, const PaArgs<V>& a, int ncl, const V* p, const CellCoarsening& coarsening,
                         const index_type* cell_to_csr, V* values, bool dirichlet_cells_only)
{
    const int npe = pa_nodes_per_cell(a);
    const std::size_t coarse = static_cast<std::size_t>(ncl) * ncl;
    for (index_type e = 0; e < a.cells; ++e) {
        if (dirichlet_cells_only && !has_dirichlet_node(a, e)) continue;
        const V* pe = p + static_cast<std::size_t>(coarsening.child_of(e)) * npe * ncl;
        const std::vector<V> out = coarse_cell_matrix(a, e, ncl, pe);
        const index_type* at = cell_to_csr + static_cast<std::size_t>(coarsening.coarse_cell(e)) * coarse;
        for (std::size_t m = 0; m < coarse; ++m) values[at[m]] += out[m];
    }
}

template <typename V>
void pa_element_galerkin_tensor(const Executor&, const PaArgs<V>& a, int pc, const V* coarse_basis,
                                const V* coarse_derivative, const int* local_of_lex, const index_type* cell_to_csr,
                                V* values)
{
    // The coarse element's own operator at the fine points: the same factors, the coarse
    // tables; its action on coarse node m's unit vector is column m of B_c^T G B_c.
    PaArgs<V> coarse = a;
    coarse.p1 = pc;
    coarse.basis = coarse_basis;
    coarse.derivative = coarse_derivative;
    const int ncl = pa_nodes_per_cell(coarse);
    const std::size_t entries = static_cast<std::size_t>(ncl) * ncl;
    std::vector<V> unit(ncl, V(0));
    for (index_type e = 0; e < a.cells; ++e) {
        if (has_dirichlet_node(a, e)) continue;
        const index_type* at = cell_to_csr + static_cast<std::size_t>(e) * entries;
        for (int m = 0; m < ncl; ++m) {
            unit[m] = V(1);
            const std::vector<V> column = cell_action(coarse, e, unit);
            unit[m] = V(0);
            for (int i = 0; i < ncl; ++i) values[at[local_of_lex[i] * ncl + local_of_lex[m]]] += column[i];
        }
    }
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(pa_point_factors, pa_cell_factors, pa_loads, pa_diagonal, pa_apply_cells,
                                   pa_element_galerkin, pa_element_galerkin_tensor)

}  // namespace gpufem::kernels::cpu
