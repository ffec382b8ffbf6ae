#include <algorithm>
#include <vector>

#include "assembly/jacobian.hpp"
#include "assembly/tensor_flux_kernels.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// Cells computed in parallel before their node contributions are added, in cell order.
constexpr long long chunk_cells = 1024;

/// out[q0 + P (q1 + P q2)] = sum over i, j, k of X[q0][i] Y[q1][j] Z[q2][k] in[i + P (j + P k)]:
/// the tables (P x P, a row per point) applied along x, y and z in turn; transposed: X[i][q0]
/// ..., from the points back to the nodes. In 2D (DIM 2) only along x and y, Z unused.
/// tmp: 2 P^DIM values of scratch.
template <int DIM, typename V>
void contract(int P, const V* X, const V* Y, const V* Z, bool transposed, const double* in, double* out, double* tmp)
{
    const auto entry = [&](const V* table, int row, int column) {
        return static_cast<double>(transposed ? table[column * P + row] : table[row * P + column]);
    };
    const int layers = DIM == 2 ? 1 : P;  // the lattice's extent along z
    double* along_x = tmp;
    double* along_y = DIM == 2 ? out : tmp + P * P * P;
    for (int k = 0; k < layers; ++k)
        for (int j = 0; j < P; ++j)
            for (int q = 0; q < P; ++q) {
                double sum = 0;
                for (int i = 0; i < P; ++i) sum += entry(X, q, i) * in[i + P * (j + P * k)];
                along_x[q + P * (j + P * k)] = sum;
            }
    for (int k = 0; k < layers; ++k)
        for (int q = 0; q < P; ++q)
            for (int i = 0; i < P; ++i) {
                double sum = 0;
                for (int j = 0; j < P; ++j) sum += entry(Y, q, j) * along_x[i + P * (j + P * k)];
                along_y[i + P * (q + P * k)] = sum;
            }
    if constexpr (DIM == 3)
        for (int q = 0; q < P; ++q)
            for (int j = 0; j < P; ++j)
                for (int i = 0; i < P; ++i) {
                    double sum = 0;
                    for (int k = 0; k < P; ++k) sum += entry(Z, q, k) * along_y[i + P * (j + P * k)];
                    out[i + P * (j + P * q)] = sum;
                }
}

/// One cell's values at its lexicographic nodes and points (N = P^DIM each).
template <int DIM>
struct CellTensors {
    static constexpr int F = 1 + DIM;  ///< the fields: u and the DIM coordinates
    /// Nodes (and points) of a cell with p1 a direction.
    static constexpr int lattice(int p1) { return DIM == 2 ? p1 * p1 : p1 * p1 * p1; }
    int P, N;
    std::vector<double> nodal;      ///< u, then the coordinates at the nodes: [f N + l]
    std::vector<double> at_points;  ///< u's value, then the DIM reference derivatives of each field:
                                    ///< [(F f + 1 + c) N + q], u's value at [q]
    std::vector<double> terms;      ///< the residual's z (DIM) and s at the points: [c N + q]
    std::vector<double> tmp;
    explicit CellTensors(int p1)
        : P(p1), N(lattice(p1)), nodal(F * N), at_points(F * F * N), terms(F * N), tmp(2 * N)
    {
    }

    /// Cell e's u and coordinates at its lexicographic nodes; returns the nodes into nodes.
    template <typename V>
    void gather(const ElementArgs<V>& a, const TensorFluxArgs<V>& t, index_type e, const V* u, index_type* nodes)
    {
        for (int l = 0; l < N; ++l) {
            const index_type node = a.cells[static_cast<long long>(e) * a.nodes_per_cell + t.gmsh_of_lex[l]];
            nodes[l] = node;
            nodal[l] = static_cast<double>(u[node]);
            for (int d = 0; d < DIM; ++d) nodal[(1 + d) * N + l] = static_cast<double>(a.coordinates[3LL * node + d]);
        }
    }

    /// The table along direction c for the derivative along `along` (D there, B elsewhere).
    template <typename V>
    static const V* table(const TensorFluxArgs<V>& t, int c, int along)
    {
        return c == along ? t.derivative : t.basis;
    }

    /// u's value and the reference gradients of u and the coordinates at the points.
    template <typename V>
    void to_points(const TensorFluxArgs<V>& t)
    {
        const V* B = t.basis;
        contract<DIM>(P, B, B, B, false, nodal.data(), at_points.data(), tmp.data());
        for (int f = 0; f < F; ++f)
            for (int c = 0; c < DIM; ++c)
                contract<DIM>(P, table(t, 0, c), table(t, 1, c), table(t, 2, c), false, nodal.data() + f * N,
                              at_points.data() + (F * f + 1 + c) * N, tmp.data());
    }

    /// The Jacobian, u's value and reference gradient at lexicographic point q.
    template <typename V>
    void point(int q, V (&J)[DIM][DIM], double& value, double (&reference)[DIM]) const
    {
        value = at_points[q];
        for (int c = 0; c < DIM; ++c) {
            reference[c] = at_points[(1 + c) * N + q];
            for (int d = 0; d < DIM; ++d) J[d][c] = static_cast<V>(at_points[(F * (1 + d) + 1 + c) * N + q]);
        }
    }

