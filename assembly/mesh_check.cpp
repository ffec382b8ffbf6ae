#include "assembly/mesh_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "assembly/geometry_check_kernels.hpp"
#include "mesh/cell_description.hpp"
#include "mesh/mesh_conformity.hpp"
#include "mesh/mesh_overlap.hpp"
#include "mesh/mesh_quality.hpp"

namespace gpufem {
namespace {

/// Whether the cells of a 2D mesh whose det J has both signs overlap: each cell's orientation
/// is its own (Gmsh orients each surface as it was drawn); only overlap is an error. Meshes
/// without a face adjacency count as overlapping, as before.
bool cells_overlap_2d(const Mesh& mesh, const ExecPtr& exec)
{
    if (!face_adjacency_supported(mesh)) return true;
    return find_overlap_2d(mesh, face_slots(mesh, exec)).has_value();
}

/// The advice for a degenerate or folded cell: Gmsh's curved cells of order 2 and above fold
/// where a boundary curves sharply, and straight cells of the same mesh run.
std::string folded_advice(const Mesh& mesh)
{
    if (mesh.degree == 1) return "";
    return fmt::format("; the cells are of order {}: if they are Gmsh's curved cells, mesh.geometry_order: 1 "
                       "runs them as straight-sided cells (or refine the mesh near curved boundaries)",
                       mesh.degree);
}

}  // namespace

void check_jacobian_signs(const Mesh& mesh, const JacobianSigns& signs, int num_points, const ExecPtr& exec)
{
    if (signs.first_degenerate >= 0) {
        const long long cell = signs.first_degenerate / num_points;
        throw std::runtime_error(fmt::format(
            "mesh {}: {} is degenerate or folded: det J is zero, not finite or changes sign at "
            "quadrature point {} (cells with a consistent sign: {} positive, {} negative){}",
            mesh.source, cell_text(mesh, cell), signs.first_degenerate % num_points,
            signs.positive, signs.negative, folded_advice(mesh)));
    }
    if (signs.positive > 0 && signs.negative > 0 && (mesh.dim != 2 || cells_overlap_2d(mesh, exec))) {
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

template <typename V>
void check_mesh_geometry(const Mesh& mesh, const ElementData<V>& data)
{
    check_mesh_coordinates(mesh);
    const ExecPtr& exec = data.coordinates.executor();
    check_jacobian_signs(mesh, GPUFEM_DISPATCH(*exec, jacobian_signs(*exec, data.args())), data.num_points, exec);
}

template void check_mesh_geometry(const Mesh&, const ElementData<float>&);
template void check_mesh_geometry(const Mesh&, const ElementData<double>&);

}  // namespace gpufem
