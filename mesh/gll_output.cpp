#include "mesh/gll_output.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "mesh/gll_points.hpp"
#include "mesh/lagrange_basis.hpp"

namespace gpufem {
namespace {

/// The most nodes along a GLL cell's edge (degree 8).
constexpr int max_line_points = 9;

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
    if (t.points > max_line_points)
        throw std::invalid_argument("equispaced output: degree " + std::to_string(degree) + " is past 8");
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

/// out[(z p + y) p + x] = sum_m L[a][m] in[...m...] along one axis (stride of the axis in the
/// lattice: 1, p or p^2; `planes` lattice lines of p values each way across it).
void contract_axis(const double* line, int p, int stride, int lines, const double* in, double* out)
{
    for (int l = 0; l < lines; ++l) {
        // Line l's first value: l's index below the axis, and above it times p.
        const int base = (l / stride) * stride * p + l % stride;
        for (int a = 0; a < p; ++a) {
            const double* row = line + a * p;
            double sum = 0.0;
            for (int m = 0; m < p; ++m) sum += row[m] * in[base + m * stride];
            out[base + a * stride] = sum;
        }
    }
}

/// values (p^dim, x fastest) with the 1D matrix applied along every axis; scratch as large.
void contract_every_axis(const TensorInterpolation& t, double* values, double* scratch)
{
    const int p = t.points;
    const int lines = t.dim == 2 ? p : p * p;
    double* in = values;
    double* out = scratch;
    for (int axis = 0, stride = 1; axis < t.dim; ++axis, stride *= p) {
        contract_axis(t.line.data(), p, stride, lines, in, out);
        std::swap(in, out);
    }
    if (in != values) std::copy_n(in, lines * p, values);
}

/// The first (lowest numbered) cell holding each node, -1 for a node no cell holds: an atomic
/// minimum over the cells on the host's threads.
HostVector<index_type> first_cells(const Mesh& mesh)
{
    const long long nodes = mesh.num_nodes(), cells = mesh.num_cells();
    const long long npe = mesh.nodes_per_cell;
    constexpr index_type none = std::numeric_limits<index_type>::max();
    HostVector<index_type> owner(static_cast<std::size_t>(nodes));
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (long long n = 0; n < nodes; ++n) owner[static_cast<std::size_t>(n)] = none;
#pragma omp for schedule(static)
        for (long long c = 0; c < cells; ++c)
            for (long long k = 0; k < npe; ++k) {
                std::atomic_ref<index_type> first(owner[static_cast<std::size_t>(mesh.cells[c * npe + k])]);
                index_type seen = first.load(std::memory_order_relaxed);
                while (c < seen && !first.compare_exchange_weak(seen, static_cast<index_type>(c),
                                                                std::memory_order_relaxed)) {
                }
            }
#pragma omp for schedule(static)
        for (long long n = 0; n < nodes; ++n)
            if (owner[static_cast<std::size_t>(n)] == none) owner[static_cast<std::size_t>(n)] = -1;
    }
    return owner;
}

/// The conversion of a mesh's point values from its GLL nodes to the equispaced points: the
/// tensor interpolation and each node's first cell, made once for all the fields converted.
struct EquispacedMap {
    const Mesh& mesh;
    TensorInterpolation tensor;
    HostVector<index_type> owner;
    explicit EquispacedMap(const Mesh& m)
        : mesh(m), tensor(tensor_interpolation(m.cell_type, m.degree)), owner(first_cells(m))
    {
    }

    /// out[n * stride + s]: the cell's GLL interpolant of in (component s < components) at
    /// node n's equispaced point, computed in node n's first cell by sum factorisation; a node
    /// no cell holds keeps its value. In and out may differ in type (float fields stay float).
    template <typename In, typename Out>
    void interpolate(const In* in, Out* out, int stride, int components) const
    {
        const int npe = mesh.nodes_per_cell;
        const long long cells = mesh.num_cells(), nodes = mesh.num_nodes();
        const int* lex = tensor.lexicographic.data();
#pragma omp parallel
        {
            double values[max_line_points * max_line_points * max_line_points];
            double scratch[max_line_points * max_line_points * max_line_points];
#pragma omp for schedule(static)
            for (long long c = 0; c < cells; ++c) {
                const index_type* cell = &mesh.cells[static_cast<std::size_t>(c) * npe];
                for (int s = 0; s < components; ++s) {
                    for (int i = 0; i < npe; ++i)
                        values[lex[i]] = static_cast<double>(in[static_cast<std::size_t>(cell[i]) * stride + s]);
                    contract_every_axis(tensor, values, scratch);
                    for (int i = 0; i < npe; ++i) {
                        const auto n = static_cast<std::size_t>(cell[i]);
                        if (owner[n] == c) out[n * stride + s] = static_cast<Out>(values[lex[i]]);
                    }
                }
            }
#pragma omp for schedule(static)
            for (long long n = 0; n < nodes; ++n)
                if (owner[static_cast<std::size_t>(n)] < 0)
                    for (int s = 0; s < components; ++s)
                        out[static_cast<std::size_t>(n) * stride + s] =
                            static_cast<Out>(in[static_cast<std::size_t>(n) * stride + s]);
        }
    }

    /// The field at the equispaced points, held as it is (double or float).
    MeshField converted(const MeshField& field) const
    {
        if (field.held_in_float()) {
            HostVector<float> values(field.narrow.size());
            interpolate(field.narrow.data(), values.data(), 1, 1);
            return MeshField(field.name, std::move(values));
        }
        HostVector<double> values(field.values.size());
        interpolate(field.values.data(), values.data(), 1, 1);
        MeshField out(field.name, std::move(values));
        out.float32 = field.float32;
        return out;
    }
};

/// Throws std::invalid_argument naming `what` for a mesh without GLL nodes.
void require_gll_nodes(const Mesh& mesh, const char* what)
{
    if (!mesh_has_gll_nodes(mesh))
        throw std::invalid_argument(std::string(what) + ": mesh '" + mesh.source + "' has no GLL nodes");
}

}  // namespace

bool mesh_has_gll_nodes(const Mesh& mesh)
{
    return !mesh.is_mixed() && has_gll_nodes(mesh.cell_type, mesh.degree);
}

EquispacedOutput equispaced_output(const Mesh& mesh, const std::vector<MeshField>& point_fields)
{
    require_gll_nodes(mesh, "equispaced_output");
    const EquispacedMap map(mesh);
    EquispacedOutput out{mesh, {}};
    out.mesh.device.reset();
    map.interpolate(mesh.coordinates.data(), out.mesh.coordinates.data(), 3, 3);
    for (const MeshField& field : point_fields) out.point_fields.push_back(map.converted(field));
    return out;
}

std::vector<MeshField> equispaced_point_fields(const Mesh& mesh, const std::vector<MeshField>& point_fields,
                                               const std::vector<std::string>& skip)
{
    require_gll_nodes(mesh, "equispaced_point_fields");
    std::vector<MeshField> out;
    if (std::all_of(point_fields.begin(), point_fields.end(), [&](const MeshField& f) {
            return std::find(skip.begin(), skip.end(), f.name) != skip.end();
        }))
        return out;
    const EquispacedMap map(mesh);
    for (const MeshField& field : point_fields)
        if (std::find(skip.begin(), skip.end(), field.name) == skip.end()) out.push_back(map.converted(field));
    return out;
}

}  // namespace gpufem
