#include "assembly/mesh_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "assembly/geometry_check_kernels.hpp"

namespace gpufem {
namespace {

/// "cell 12 (counted from 0; nodes at (0, 0, 0), (0.5, 0, 0), ...)": a cell and the positions
/// of its first nodes (its vertices come first), which name it whatever the file's numbering.
std::string cell_text(const Mesh& mesh, long long cell)
{
    std::string nodes;
    const int shown = std::min(mesh.nodes_per_cell, 4);
    for (int i = 0; i < shown; ++i) {
        const double* x =
            &mesh.coordinates[3 * static_cast<std::size_t>(
                                      mesh.cells[static_cast<std::size_t>(cell) * mesh.nodes_per_cell + i])];
        nodes += fmt::format("{}({:.6g}, {:.6g}, {:.6g})", i ? ", " : "", x[0], x[1], x[2]);
    }
    if (shown < mesh.nodes_per_cell) nodes += ", ...";
    return fmt::format("cell {} (counted from 0; nodes at {})", cell, nodes);
}

/// Finite coordinates, and z = const in 2D.
void check_coordinates(const Mesh& mesh)
{
    const long long n = mesh.num_nodes();
    const double* x = mesh.coordinates.data();
    long long first_bad = std::numeric_limits<long long>::max();
    double largest = 0;
#pragma omp parallel for reduction(min : first_bad) reduction(max : largest) schedule(static)
    for (long long i = 0; i < n; ++i)
        for (int d = 0; d < 3; ++d) {
            if (!std::isfinite(x[3 * i + d])) first_bad = std::min(first_bad, i);
            else largest = std::max(largest, std::abs(x[3 * i + d]));
        }
    if (first_bad < n)
        throw std::runtime_error(fmt::format(
            "mesh {}: node {} has a coordinate that is not finite ({}, {}, {})", mesh.source,
            first_bad, x[3 * first_bad], x[3 * first_bad + 1], x[3 * first_bad + 2]));
    if (mesh.dim != 2 || n == 0) return;
    const double z0 = x[2], tolerance = 1e-10 * std::max(1.0, largest);
    long long off_plane = std::numeric_limits<long long>::max();
#pragma omp parallel for reduction(min : off_plane) schedule(static)
    for (long long i = 0; i < n; ++i)
        if (std::abs(x[3 * i + 2] - z0) > tolerance) off_plane = std::min(off_plane, i);
    if (off_plane < n)
        throw std::runtime_error(fmt::format(
            "mesh {} is 2D but does not lie in a plane z = const (node 0 at z = {}, node {} at "
            "({}, {}, {})): gpufem solves 2D problems in the xy-plane and would solve this one on "
            "its projection; move the mesh into a plane z = const",
            mesh.source, z0, off_plane, x[3 * off_plane], x[3 * off_plane + 1],
            x[3 * off_plane + 2]));
}

}  // namespace

template <typename V>
void check_mesh_geometry(const Mesh& mesh, const ElementData<V>& data)
{
    check_coordinates(mesh);
    const ExecPtr& exec = data.coordinates.executor();
    const ElementArgs<V> args = data.args();
    const JacobianSigns signs = GPUFEM_DISPATCH(*exec, jacobian_signs(*exec, args));
    if (signs.first_degenerate >= 0) {
        const long long cell = signs.first_degenerate / data.num_points;
        throw std::runtime_error(fmt::format(
            "mesh {}: {} is degenerate or folded: det J is zero, not finite or changes sign at "
            "quadrature point {} (cells with a consistent sign: {} positive, {} negative)",
            mesh.source, cell_text(mesh, cell), signs.first_degenerate % data.num_points,
            signs.positive, signs.negative));
    }
    if (signs.positive > 0 && signs.negative > 0) {
        const bool fewer_negative = signs.negative <= signs.positive;
        const long long cell = fewer_negative ? signs.first_negative : signs.first_positive;
        throw std::runtime_error(fmt::format(
            "mesh {} is tangled: {} cells are inverted against the other {} (det J {} where the "
            "others have it {}), the first is {}; a node was moved past its neighbours",
            mesh.source, fewer_negative ? signs.negative : signs.positive,
            fewer_negative ? signs.positive : signs.negative,
            fewer_negative ? "< 0" : "> 0", fewer_negative ? "> 0" : "< 0", cell_text(mesh, cell)));
    }
}

template void check_mesh_geometry(const Mesh&, const ElementData<float>&);
template void check_mesh_geometry(const Mesh&, const ElementData<double>&);

}  // namespace gpufem
