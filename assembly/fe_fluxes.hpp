#pragma once
// The fluxes of a finite-element solution: the field -kappa grad u_h per cell (its mean over
// the cell) and at the nodes (local averaging: at each node the mean of its cells' values
// there, weighted by |det J| at the node), the flux out through each boundary group with a
// condition, each region's integrals of u and the data, all computed on u's executor. A
// Dirichlet group's flux is the consistent, residual-based one: the sum over the group's nodes
// of (A u - b)_i, A and b the system before the Dirichlet rows are replaced, so that the
// boundary fluxes balance the source to the solver's tolerance.
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "assembly/flux_report.hpp"
#include "assembly/problem_spec.hpp"
#include "assembly/reference_element.hpp"
#include "linalg/array.hpp"
#include "mesh/mesh.hpp"
#include "mesh/vtk_writer.hpp"

namespace gpufem {

class EquispacedConversion;

/// The flux fields and the report of a solution.
struct SolutionFluxes {
    std::vector<MeshField> point_fields;  ///< flux_x, flux_y (, flux_z): node averages
    std::vector<MeshField> cell_fields;   ///< flux_x, flux_y (, flux_z): cell means
    FluxReport report;
};

/// Marks flux fields held in double to be written as Float32 (float32) or Float64 (those held
/// in float are Float32 already).
inline void set_flux_field_precision(SolutionFluxes& fluxes, bool float32)
{
    for (MeshField& f : fluxes.point_fields) f.float32 = float32;
    for (MeshField& f : fluxes.cell_fields) f.float32 = float32;
}

/// What of a mesh the fluxes' sums cover. The whole mesh by default; on one rank's part of
/// a mesh (assembly/part_mesh.hpp) its owned nodes (numbered first) and its own cells
/// (numbered first), so that the ranks' sums add up to the whole mesh's: a group's flux is a
/// sum over its nodes (each node's value is complete where the part holds every cell around
/// it, as it does around its owned nodes), a region's integrals a sum over its cells. A part's
/// report lists every subdomain of mesh.subdomains (and tag 0), empty ones too, so that the
/// ranks' lists match entry by entry.
struct FluxScope {
    index_type owned_nodes = -1;  ///< the nodes summed over are 0 .. owned_nodes - 1 (-1: all)
    index_type own_cells = -1;    ///< the cells summed over are 0 .. own_cells - 1 (-1: all)

    /// Whether the scope is a part of the mesh.
    bool partial() const { return owned_nodes >= 0 || own_cells >= 0; }
};

/// How fe_fluxes hands over its flux fields: held in float and written as Float32, or held in
/// double and written as Float64 (MeshField::narrow, float32), and, when cells_ready is set,
/// the cells' fields as soon as they are on the host, before the point fields are computed (so
/// that they can be written meanwhile; their values stay where they are as the fields are
/// moved into the result).
struct FluxFieldOptions {
    bool float32 = true;
    std::function<void(std::span<const MeshField>)> cells_ready;
    /// Where given, the point fields are converted by it to the equispaced points (on the
    /// executor, before they are copied to the host).
    const EquispacedConversion* equispaced = nullptr;
};

/// The fluxes of the Lagrange solution u (one value per mesh node, on its executor) of problem
/// on mesh (any order, mixed meshes block by block); the report's sums over scope. The
/// fields cover every cell and node (a part's nodes that it does not own: only their cells
/// held there).
template <typename V>
SolutionFluxes fe_fluxes(const Mesh& mesh, const ProblemSpec& problem, const Array<V>& u, FluxScope scope = {},
                         const FluxFieldOptions& fields = {});

/// The reference element of this type and degree whose points are the element's nodes, in
/// its node order (weights 1): where the flux at the nodes is computed. The pyramid's rational
/// basis has no gradient at its apex: its points are moved towards the centre by 1e-9 of the way.
ReferenceElement nodal_reference(ElementType type, int degree);

/// The regions' integrals from each cell's integrals on their executor (5 columns of
/// mesh.num_cells() values: volume, u, f, c u, b . grad u), summed there by the cells' region
/// (mesh.cell_group; named by mesh.subdomains) over the first `summed` cells: for each region
/// the cells hold, or (every_subdomain) for every subdomain of the mesh.
std::vector<RegionIntegrals> region_integrals(const Mesh& mesh, const Array<double>& integrals, long long summed,
                                              bool every_subdomain = false);

/// The name of the region of subdomain tag `tag` (its physical group's name; the tag for a
/// group without a name; "" for tag 0, cells in no group).
std::string region_name(const Mesh& mesh, int tag);

/// The flux at the nodes from its weighted sums on their executor (sum: 3 per node, weight: one),
/// sum / weight per component (0 where the weight is 0), as the dim fields flux_x, flux_y
/// (, flux_z): divided on the executor, only the dim columns copied to the host (float32: as
/// column_fields); with equispaced, each column converted by it to the equispaced points first.
std::vector<MeshField> node_mean_fields(int dim, const Array<double>& sum, const Array<double>& weight,
                                        bool float32, const EquispacedConversion* equispaced = nullptr);

/// The flux fields flux_x, flux_y (, flux_z) of dim components from columns of n values on their
/// executor (component d at d n), copied to the host: float32, rounded to float on the executor
/// and held in float (MeshField::narrow, written as Float32), otherwise in double.
std::vector<MeshField> column_fields(int dim, const Array<double>& columns, std::size_t n, bool float32);

}  // namespace gpufem
