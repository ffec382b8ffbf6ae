#pragma once
// Test matrices and host oracles for the multigrid tests: a 3D Laplacian with random positive
// edge weights (and Dirichlet rows), dense products and comparisons on the host, and the
// case text of a p-multigrid test problem.
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "linalg/csr.hpp"
#include "linalg/csr_kernels.hpp"
#include "mesh/mesh.hpp"
#include "random_values.hpp"  // max_relative_difference

namespace gpufem::test {

/// A matrix with the pattern of the mesh's node graph (every pair of nodes of a cell) and
/// random values (not symmetric), on exec.
inline Csr<double> random_node_graph_matrix(const Mesh& mesh, const ExecPtr& exec, std::mt19937& random)
{
    const auto nodes = static_cast<std::size_t>(mesh.num_nodes());
    const auto npc = static_cast<std::size_t>(mesh.nodes_per_cell);
    std::vector<std::set<index_type>> columns(nodes);
    for (std::size_t e = 0; e < static_cast<std::size_t>(mesh.num_cells()); ++e)
        for (std::size_t i = 0; i < npc; ++i)
            for (std::size_t j = 0; j < npc; ++j)
                columns[static_cast<std::size_t>(mesh.cells[e * npc + i])].insert(mesh.cells[e * npc + j]);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<index_type> ptr{0}, col;
    std::vector<double> val;
    for (const std::set<index_type>& row : columns) {
        for (const index_type c : row) {
            col.push_back(c);
            val.push_back(value(random));
        }
        ptr.push_back(static_cast<index_type>(col.size()));
    }
    const auto n = static_cast<index_type>(nodes);
    return Csr<double>{n, n, Array<index_type>::from_host(exec, ptr), Array<index_type>::from_host(exec, col),
                       Array<double>::from_host(exec, val)};
}

/// Host copy of a CSR matrix.
struct HostMatrix {
    index_type rows = 0, cols = 0;
    std::vector<index_type> ptr, col;
    std::vector<double> val;
};

/// Downloads a (any executor).
template <typename V>
HostMatrix to_host(const Csr<V>& a)
{
    HostMatrix h{a.rows, a.cols, a.row_ptr.to_host(), a.col_idx.to_host(), {}};
    for (V v : a.values.to_host()) h.val.push_back(static_cast<double>(v));
    return h;
}

/// No ghost columns beside a matrix (amg_lattice_product's ghost block).
inline const Csr<double>* const no_ghosts = nullptr;

/// a with 64-bit row offsets (a rank's rows past 2^31 - 1 entries hold them so), on a's
/// executor.
template <typename V>
WideCsr<V> with_wide_offsets(const Csr<V>& a)
{
    const std::vector<index_type> ptr = a.row_ptr.to_host();
    return WideCsr<V>{a.rows, a.cols,
                      Array<wide_offset_type>::from_host(a.executor(),
                                                         std::vector<wide_offset_type>(ptr.begin(), ptr.end())),
                      a.col_idx.clone_to(a.executor()), a.values.clone_to(a.executor())};
}

/// diag(a) on a's executor.
template <typename V>
Array<V> diagonal_of(const Csr<V>& a)
{
    const Executor& exec = *a.executor();
    Array<V> d(a.executor(), static_cast<std::size_t>(a.rows));
    GPUFEM_DISPATCH(exec, csr_diagonal(exec, a, d.data()));
    return d;
}

/// 1 / d elementwise, on d's executor.
template <typename V>
Array<V> inverse_of(const Array<V>& d)
{
    std::vector<V> h = d.to_host();
    for (V& v : h) v = V(1) / v;
    return Array<V>::from_host(d.executor(), h);
}

/// The dense row-major form of a.
inline std::vector<double> dense(const HostMatrix& a)
{
    std::vector<double> d(static_cast<std::size_t>(a.rows) * a.cols, 0.0);
    for (index_type i = 0; i < a.rows; ++i)
        for (index_type k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
            d[static_cast<std::size_t>(i) * a.cols + a.col[k]] += a.val[k];
    return d;
}

/// C = A B for dense row-major matrices (A: n x m, B: m x p).
inline std::vector<double> dense_product(const std::vector<double>& a, const std::vector<double>& b,
                                         index_type n, index_type m, index_type p)
{
    std::vector<double> c(static_cast<std::size_t>(n) * p, 0.0);
    for (index_type i = 0; i < n; ++i)
        for (index_type k = 0; k < m; ++k) {
            const double aik = a[static_cast<std::size_t>(i) * m + k];
            if (aik == 0) continue;
            for (index_type j = 0; j < p; ++j)
                c[static_cast<std::size_t>(i) * p + j] += aik * b[static_cast<std::size_t>(k) * p + j];
        }
    return c;
}

/// -div(w grad u) on an nx x ny x nz grid (7-point), each edge weight w uniform in
/// [0.5, 1.5] from seed; the boundary layer of nodes are Dirichlet rows (identity, no
/// off-diagonals, eliminated symmetrically). Symmetric positive definite.
template <typename V>
Csr<V> weighted_laplacian_3d(const ExecPtr& exec, int nx, int ny, int nz, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> weight(0.5, 1.5);
    const auto id = [&](int x, int y, int z) { return (z * ny + y) * nx + x; };
    const auto boundary = [&](int x, int y, int z) {
        return x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
    };
    const int n = nx * ny * nz;
    // Edge weights: wx[i] between i and i+1 in x, and so on.
    std::vector<double> wx(n), wy(n), wz(n);
    for (int i = 0; i < n; ++i) {
        wx[i] = weight(rng);
        wy[i] = weight(rng);
        wz[i] = weight(rng);
    }
    std::vector<index_type> ptr{0}, col;
    std::vector<V> val;
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                const int i = id(x, y, z);
                if (boundary(x, y, z)) {
                    col.push_back(i);
                    val.push_back(V(1));
                    ptr.push_back(static_cast<index_type>(col.size()));
                    continue;
                }
                struct Entry { int j; double w; };
                const Entry nb[6] = {{id(x, y, z - 1), wz[id(x, y, z - 1)]},
                                     {id(x, y - 1, z), wy[id(x, y - 1, z)]},
                                     {id(x - 1, y, z), wx[id(x - 1, y, z)]},
                                     {id(x + 1, y, z), wx[i]},
                                     {id(x, y + 1, z), wy[i]},
                                     {id(x, y, z + 1), wz[i]}};
                double diag = 0;
                for (const Entry& e : nb) diag += e.w;
                bool placed = false;
                for (const Entry& e : nb) {
                    if (!placed && e.j > i) {
                        col.push_back(i);
                        val.push_back(static_cast<V>(diag));
                        placed = true;
                    }
                    const int ex = e.j % nx, ey = (e.j / nx) % ny, ez = e.j / (nx * ny);
                    if (boundary(ex, ey, ez)) continue;  // eliminated Dirichlet neighbour
                    col.push_back(e.j);
                    val.push_back(static_cast<V>(-e.w));
                }
                if (!placed) {
                    col.push_back(i);
                    val.push_back(static_cast<V>(diag));
                }
                ptr.push_back(static_cast<index_type>(col.size()));
            }
    return Csr<V>{n, n, Array<index_type>::from_host(exec, ptr),
                  Array<index_type>::from_host(exec, col), Array<V>::from_host(exec, val)};
}

/// The case text of a Poisson problem with kappa 1 + x y on a generated shape (unit_square or
/// unit_cube) with Dirichlet conditions on part of the boundary (left 0, bottom 1: the
/// elimination's edges inside the domain's boundary), then `extra` lines.
inline std::string partial_dirichlet_case(const std::string& shape, const std::string& elements,
                                          double size, int degree, const std::string& extra = "")
{
    return fmt::format(R"(
mesh: {{shape: {}, elements: {}, size: {}}}
degree: {}
problem:
  kappa: "1 + x*y"
  f: 1
  dirichlet: {{left: 0, bottom: 1}}
{}
)",
                       shape, elements, size, degree, extra);
}

}  // namespace gpufem::test
