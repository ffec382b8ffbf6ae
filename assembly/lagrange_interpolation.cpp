#include "assembly/lagrange_interpolation.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "assembly/reference_element.hpp"
#include "linalg/host_vector.hpp"
#include "mesh/lagrange_basis.hpp"

namespace gpufem {
namespace {

/// a[i] = a[0] + ... + a[i] in place, by the host's threads: each block of entries summed on
/// its own, then the blocks' totals carried.
template <typename Vector>
void inclusive_scan(Vector& a)
{
    constexpr std::size_t block = std::size_t{1} << 16;
    const std::size_t n = a.size(), blocks = (n + block - 1) / block;
    std::vector<index_type> carry(blocks + 1, 0);
#pragma omp parallel for schedule(static)
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t end = std::min(n, (b + 1) * block);
        for (std::size_t i = b * block + 1; i < end; ++i) a[i] += a[i - 1];
        carry[b + 1] = a[end - 1];
    }
    for (std::size_t b = 0; b < blocks; ++b) carry[b + 1] += carry[b];
#pragma omp parallel for schedule(static)
    for (std::size_t b = 1; b < blocks; ++b)
        for (std::size_t i = b * block; i < std::min(n, (b + 1) * block); ++i) a[i] += carry[b];
}

/// Host CSR arrays, and the mesh node of each column.
template <typename V>
struct HostRows {
    index_type rows = 0, cols = 0;
    HostVector<index_type> ptr, col;  // sized, then first touched by the host's threads
    HostVector<V> val;
    HostVector<index_type> column_nodes;
};

/// For each local node of the degree-k element: the local index of the degree-c node at the
/// same reference point, or -1 (c divides k, so the degree-c nodes are among the degree-k ones).
std::vector<int> coarse_local_nodes(ElementType type, int k, int c)
{
    const int dim = element_dimension(type);
    const std::vector<double> fine = lagrange_reference_nodes(type, k);
    const std::vector<double> coarse =
        c == 1 ? reference_nodes(type) : lagrange_reference_nodes(type, c);
    const std::size_t nf = fine.size() / dim, nc = coarse.size() / dim;
    std::vector<int> match(nf, -1);
    for (std::size_t j = 0; j < nf; ++j)
        for (std::size_t m = 0; m < nc; ++m) {
            double distance = 0;
            for (int d = 0; d < dim; ++d) distance += std::abs(fine[j * dim + d] - coarse[m * dim + d]);
            if (distance < 1e-9) match[j] = static_cast<int>(m);
        }
    return match;
}

}  // namespace