    /// The residual at the nodes from the terms at the points: sum over the points of
    /// grad_xi N_l . z + N_l s, into out (N values).
    template <typename V>
    void residual_to_nodes(const TensorFluxArgs<V>& t, double* out)
    {
        std::fill(out, out + N, 0.0);
        std::vector<double> part(static_cast<std::size_t>(N));
        for (int c = 0; c <= DIM; ++c) {  // c = DIM: s, against the basis itself
            contract<DIM>(P, table(t, 0, c), table(t, 1, c), table(t, 2, c), true, terms.data() + c * N, part.data(),
                          tmp.data());
            for (int l = 0; l < N; ++l) out[l] += part[static_cast<std::size_t>(l)];
        }
    }
};

/// For each chunk of cells: compute(e, scratch, nodes, out) in parallel (out: `width` values
/// per lexicographic node of the cell; returns whether the cell has any), then add(node, values)
/// for those cells' nodes in cell order.
template <int DIM, typename Compute, typename Add>
void cells_in_chunks(long long cells, int p1, int width, Compute&& compute, Add&& add)
{
    const int N = CellTensors<DIM>::lattice(p1);
    std::vector<double> out(static_cast<std::size_t>(chunk_cells) * N * width);
    std::vector<index_type> nodes(static_cast<std::size_t>(chunk_cells) * N);
    std::vector<char> has(static_cast<std::size_t>(chunk_cells));
    for (long long first = 0; first < cells; first += chunk_cells) {
        const long long last = std::min(cells, first + chunk_cells);
#pragma omp parallel
        {
            CellTensors<DIM> scratch(p1);
#pragma omp for schedule(static)
            for (long long e = first; e < last; ++e) {
                const std::size_t k = static_cast<std::size_t>(e - first);
                has[k] = compute(static_cast<index_type>(e), scratch, nodes.data() + k * N, out.data() + k * N * width);
            }
        }
        for (long long e = first; e < last; ++e) {
            const std::size_t k = static_cast<std::size_t>(e - first);
            if (!has[k]) continue;
            for (int l = 0; l < N; ++l) add(nodes[k * N + l], out.data() + (k * N + l) * width);
        }
    }
}

}  // namespace

template <typename V>
void tensor_cell_fluxes(const Executor&, const ElementArgs<V>& a, const TensorFluxArgs<V>& t, const V* u,
                        const std::uint8_t* mask, long long stride, double* mean_flux, double* integrals,
                        double* residual)
{
    dispatch_dimension(a.dim, [&]<int DIM>() {
        const auto compute = [&](index_type e, CellTensors<DIM>& c, index_type* nodes, double* out) {
            c.gather(a, t, e, u, nodes);
            c.to_points(t);
            bool touches = false;
            for (int l = 0; l < c.N && mask; ++l) touches = touches || mask[nodes[l]];
            double sums[cell_sum_count] = {};
            for (int r = 0; r < c.N; ++r) {
                const int q = t.rule_of_lex[r];
                const long long qe = static_cast<long long>(e) * a.num_points + q;
                V J[DIM][DIM], inv[DIM][DIM];
                double value, reference[DIM];
                c.point(r, J, value, reference);
                const PointSolution p = point_solution<DIM>(a, qe, J, value, reference, inv);
                add_solution_sums<DIM>(a, qe, q, p, sums);
                if (!touches) continue;
                double z[DIM], s;
                residual_point_terms<DIM>(a, qe, q, p, inv, z, s);
                for (int k = 0; k < DIM; ++k) c.terms[static_cast<std::size_t>(k * c.N + r)] = z[k];
                c.terms[static_cast<std::size_t>(DIM * c.N + r)] = s;
            }
            write_cell_sums(sums, stride, mean_flux + e, integrals + e);
            if (touches) c.residual_to_nodes(t, out);
            return touches;
        };
        cells_in_chunks<DIM>(a.num_cells, t.p1, 1, compute, [&](index_type node, const double* value) {
            if (mask[node]) residual[node] += *value;
        });
    });
}

template <typename V>
void tensor_node_fluxes(const Executor&, const ElementArgs<V>& a, const TensorFluxArgs<V>& t, const V* u, double* sum,
                        double* weight)
{
    dispatch_dimension(a.dim, [&]<int DIM>() {
        const auto compute = [&](index_type e, CellTensors<DIM>& c, index_type* nodes, double* out) {
            c.gather(a, t, e, u, nodes);
            c.to_points(t);
            for (int l = 0; l < c.N; ++l) {
                V J[DIM][DIM], inv[DIM][DIM];
                double value, reference[DIM];
                c.point(l, J, value, reference);
                const long long qe = static_cast<long long>(e) * a.num_points + t.rule_of_lex[l];
                const PointSolution p = point_solution<DIM>(a, qe, J, value, reference, inv);
                for (int d = 0; d < 3; ++d) out[4 * l + d] = p.measure * p.flux[d];
                out[4 * l + 3] = p.measure;
            }
            return true;
        };
        cells_in_chunks<DIM>(a.num_cells, t.p1, 4, compute, [&](index_type node, const double* values) {
            for (int d = 0; d < 3; ++d) sum[3LL * node + d] += values[d];
            weight[node] += values[3];
        });
    });
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(tensor_cell_fluxes, tensor_node_fluxes)

}  // namespace gpufem::kernels::cpu
