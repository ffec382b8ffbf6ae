#include "mesh/gll_output.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "linalg/cpu/chunked_loops.hpp"
#include "linalg/executor.hpp"
#include "mesh/gll_points.hpp"
#include "mesh/lagrange_basis.hpp"
#include "mesh/stage_laps.hpp"

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
    if (t.points > equispaced_max_points)
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

/// The field converted on the host (held as it is: double or float).
MeshField converted_field(const EquispacedConversion& conversion, const MeshField& field)
{
    if (field.held_in_float()) {
        HostVector<float> values(field.narrow.size());
        conversion.apply(field.narrow.data(), values.data());
        return MeshField(field.name, std::move(values));
    }
    HostVector<double> values(field.values.size());
    conversion.apply(field.values.data(), values.data());
    MeshField out(field.name, std::move(values));
    out.float32 = field.float32;
    return out;
}

/// A copy of `from` made by the host's threads (a mesh's cells: tens to hundreds of MB).
template <typename T>
HostVector<T> threaded_copy(const HostVector<T>& from)
{
    HostVector<T> to(from.size());
    kernels::cpu::chunked_for(static_cast<long long>(from.size()), [&](long long i) { to[i] = from[i]; });
    return to;
}

/// The mesh but its coordinates, its device copy and what refinement reads (the curved
/// geometry, the parent cells): what an output of it with other node positions needs.
Mesh mesh_without_coordinates(const Mesh& mesh)
{
    Mesh out;
    out.dim = mesh.dim;
    out.cell_type = mesh.cell_type;
    out.degree = mesh.degree;
    out.nodes_per_cell = mesh.nodes_per_cell;
    out.cells = threaded_copy(mesh.cells);
    out.cell_types = mesh.cell_types;
    out.cell_group = threaded_copy(mesh.cell_group);
    out.subdomains = mesh.subdomains;
    out.boundaries = mesh.boundaries;
    out.ignored_boundaries = mesh.ignored_boundaries;
    out.cell_fields = mesh.cell_fields;
    out.source = mesh.source;
    out.build_times = mesh.build_times;
    out.generated_grid = mesh.generated_grid;
    return out;
}

/// The host's executor.
const ExecPtr& host_executor()
{
    static const ExecPtr host = Executor::create_cpu();
    return host;
}

/// The mesh with its nodes at their equispaced places, moved by conversion (on exec: from the
/// mesh's device copy, downloaded, on a CUDA executor).
Mesh moved_copy(const Mesh& mesh, const ExecPtr& exec, const EquispacedConversion& conversion)
{
    Mesh out = mesh_without_coordinates(mesh);
    const std::size_t values = mesh.node_coordinates().size();
    if (!exec->is_cuda()) {
        out.coordinates = HostVector<double>(values);
        conversion.apply(mesh.node_coordinates().data(), out.coordinates.data(), 3, 3);
        return out;
    }
    const MeshOnExec from(mesh, exec);
    Array<double> moved(exec, values);
    conversion.apply(from.coordinates, moved.data(), 3, 3);
    out.coordinates = moved.to_host_vector();
    return out;
}

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

EquispacedConversion::EquispacedConversion(const ExecPtr& exec, const Mesh& mesh)
    : exec_(exec), cells_(mesh, exec, MeshOnExec::Parts::cells_only)
{
    require_gll_nodes(mesh, "equispaced conversion");
    const TensorInterpolation tensor = tensor_interpolation(mesh.cell_type, mesh.degree);
    const index_type* cells = cells_.cells;
    line_ = Array<double>::from_host(exec, tensor.line);
    lexicographic_ = Array<int>::from_host(exec, tensor.lexicographic);
    owner_ = Array<index_type>(exec, static_cast<std::size_t>(mesh.num_nodes()));
    GPUFEM_DISPATCH(*exec, first_cells_of_nodes(*exec, cells, mesh.nodes_per_cell, mesh.num_cells(), mesh.num_nodes(),
                                                owner_.data()));
    args_ = {cells, mesh.nodes_per_cell, mesh.num_cells(), mesh.num_nodes(), tensor.points, tensor.dim,
             line_.data(), lexicographic_.data(), owner_.data()};
}

template <typename T>
void EquispacedConversion::apply(const T* in, T* out, int stride, int components) const
{
    GPUFEM_DISPATCH(*exec_, equispaced_values(*exec_, args_, in, out, stride, components));
    exec_->synchronize();
}

template <typename T>
Array<T> EquispacedConversion::converted(const Array<T>& in) const
{
    Array<T> out(exec_, in.size());
    apply(in.data(), out.data());
    return out;
}

template void EquispacedConversion::apply(const float*, float*, int, int) const;
template void EquispacedConversion::apply(const double*, double*, int, int) const;
template Array<float> EquispacedConversion::converted(const Array<float>&) const;
template Array<double> EquispacedConversion::converted(const Array<double>&) const;

EquispacedOutput equispaced_output(const Mesh& mesh, const std::vector<MeshField>& point_fields)
{
    require_gll_nodes(mesh, "equispaced_output");
    const EquispacedConversion conversion(host_executor(), mesh);
    EquispacedOutput out{moved_copy(mesh, host_executor(), conversion), {}};
    for (const MeshField& field : point_fields) out.point_fields.push_back(converted_field(conversion, field));
    return out;
}

Mesh equispaced_mesh(const Mesh& mesh, const ExecPtr& exec)
{
    require_gll_nodes(mesh, "equispaced_mesh");
    StageLaps laps;  // the debug line below
    const std::size_t values = mesh.node_coordinates().size();
    // The device holds the input, the output and the conversion's first cells at once.
    const std::size_t device_bytes = 2 * values * sizeof(double) + values / 3 * sizeof(index_type);
    const ExecPtr& where = exec->is_cuda() && exec->free_memory() > 2 * device_bytes ? exec : host_executor();
    const EquispacedConversion conversion(where, mesh);
    laps.lap("conversion's tables");
    Mesh out = moved_copy(mesh, where, conversion);
    laps.lap(where->is_cuda() ? "cells copied, nodes moved on the device" : "cells copied, nodes moved on the host");
    spdlog::debug("equispaced copy of the mesh: {}", laps.text);
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
    const EquispacedConversion conversion(host_executor(), mesh);
    for (const MeshField& field : point_fields)
        if (std::find(skip.begin(), skip.end(), field.name) == skip.end())
            out.push_back(converted_field(conversion, field));
    return out;
}

}  // namespace gpufem
