#include "mesh/gll_output.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "mesh/gll_points.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/lattice_table.hpp"

namespace gpufem {
namespace {

/// M[i][j]: GLL basis function j at equispaced node i of the element (npe x npe); exact
/// zeros and ones where the nodes coincide (the corners).
std::vector<double> equispaced_from_gll(ElementType type, int degree)
{
    const std::vector<double> equispaced = lattice_reference_nodes(type, degree);
    std::vector<double> values, gradients;
    lagrange_basis(type, degree, equispaced, values, gradients);
    for (double& v : values) {
        if (std::abs(v) < 1e-14) v = 0.0;
        if (std::abs(v - 1.0) < 1e-14) v = 1.0;
    }
    return values;
}

/// The first cell holding each node (-1: none).
std::vector<index_type> first_cells(const Mesh& mesh)
{
    std::vector<index_type> owner(static_cast<std::size_t>(mesh.num_nodes()), -1);
    const std::size_t npe = static_cast<std::size_t>(mesh.nodes_per_cell);
    for (std::size_t e = 0; e < mesh.cells.size(); ++e) {
        index_type& first = owner[static_cast<std::size_t>(mesh.cells[e])];
        if (first < 0) first = static_cast<index_type>(e / npe);
    }
    return owner;
}

/// out[n * stride + s] = sum_j M[i][j] in[node_j * stride + s] for each node n at local i of
/// its first cell, s < components.
void interpolate(const Mesh& mesh, const std::vector<double>& m, const std::vector<index_type>& owner,
                 const double* in, double* out, int stride, int components)
{
    const int npe = mesh.nodes_per_cell;
    const long long cells = mesh.num_cells();
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < cells; ++c) {
        const index_type* nodes = &mesh.cells[static_cast<std::size_t>(c) * npe];
        for (int i = 0; i < npe; ++i) {
            const auto n = static_cast<std::size_t>(nodes[i]);
            if (owner[n] != c) continue;
            for (int s = 0; s < components; ++s) {
                double sum = 0.0;
                for (int j = 0; j < npe; ++j) {
                    const double w = m[static_cast<std::size_t>(i) * npe + j];
                    if (w != 0.0) sum += w * in[static_cast<std::size_t>(nodes[j]) * stride + s];
                }
                out[n * stride + s] = sum;
            }
        }
    }
}

}  // namespace

bool mesh_has_gll_nodes(const Mesh& mesh)
{
    return !mesh.is_mixed() && has_gll_nodes(mesh.cell_type, mesh.degree);
}

EquispacedOutput equispaced_output(const Mesh& mesh, const std::vector<MeshField>& point_fields)
{
    if (!mesh_has_gll_nodes(mesh))
        throw std::invalid_argument("equispaced_output: mesh '" + mesh.source + "' has no GLL nodes");
    const std::vector<double> m = equispaced_from_gll(mesh.cell_type, mesh.degree);
    const std::vector<index_type> owner = first_cells(mesh);
    EquispacedOutput out{mesh, {}};
    out.mesh.device.reset();
    interpolate(mesh, m, owner, mesh.coordinates.data(), out.mesh.coordinates.data(), 3, 3);
    for (const MeshField& field : point_fields) {
        HostVector<double> values(field.values.begin(), field.values.end());
        interpolate(mesh, m, owner, field.values.data(), values.data(), 1, 1);
        MeshField converted(field.name, std::move(values));
        converted.float32 = field.float32;
        out.point_fields.push_back(std::move(converted));
    }
    return out;
}

}  // namespace gpufem
