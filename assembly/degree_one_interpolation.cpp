#include "assembly/degree_one_interpolation.hpp"

#include <cmath>
#include <vector>

#include "assembly/reference_element.hpp"
#include "mesh/lagrange_basis.hpp"

namespace gpufem {

template <typename V>
Csr<V> degree_one_interpolation(const Mesh& mesh, const ExecPtr& exec)
{
    const index_type n = mesh.num_nodes();
    const index_type cells = mesh.num_cells();
    const int npc = mesh.nodes_per_cell;
    const int vertices = element_node_count(mesh.cell_type);
    const int dim = element_dimension(mesh.cell_type);
    const index_type* cell_nodes = mesh.cells.data();

    // Column of each vertex node (node order), and one (cell, local node) for every node.
    std::vector<index_type> column(static_cast<std::size_t>(n), -1);
    for (std::size_t k = 0; k < static_cast<std::size_t>(cells); ++k)
        for (int v = 0; v < vertices; ++v) column[cell_nodes[k * npc + v]] = 0;
    index_type columns = 0;
    for (index_type& c : column)
        if (c == 0) c = columns++;
    std::vector<index_type> owner(static_cast<std::size_t>(n), -1);
    std::vector<int> local(static_cast<std::size_t>(n), 0);
    for (index_type k = 0; k < cells; ++k)
        for (int j = 0; j < npc; ++j) {
            const index_type node = cell_nodes[static_cast<std::size_t>(k) * npc + j];
            if (owner[node] < 0) {
                owner[node] = k;
                local[node] = j;
            }
        }

    // Each local node's degree-1 basis values, once per reference node.
    const std::vector<double> xi = lagrange_reference_nodes(mesh.cell_type, mesh.degree);
    std::vector<double> weights(static_cast<std::size_t>(npc) * vertices);
    std::vector<double> gradients(static_cast<std::size_t>(vertices) * dim);
    for (int j = 0; j < npc; ++j)
        lagrange1_basis(mesh.cell_type, &xi[static_cast<std::size_t>(j) * dim],
                        &weights[static_cast<std::size_t>(j) * vertices], gradients.data());

    // Row lengths, then rows (columns sorted: a few entries, insertion sort).
    std::vector<index_type> ptr(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static)
    for (index_type node = 0; node < n; ++node) {
        index_type count = 0;
        if (owner[node] >= 0)
            for (int v = 0; v < vertices; ++v)
                count += std::abs(weights[static_cast<std::size_t>(local[node]) * vertices + v]) > 1e-14;
        ptr[static_cast<std::size_t>(node) + 1] = count;
    }
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) ptr[i + 1] += ptr[i];
    std::vector<index_type> col(static_cast<std::size_t>(ptr[n]));
    std::vector<V> val(col.size());
#pragma omp parallel for schedule(static)
    for (index_type node = 0; node < n; ++node) {
        if (owner[node] < 0) continue;
        const std::size_t cell = static_cast<std::size_t>(owner[node]);
        index_type out = ptr[node];
        for (int v = 0; v < vertices; ++v) {
            const double w = weights[static_cast<std::size_t>(local[node]) * vertices + v];
            if (!(std::abs(w) > 1e-14)) continue;
            const index_type c = column[cell_nodes[cell * npc + v]];
            index_type at = out++;
            while (at > ptr[node] && col[at - 1] > c) {
                col[at] = col[at - 1];
                val[at] = val[at - 1];
                --at;
            }
            col[at] = c;
            val[at] = static_cast<V>(w);
        }
    }
    return Csr<V>{n, columns, Array<index_type>::from_host(exec, ptr),
                  Array<index_type>::from_host(exec, col), Array<V>::from_host(exec, val)};
}

template Csr<float> degree_one_interpolation(const Mesh&, const ExecPtr&);
template Csr<double> degree_one_interpolation(const Mesh&, const ExecPtr&);

}  // namespace gpufem
