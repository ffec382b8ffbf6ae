#include "assembly/fv_memory_estimate.hpp"

#include <algorithm>

#include "mesh/mesh_entities.hpp"
#include "mesh/shapes/cell_shape.hpp"

namespace gpufem {
namespace {

/// The most faces (2D: edges) of a cell of the mesh.
double faces_per_cell(const MeshCounts& mesh)
{
    return mesh.faces_per_cell > 0 ? mesh.faces_per_cell : cell_shape(mesh.cell_type).side_count();
}

/// Whether the correction runs: asked for, on a mesh that is not orthogonal by its cell type.
bool corrected(const MeshCounts& mesh, const FvOptions& options)
{
    return options.nonorthogonal_correctors > 0 &&
           (mesh.mixed ||
            (mesh.cell_type != ElementType::quadrilateral && mesh.cell_type != ElementType::hexahedron));
}

/// Executor bytes of the discretisation's state: its own copy of the mesh where it is not on
/// the device yet, centroids, volumes, kappa and f per cell, the right-hand side without
/// correction; the faces' neighbours and groups.
double state_bytes(const MeshCounts& mesh, const MemoryChoices& c, double mesh_on_device, double vector)
{
    const double cells = mesh.cells, slots = cells * faces_per_cell(mesh);
    const double own_mesh =
        c.cuda && mesh_on_device == 0 ? 24 * mesh.nodes + 4 * cells * mesh.nodes_per_cell : 0;
    return own_mesh + 48 * cells + vector + 8 * slots;
}

/// Executor bytes of the assembly beside the state: keys, their sorted copy and slot indices
/// while the faces are numbered (3D meshes of more than 2^21 vertices key their faces through
/// the numbered edges, which are sorted first), or the CSR matrix with rhs and guess.
double assembly_bytes(const MeshCounts& mesh, double csr, double vector)
{
    const double cells = mesh.cells, slots = cells * faces_per_cell(mesh);
    const double edges_per_cell = mesh.cell_type == ElementType::hexahedron ? 12 : 6;
    const bool through_edges = mesh.dim == 3 && bits_for(static_cast<long long>(mesh.nodes)) > 21;
    const double face_keys = 28 * slots + (through_edges ? 32 * cells * edges_per_cell : 0);
    return std::max(face_keys, csr + 2 * vector);
}

/// The correction: gradients (3 doubles a cell), its right-hand sides and reorderings
/// (implicit: b(0) twice and an apply's temporaries; deferred: the passes' vectors and
/// Anderson's 2 x 5 history).
double correction_bytes(const MeshCounts& mesh, const FvOptions& options, double vector)
{
    if (!corrected(mesh, options)) return 0;
    return 24 * mesh.cells + (options.correction == FvCorrection::implicit ? 6 : 14) * vector;
}

/// The fluxes (with output.fluxes; else nothing): on the executor the gradients, the face
/// fluxes, their groups' tags and a masked copy for the sums, the cells' fluxes and integrals,
/// the node sums and the fields' columns; on the host the flux fields.
PhaseBytes flux_bytes(const MeshCounts& mesh, const MemoryChoices& c, double vector)
{
    if (!c.fluxes) return {};
    const double cells = mesh.cells, slots = cells * faces_per_cell(mesh), nodes = mesh.nodes;
    return {vector + flux_field_bytes(c, mesh), 88 * cells + 20 * slots + 56 * nodes + 2 * vector};
}

}  // namespace

MatrixShape fv_matrix_shape(const MeshCounts& mesh, double value_bytes)
{
    const double faces = faces_per_cell(mesh);
    MatrixShape m;
    m.rows = mesh.cells;
    m.nnz = mesh.cells * (faces + 1);  // at most: a boundary face has no neighbour
    m.max_row_length = faces + 1;
    m.padded_row_length = faces + 1;
    m.band_width = mesh.cells;
    m.value_bytes = value_bytes;
    return m;
}

DiscretisationMemory fv_memory(const MeshCounts& mesh, const ProblemSpec& problem, const FvOptions& options,
                               const MatrixShape& m, const MemoryChoices& c)
{
    const double cells = mesh.cells, v = mesh.nodes_per_cell;
    const double vector = cells * c.value_bytes;
    const double csr = csr_bytes(m);
    DiscretisationMemory d;
    d.mesh = mesh_memory(mesh, c.cuda);
    d.vector = vector;
    d.system = c.format.stored + 2 * vector + (c.keep_matrix ? csr : 0);
    d.kept = c.preconditioner_kept;
    d.setup = c.preconditioner_setup;
    const double state = state_bytes(mesh, c, d.mesh.device, vector);
    const double assembly = state + assembly_bytes(mesh, csr, vector);
    const double resident = state + correction_bytes(mesh, options, vector);
    const double fields = problem.exact.empty() ? 1 : 3;
    const PhaseBytes flux = flux_bytes(mesh, c, vector);
    const double flux_fields = flux_field_bytes(c, mesh);
    const double errors = state + d.system + vector + std::max(24 * cells + 8 * fields * cells, flux.device);
    double output = 8 * cells * fields + flux_fields + 9 * cells;
    if (c.write_solution) output += 24 * mesh.nodes + 8 * cells * fields + flux_fields + 4 * cells * v + 9 * cells + 4e6;
    if (c.cuda) {
        const double prewrite = prewrite_host_bytes(c, mesh);
        d.assembly = {prewrite, assembly};
        d.resident = {prewrite, resident};
        d.errors = {9 * cells + 8 * fields * cells + flux.host, errors};
        d.output = {output, state + d.system + vector};
    } else {
        d.assembly = {assembly, 0};
        d.resident = {resident, 0};
        d.errors = {errors + 8 * fields * cells + flux.host, 0};
        d.output = {state + d.system + vector + output, 0};
    }
    return d;
}

}  // namespace gpufem