LagrangeCoarseSpace lagrange_coarse_space(const Mesh& mesh, int c, bool with_cells)
{
    const int k = mesh.degree;
    if (c < 1 || k % c != 0)
        throw std::invalid_argument("lagrange_interpolation: degree " + std::to_string(c) +
                                    " does not divide the mesh's degree " + std::to_string(k));
    const index_type n = mesh.num_nodes();
    const index_type cells = mesh.num_cells();
    const int npc = mesh.nodes_per_cell;
    const int dim = element_dimension(mesh.cell_type);
    const index_type* cell_nodes = mesh.cells.data();
    const std::vector<int> coarse_of = coarse_local_nodes(mesh.cell_type, k, c);
    LagrangeCoarseSpace space;
    space.degree = c;
    std::vector<int>& fine_of = space.fine_local;  // local degree-k index of each degree-c node
    for (int j = 0; j < npc; ++j)
        if (coarse_of[j] >= 0) {
            if (static_cast<int>(fine_of.size()) <= coarse_of[j]) fine_of.resize(coarse_of[j] + 1, -1);
            fine_of[coarse_of[j]] = j;
        }
    const int ncl = static_cast<int>(fine_of.size());
    space.nodes_per_cell = ncl;

    // Column of each coarse node (node order): the nodes marked by the host's threads, then
    // numbered by a prefix sum of the marks (a node is marked where its sum steps up).
    HostVector<index_type> rank(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
    for (index_type node = 0; node < n; ++node) rank[node] = 0;
#pragma omp parallel for schedule(static)
    for (index_type e = 0; e < cells; ++e)
        for (int m = 0; m < ncl; ++m)
            std::atomic_ref<index_type>(rank[cell_nodes[static_cast<std::size_t>(e) * npc + fine_of[m]]])
                .store(1, std::memory_order_relaxed);
    inclusive_scan(rank);
    space.column.resize(static_cast<std::size_t>(n));
    space.column_nodes.resize(n > 0 ? static_cast<std::size_t>(rank.back()) : 0);
#pragma omp parallel for schedule(static)
    for (index_type node = 0; node < n; ++node) {
        const bool marked = rank[node] > (node > 0 ? rank[node - 1] : 0);
        space.column[node] = marked ? rank[node] - 1 : -1;
        if (marked) space.column_nodes[rank[node] - 1] = node;
    }
    if (with_cells) {
        space.cells.resize(static_cast<std::size_t>(cells) * ncl);
#pragma omp parallel for schedule(static)
        for (index_type e = 0; e < cells; ++e)
            for (int m = 0; m < ncl; ++m)
                space.cells[static_cast<std::size_t>(e) * ncl + m] =
                    space.column[cell_nodes[static_cast<std::size_t>(e) * npc + fine_of[m]]];
    }

    // The degree-c basis at each degree-k reference node, once per local node.
    const std::vector<double> xi = lagrange_reference_nodes(mesh.cell_type, k);
    space.weights.assign(static_cast<std::size_t>(npc) * ncl, 0.0);
    if (c == 1) {
        std::vector<double> gradients(static_cast<std::size_t>(ncl) * dim);
        for (int j = 0; j < npc; ++j)
            lagrange1_basis(mesh.cell_type, &xi[static_cast<std::size_t>(j) * dim],
                            &space.weights[static_cast<std::size_t>(j) * ncl], gradients.data());
    } else {
        std::vector<double> gradients;
        lagrange_basis(mesh.cell_type, c, xi, space.weights, gradients);
    }
    return space;
}

namespace {

/// The interpolation on the host (see lagrange_interpolation).
template <typename V>
HostRows<V> interpolation_rows(const Mesh& mesh, int c)
{
    const LagrangeCoarseSpace space = lagrange_coarse_space(mesh, c, /*with_cells=*/false);
    const index_type n = mesh.num_nodes();
    const index_type cells = mesh.num_cells();
    const int npc = mesh.nodes_per_cell;
    const index_type* cell_nodes = mesh.cells.data();
    const int ncl = space.nodes_per_cell;
    const std::vector<int>& fine_of = space.fine_local;
    const HostVector<index_type>& column = space.column;
    const std::vector<double>& weights = space.weights;
    HostRows<V> out;
    out.column_nodes = space.column_nodes;
    const index_type columns = static_cast<index_type>(out.column_nodes.size());
    // One (cell, local node) for every node.
    // (The first cell that has it, found by the host's threads: the smallest index, whatever
    // the thread count.)
    HostVector<index_type> owner(static_cast<std::size_t>(n));
    HostVector<int> local(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
    for (index_type node = 0; node < n; ++node) {
        owner[node] = cells;
        local[node] = 0;
    }
#pragma omp parallel for schedule(static)
    for (index_type e = 0; e < cells; ++e)
        for (int j = 0; j < npc; ++j) {
            std::atomic_ref<index_type> slot(owner[cell_nodes[static_cast<std::size_t>(e) * npc + j]]);
            index_type seen = slot.load(std::memory_order_relaxed);
            while (e < seen && !slot.compare_exchange_weak(seen, e, std::memory_order_relaxed)) {
            }
        }
#pragma omp parallel for schedule(static)
    for (index_type e = 0; e < cells; ++e)
        for (int j = 0; j < npc; ++j) {
            const index_type node = cell_nodes[static_cast<std::size_t>(e) * npc + j];
            if (owner[node] == e) local[node] = j;
        }
#pragma omp parallel for schedule(static)
    for (index_type node = 0; node < n; ++node)
        if (owner[node] == cells) owner[node] = -1;  // in no cell

    out.rows = n;
    out.cols = columns;
    out.ptr.resize(static_cast<std::size_t>(n) + 1);
    out.ptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (index_type node = 0; node < n; ++node) {
        index_type count = 0;
        if (owner[node] >= 0)
            for (int m = 0; m < ncl; ++m)
                count += std::abs(weights[static_cast<std::size_t>(local[node]) * ncl + m]) > 1e-14;
        out.ptr[static_cast<std::size_t>(node) + 1] = count;
    }
    inclusive_scan(out.ptr);
    out.col.resize(static_cast<std::size_t>(out.ptr[n]));
    out.val.resize(out.col.size());
#pragma omp parallel for schedule(static)
    for (index_type node = 0; node < n; ++node) {
        if (owner[node] < 0) continue;
        const std::size_t cell = static_cast<std::size_t>(owner[node]);
        index_type at_end = out.ptr[node];
        for (int m = 0; m < ncl; ++m) {
            const double w = weights[static_cast<std::size_t>(local[node]) * ncl + m];
            if (!(std::abs(w) > 1e-14)) continue;
            const index_type col = column[cell_nodes[cell * npc + fine_of[m]]];
            index_type at = at_end++;  // insertion keeps the row's columns sorted
            while (at > out.ptr[node] && out.col[at - 1] > col) {
                out.col[at] = out.col[at - 1];
                out.val[at] = out.val[at - 1];
                --at;
            }
            out.col[at] = col;
            out.val[at] = static_cast<V>(w);
        }
    }
    return out;
}

template <typename V>
Csr<V> upload(const HostRows<V>& h, const ExecPtr& exec)
{
    return Csr<V>{h.rows, h.cols, Array<index_type>::from_host(exec, h.ptr),
                  Array<index_type>::from_host(exec, h.col), Array<V>::from_host(exec, h.val)};
}

}  // namespace

template <typename V>
Csr<V> lagrange_interpolation(const Mesh& mesh, int coarse_degree, const ExecPtr& exec)
{
    return upload(interpolation_rows<V>(mesh, coarse_degree), exec);
}

template <typename V>
std::vector<Csr<V>> pmg_interpolations(const Mesh& mesh, const ExecPtr& exec)
{
    std::vector<Csr<V>> chain;
    if (mesh.degree <= 1) return chain;
    const std::vector<int> degrees = pmg_coarse_degrees(mesh.degree);
    // Each coarser transfer in the finer coarse space's numbering: the rows of the mesh's
    // interpolation from that degree at the finer space's nodes (a lower-degree function is
    // represented exactly in every higher-degree space of the same mesh).
    HostVector<index_type> finer_nodes;  // mesh node of each unknown of the current space
    for (std::size_t level = 0; level < degrees.size(); ++level) {
        const HostRows<V> full = interpolation_rows<V>(mesh, degrees[level]);
        if (level == 0) {
            chain.push_back(upload(full, exec));
        } else {
            HostRows<V> rows;
            rows.rows = static_cast<index_type>(finer_nodes.size());
            rows.cols = full.cols;
            rows.ptr.push_back(0);
            for (index_type node : finer_nodes) {
                for (index_type k = full.ptr[node]; k < full.ptr[node + 1]; ++k) {
                    rows.col.push_back(full.col[k]);
                    rows.val.push_back(full.val[k]);
                }
                rows.ptr.push_back(static_cast<index_type>(rows.col.size()));
            }
            chain.push_back(upload(rows, exec));
        }
        finer_nodes = full.column_nodes;  // the mesh nodes of this degree's space
    }
    return chain;
}

template Csr<float> lagrange_interpolation(const Mesh&, int, const ExecPtr&);
template Csr<double> lagrange_interpolation(const Mesh&, int, const ExecPtr&);
template std::vector<Csr<float>> pmg_interpolations(const Mesh&, const ExecPtr&);
template std::vector<Csr<double>> pmg_interpolations(const Mesh&, const ExecPtr&);

}  // namespace gpufem
