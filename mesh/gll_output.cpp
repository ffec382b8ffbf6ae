#include "mesh/gll_output.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mesh/gll_points.hpp"
#include "mesh/lagrange_basis.hpp"

namespace gpufem {
namespace {

/// The cell's interpolation as a tensor product: the 1D matrix from the k + 1 GLL nodes to the
/// k + 1 equispaced points of a line (exact zeros and ones where they coincide: the ends), and
/// each cell node's lexicographic position (x fastest) on the (k + 1)^dim lattice.
struct TensorInterpolation {
    int points = 0;                 ///< k + 1
    int dim = 0;
    std::vector<double> line;       ///< [i][j]: GLL polynomial j at equispaced point i
    std::vector<int> lexicographic; ///< per cell node
};

TensorInterpolation tensor_interpolation(ElementType type, int degree)
{
    TensorInterpolation t;
    t.points = degree + 1;
    t.dim = element_dimension(type);
    const std::vector<double> gll = gll_points(t.points);
    for (int i = 0; i < t.points; ++i) {
        const double x = -1.0 + 2.0 * i / degree;
        for (std::size_t j = 0; j < gll.size(); ++j) {
            double value = 1.0;
            for (std::size_t m = 0; m < gll.size(); ++m)
                if (m != j) value *= (x - gll[m]) / (gll[j] - gll[m]);
            if (std::abs(value) < 1e-14) value = 0.0;
            if (std::abs(value - 1.0) < 1e-14) value = 1.0;
            t.line.push_back(value);
        }
    }
    const std::vector<double> nodes = equispaced_reference_nodes(type, degree);
    for (std::size_t j = 0; j < nodes.size() / static_cast<std::size_t>(t.dim); ++j) {
        int lex = 0;
        for (int c = t.dim - 1; c >= 0; --c)
            lex = lex * t.points + static_cast<int>(std::lround((nodes[j * t.dim + c] + 1.0) * degree / 2.0));
        t.lexicographic.push_back(lex);
    }
    return t;
}

/// values (p^dim, x fastest) with the 1D matrix applied along every axis; scratch: as large.
void contract_every_axis(const TensorInterpolation& t, std::vector<double>& values, std::vector<double>& scratch)
{
    const int p = t.points;
    const int total = static_cast<int>(values.size());
    for (int axis = 0, stride = 1; axis < t.dim; ++axis, stride *= p) {
        for (int at = 0; at < total; ++at) {
            const int i = at / stride % p, base = at - i * stride;
            double sum = 0.0;
            for (int j = 0; j < p; ++j)
                sum += t.line[static_cast<std::size_t>(i * p + j)] * values[static_cast<std::size_t>(base + j * stride)];
            scratch[static_cast<std::size_t>(at)] = sum;
        }
        values.swap(scratch);
    }
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

/// out[n * stride + s]: the cell's GLL interpolant of in (component s < components) at node
/// n's equispaced point, for each node n in its first cell, by sum factorisation.
void interpolate(const Mesh& mesh, const TensorInterpolation& t, const std::vector<index_type>& owner,
                 const double* in, double* out, int stride, int components)
{
    const int npe = mesh.nodes_per_cell;
    const long long cells = mesh.num_cells();
#pragma omp parallel
    {
        std::vector<double> values(static_cast<std::size_t>(npe)), scratch(values.size());
#pragma omp for schedule(static)
        for (long long c = 0; c < cells; ++c) {
            const index_type* nodes = &mesh.cells[static_cast<std::size_t>(c) * npe];
            for (int s = 0; s < components; ++s) {
                for (int i = 0; i < npe; ++i)
                    values[static_cast<std::size_t>(t.lexicographic[static_cast<std::size_t>(i)])] =
                        in[static_cast<std::size_t>(nodes[i]) * stride + s];
                contract_every_axis(t, values, scratch);
                for (int i = 0; i < npe; ++i) {
                    const auto n = static_cast<std::size_t>(nodes[i]);
                    if (owner[n] == c)
                        out[n * stride + s] = values[static_cast<std::size_t>(t.lexicographic[static_cast<std::size_t>(i)])];
                }
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
    const TensorInterpolation tensor = tensor_interpolation(mesh.cell_type, mesh.degree);
    const std::vector<index_type> owner = first_cells(mesh);
    EquispacedOutput out{mesh, {}};
    out.mesh.device.reset();
    interpolate(mesh, tensor, owner, mesh.coordinates.data(), out.mesh.coordinates.data(), 3, 3);
    out.point_fields = equispaced_point_fields(mesh, point_fields);
    return out;
}

std::vector<MeshField> equispaced_point_fields(const Mesh& mesh, const std::vector<MeshField>& point_fields,
                                               const std::vector<std::string>& skip)
{
    if (!mesh_has_gll_nodes(mesh))
        throw std::invalid_argument("equispaced_point_fields: mesh '" + mesh.source + "' has no GLL nodes");
    const TensorInterpolation tensor = tensor_interpolation(mesh.cell_type, mesh.degree);
    const std::vector<index_type> owner = first_cells(mesh);
    std::vector<MeshField> out;
    for (const MeshField& field : point_fields) {
        if (std::find(skip.begin(), skip.end(), field.name) != skip.end()) continue;
        // The source in double (a field held in float widened once), the result a copy of it.
        HostVector<double> widened;
        if (field.held_in_float()) widened = field.widened();
        const HostVector<double>& given = field.held_in_float() ? widened : field.values;
        HostVector<double> values(given.begin(), given.end());
        interpolate(mesh, tensor, owner, given.data(), values.data(), 1, 1);
        MeshField converted(field.name, std::move(values));
        converted.float32 = field.float32;
        out.push_back(std::move(converted));
    }
    return out;
}

}  // namespace gpufem
