#include "solver/run/memory_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "assembly/operator_levels.hpp"
#include "assembly/lma_operator.hpp"
#include "assembly/pattern_estimate.hpp"
#include "linalg/host_memory.hpp"
#include "linalg/matrix_market.hpp"
#include "mesh/grid_coarsening.hpp"
#include "mesh/mesh_entities.hpp"
#include "mesh/shapes/cell_shape.hpp"
#include "solver/run/format_choice.hpp"

namespace gpufem {
namespace {

/// True when an expression is a plain number (kept as one value, not per quadrature point).
bool is_number(const std::string& text)
{
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    return end != text.c_str() && *end == '\0';
}

double gigabytes(double bytes) { return bytes / 1e9; }

/// The sizes the model is written in (bytes apart from counts).
struct Sizes {
    double n = 0;   ///< nodes = unknowns
    double c = 0;   ///< cells
    double p = 0;   ///< nodes per cell
    double s = 8;   ///< value size
    double q = 0;   ///< assembly quadrature points per cell
    int k = 1;
    int d = 2;
};

/// Vectors of the Krylov solver (merged or reference; the preconditioner's own apart): z
/// for a preconditioner applied on its own in merged CG, M^-1 p and M^-1 s in BiCGSTAB.
double krylov_vectors(const SolverSpec& solver)
{
    const PreconditionerEntry& m = *solver.preconditioner;
    const bool preconditioned = !m.identity;
    if (solver.method == KrylovMethod::bicgstab) return preconditioned ? 8 : 6;
    if (solver.variant == KrylovVariant::merged) return preconditioned && !m.diagonal ? 4 : 3;
    return preconditioned ? 4 : 3;
}

}  // namespace

double MemoryEstimate::peak_host() const
{
    double peak = 0;
    for (const PhaseEstimate& p : phases) peak = std::max(peak, p.host);
    return peak;
}

double MemoryEstimate::peak_device() const
{
    double peak = 0;
    for (const PhaseEstimate& p : phases) peak = std::max(peak, p.device);
    return peak;
}

const PhaseEstimate& MemoryEstimate::peak_phase(bool device) const
{
    return *std::max_element(phases.begin(), phases.end(), [&](const auto& a, const auto& b) {
        return device ? a.device < b.device : a.host < b.host;
    });
}

namespace {

/// The memory of format name for a matrix of shape m (auto: the largest of the formats it
/// tries, each built while the CSR it starts from is kept), with the case's reordering.
FormatMemory format_memory_estimate(const std::string& name, const MatrixShape& m,
                                    const FormatOptions& options)
{
    FormatMemory f;
    if (name == auto_format_name) {
        for (const FormatEntry* entry :
             auto_format_candidates(m.on_device ? Backend::cuda : Backend::cpu)) {
            // A format told to refuse a matrix it stores poorly (bdia's band) is left out.
            if (entry->limit_bytes) continue;
            const FormatMemory one = entry->estimate_memory(m, options);
            f.stored = std::max(f.stored, one.stored);
            f.build_peak = std::max(f.build_peak, one.build_peak + csr_bytes(m));
            f.host = std::max(f.host, one.host);
        }
    } else {
        f = find_operator(name).entry().estimate_memory(m, options);
    }
    if (options.reordering() != Reordering::none) {
        f.build_peak = std::max(f.build_peak, csr_bytes(m) + symmetric_permutation_bytes(m));
        f.host += cuthill_mckee_host_bytes(m);
    }
    return f;
}

}  // namespace

namespace {

/// The mesh's bytes: on the host, coordinates (3 doubles per node), cells, their groups and
/// the boundary facets (generated shapes grow these lists: up to 1.5 x); on a CUDA device
/// the coordinates and cells of meshes made or refined there.
std::pair<double, double> mesh_bytes(const MeshCounts& mesh, bool cuda)
{
    const double nodes = mesh.nodes, cells = mesh.cells, per_cell = mesh.nodes_per_cell;
    const bool generated = !mesh.shape.empty();  // written on the device as it is generated
    const double host = 24 * nodes + 4 * cells * per_cell + 4 * cells +
                        4 * mesh.facet_entries * (generated ? 1.5 : 1.0);
    const double device = cuda && (mesh.on_device || generated) ? 24 * nodes + 4 * cells * per_cell : 0;
    return {host, device};
}

/// Host bytes of result.vtu's mesh written during a CUDA run (start_vtu_prewrite): VTK's
/// offsets, types and groups, and the compressed blocks in flight (about half the raw arrays
/// at most); 0 when the run writes no LZ4 result.vtu.
double prewrite_host_bytes(const CaseSpec& spec, const MeshCounts& mesh)
{
    if (!spec.output.write_solution || spec.output.compression != VtuCompression::lz4) return 0;
    return 9 * mesh.cells + 0.5 * (24 * mesh.nodes + 4 * mesh.cells * mesh.nodes_per_cell);
}

/// The finite-volume run's estimate (one unknown per cell): the mesh, the face adjacency (its
/// keys sorted once), the cells' geometry and coefficients, a row per cell with the cell and
/// its face neighbours, and the correction's gradients. The preconditioner's arrays per row
/// weigh more than the finite elements' (5 entries a row on tetrahedra, 27 on Q1 hexahedra):
/// AMG keeps P and R of about 3 entries a row (60 bytes per cell) and its setup's aggregation
/// works on another 40 bytes per cell. Calibrated on `fv_cube_tets_4m` (H100).
MemoryEstimate estimate_fv_memory(const CaseSpec& spec, const MeshCounts& mesh, bool cuda, double baseline_host)
{
    MemoryEstimate e;
    e.mesh = mesh;
    e.format_name = spec.format;
    e.cuda = cuda;
    e.baseline_host = baseline_host;
    const double c = mesh.cells, nodes = mesh.nodes, v = mesh.nodes_per_cell;
    const double s = spec.precision == Precision::float32 ? 4 : 8;
    const double faces = mesh.faces_per_cell > 0 ? mesh.faces_per_cell : cell_shape(mesh.cell_type).side_count();
    const double slots = c * faces;
    e.assembles_csr = "finite volumes";
    e.matrix.rows = c;
    e.matrix.nnz = c * (faces + 1);  // at most: a boundary face has no neighbour
    e.matrix.max_row_length = faces + 1;
    e.matrix.padded_row_length = faces + 1;
    e.matrix.band_width = c;
    e.matrix.value_bytes = s;
    e.matrix.on_device = cuda;
    const MatrixShape& m = e.matrix;
    e.format = format_memory_estimate(spec.format, m, spec.format_options);
    const double csr = csr_bytes(m);
    const double vector = c * s;

    const auto [mesh_host, mesh_on_device] = mesh_bytes(mesh, cuda);
    // The discretisation's own copy of the mesh where it is not on the device yet, centroids,
    // volumes, kappa and f per cell, the right-hand side without correction; the faces'
    // neighbours and groups.
    const double own_mesh = cuda && mesh_on_device == 0 ? 24 * nodes + 4 * c * v : 0;
    const double state = own_mesh + 48 * c + vector + 8 * slots;
    // Keys, their sorted copy and slot indices while the faces are numbered; 3D meshes of more
    // than 2^21 vertices key their faces through the numbered edges, which are sorted first.
    const double edges_per_cell = mesh.cell_type == ElementType::hexahedron ? 12 : 6;
    const bool through_edges = mesh.dim == 3 && bits_for(static_cast<long long>(nodes)) > 21;
    const double face_keys = 28 * slots + (through_edges ? 32 * c * edges_per_cell : 0);
    const double assembled = csr + 2 * vector;
    const double assembly = state + std::max(face_keys, assembled);
    const PreconditionerEntry& preconditioner = *spec.solver.preconditioner;
    const double system = e.format.stored + 2 * vector + (preconditioner.needs.assembled_matrix ? csr : 0);
    const auto [kept, setup] = preconditioner.memory(m, true);
    const double krylov = krylov_vectors(spec.solver) * vector + 8.0 * (spec.solver.max_iterations + 1);
    // The correction: gradients (3 doubles a cell), its right-hand sides and reorderings
    // (implicit: b(0) twice and an apply's temporaries; deferred: the passes' vectors and
    // Anderson's 2 x 5 history).
    const bool corrected = spec.fv.nonorthogonal_correctors > 0 &&
                           (mesh.mixed || (mesh.cell_type != ElementType::quadrilateral &&
                                           mesh.cell_type != ElementType::hexahedron));
    const double correction =
        !corrected ? 0 : 24 * c + (spec.fv.correction == FvCorrection::implicit ? 6 : 14) * vector;
    const double solve = state + system + 2 * vector + kept + std::max(setup, krylov) + correction;
    const double fields = spec.problem.exact.empty() ? 1 : 3;
    const double errors = state + system + vector + 24 * c + 8 * fields * c;
    double output = 8 * c * fields + 9 * c;
    if (spec.output.write_solution) output += 24 * nodes + 8 * c * fields + 4 * c * v + 9 * c + 4e6;
    const double base = baseline_host + mesh_host;
    if (cuda) {
        const double prewrite = prewrite_host_bytes(spec, mesh);
        e.phases = {{"mesh", base, mesh_on_device},
                    {"assembly", base + prewrite, mesh_on_device + assembly},
                    {"solve", base + prewrite, mesh_on_device + solve},
                    {"errors", base + 9 * c + 8 * fields * c, mesh_on_device + errors},
                    {"output", base + output, mesh_on_device + state + system + vector}};
    } else {
        e.phases = {{"mesh", base, 0},
                    {"assembly", base + assembly, 0},
                    {"solve", base + solve, 0},
                    {"errors", base + errors + 8 * fields * c, 0},
                    {"output", base + state + system + vector + output, 0}};
    }
    return e;
}

}  // namespace

MemoryEstimate estimate_memory(const CaseSpec& spec, const MeshCounts& mesh, bool cuda,
                               double baseline_host)
{
    if (spec.discretisation == DiscretisationKind::fv) return estimate_fv_memory(spec, mesh, cuda, baseline_host);
    MemoryEstimate e;
    e.mesh = mesh;
    e.format_name = spec.format;
    e.cuda = cuda;
    e.baseline_host = baseline_host;
    Sizes z;
    z.n = mesh.nodes;
    z.c = mesh.cells;
    z.p = mesh.nodes_per_cell;
    z.s = spec.precision == Precision::float32 ? 4 : 8;
    z.k = std::clamp(mesh.degree, 1, 4);
    z.d = mesh.dim;
    const bool simplex = cell_shape(mesh.cell_type).simplex;
    z.q = z.k == 1 && simplex ? z.d + 1 : std::pow(z.k + 1.0, z.d);
    // Pyramids (a mixed mesh may hold them): n^2 (n + 1) points, n = k + 2 (36 at degree 1, 80
    // at 2: assembly_quadrature_degree 2k + 2).
    if (mesh.mixed || mesh.cell_type == ElementType::pyramid)
        z.q = std::max(z.q, std::pow(z.k + 2.0, 2) * (z.k + 3.0));
    const bool float32 = z.s == 4;

    e.matrix = estimated_matrix_shape(mesh, z.s);
    e.matrix.on_device = cuda;
    const MatrixShape& m = e.matrix;
    // format: auto builds assembled formats (flags of the baseline's entry).
    const OperatorChoice entry =
        spec.format == auto_format_name ? OperatorChoice{&baseline_format(), nullptr} : find_operator(spec.format);
    e.format = format_memory_estimate(spec.format, m, spec.format_options);
    // Past 2^31 - 1 entries (or with csr's offsets: 64) a format that takes 64-bit offsets
    // holds the matrix: no cell-to-CSR map (the assembly searches the rows), 8-byte offsets.
    e.wide_offsets = entry.format && entry.format->takes_wide_csr() &&
                     (entry.format->wide_offsets_asked(spec.format_options) || m.nnz > csr_nnz_limit);
    const double wide_extra = e.wide_offsets ? 4 * (m.rows + 1) : 0.0;
    e.format.stored += wide_extra;
    e.format.build_peak += wide_extra;
    const double csr = csr_bytes(m) + wide_extra;
    const double vector = z.n * z.s;

    const auto [mesh_host, mesh_device] = mesh_bytes(mesh, cuda);

    // Assembly, on the executor: the element geometry (coordinates in V, cells), coefficients
    // at the quadrature points, the cell-to-CSR map, the matrix, rhs and Dirichlet data; the
    // high-order CUDA kernels' scratch stays until the run ends.
    const double stride = (z.d == 2 ? 4 : 7) + (spec.problem.convection.empty() ? 0 : z.d);
    const double scratch =
        cuda && z.k >= 2 ? std::min(z.c, std::floor(2097152 / z.q)) * z.q * stride * z.s : 0;
    // No cell-to-CSR map with 64-bit offsets, nor for a mesh of several types (both search
    // each entry's row).
    const double cell_map = e.wide_offsets || mesh.mixed ? 0.0 : 4 * z.c * z.p * z.p;
    // Element geometry and coefficients with values of s bytes.
    const auto inputs_of = [&](double s) {
        const double geometry = 3 * z.n * s + 4 * z.c * z.p;
        const double coefficients =
            z.c * z.q * s *
            ((is_number(spec.problem.kappa) ? 0 : 1) + (is_number(spec.problem.f) ? 0 : 1) +
             static_cast<double>(spec.problem.convection.size()));
        return geometry + coefficients;
    };
    // The assembly of the CSR system with values of s bytes, at its peak.
    const auto assembled_peak_of = [&](double s) {
        MatrixShape shape = m;
        shape.value_bytes = s;
        const double boundary = 2 * z.n * s + z.n + (s == 4 ? 24 * z.n : 0) + 4 * mesh.facet_entries;
        const double pattern_build =
            cuda ? 12 * m.nnz + 12 * z.n : 4 * m.nnz + 24 * z.n + 4 * z.c * z.p + cell_map;
        return inputs_of(s) + std::max(csr_bytes(shape) + wide_extra + cell_map + boundary, pattern_build);
    };
    // pmg from the element matrices (matrix-free formats, degree >= 2 or a generated grid's
    // h-level): no matrix is assembled and kept; its setup holds every cell's element matrix once.
    // So is a matrix with 64-bit offsets (no CSR for the Galerkin products).
    // (A mesh of several cell types has no coarser levels: its pmg is AMG on the matrix.)
    const bool element_coarse_operators =
        !mesh.mixed && (z.k >= 2 || can_coarsen_grid(mesh.shape, mesh.boxes_per_unit, mesh.cell_type, z.k));
    const PreconditionerEntry& preconditioner = *spec.solver.preconditioner;
    const bool element_pmg =
        (spec.format != auto_format_name || e.wide_offsets) &&
        preconditioner.coarse_from_elements(element_coarse_operators || mesh.refined,
                                            entry.matrix_free() || e.wide_offsets);
    if (e.wide_offsets && preconditioner.keeps_matrix(element_pmg))
        e.wide_refusal = fmt::format("preconditioner {} reads the matrix with 32-bit row offsets; use {}",
                                     preconditioner.name, wide_offsets_preconditioners);
    else if (e.wide_offsets && spec.format_options.reordering() != Reordering::none)
        e.wide_refusal = fmt::format("reorder: {} permutes matrices with 32-bit row offsets only; use reorder: none",
                                     enum_name(reordering_names, spec.format_options.reordering()));
    const bool keep_matrix = preconditioner.keeps_matrix(element_pmg) && !(entry.format && entry.format->keeps_csr);
    if (!entry.matrix_free())
        e.assembles_csr = spec.format == auto_format_name ? "format auto (its candidates are assembled)" : "format " + spec.format;
    else if (keep_matrix)
        e.assembles_csr = "preconditioner " + preconditioner.name + " (with format " + spec.format +
                          " the matrix is assembled for its setup" +
                          (preconditioner.needs.space_hierarchy
                               ? ": at degree 1 on a mesh with no coarser grid or parent mesh, " +
                                     preconditioner.name + " is amg"
                               : "") +
                          ")";
    // Exact for the unit square and cube (the l-shape's count adds three squares: an upper bound).
    e.nnz_exact = mesh.shape == "unit_square" || mesh.shape == "unit_cube";
    const double assembled_peak = assembled_peak_of(z.s);
    double assembly = 0;
    double system = 0;  // what the assembly leaves for the solve: operator, rhs, guess
    if (entry.matrix_free()) {
        // Element matrices from the element kernels, no CSR (one more assembled for multigrid).
        assembly = inputs_of(z.s) + e.format.build_peak + vector + z.n;
        system = e.format.stored + 2 * vector;
        if (keep_matrix) {
            assembly = std::max(assembly, e.format.stored + assembled_peak);
            system += csr;
        }
    } else {
        // The host steps of a conversion (orderings) come before its executor peak.
        const double conversion = e.format.build_peak + 2 * vector + (keep_matrix ? csr : 0);
        assembly = std::max({assembled_peak, conversion, cuda ? 0.0 : csr + 2 * vector + e.format.host});
        system = e.format.stored + 2 * vector + (keep_matrix ? csr : 0);
    }

    // Solve: the system, the right-hand side and guess in the operator's numbering, the
    // Krylov vectors, the preconditioner, the residual history; then the true residual and
    // the solution back in the original numbering.
    auto [kept, setup] = preconditioner.memory(m, false);
    if (!element_pmg && preconditioner.needs.space_hierarchy &&
        can_coarsen_grid(mesh.shape, mesh.boxes_per_unit, mesh.cell_type, 1)) {
        // A generated grid's halvings below degree 1 on an assembled matrix: their transfers and
        // transposes ((3/2)^d entries a row on boxes, at most 2 on simplices) over the
        // degree-1 rows (the vertices) and the coarser grids' (1/2^d fewer each), as measured
        // (H200, 64.5M Q1 with csr: 51.4 GB against amg's 45.7).
        const double vertices = z.n / std::pow(static_cast<double>(z.k), z.d);
        const double levels = 1 / (1 - std::pow(0.5, z.d));
        kept += 2 * vertices * levels * (simplex ? 2.0 : std::pow(1.5, z.d)) * (4 + z.s);
    }
    if (element_pmg) {
        // The element matrices and data (none when read from the lma storage: cells in their
        // own order), and the coarse patterns' cell maps.
        const bool from_storage = entry.level && entry.level->keeps_element_matrices_with(spec.format_options);
        // Otherwise stored as lma's symmetric variant (its values, interleaved connectivity, diagonal
        // and the loads it writes), or cell-major in full with a convection term (and the loads).
        const double p = z.p;
        const double element_matrices =
            from_storage ? 0
            : spec.problem.convection.empty()
                ? inputs_of(z.s) + z.c * (p * (p + 1) / 2 * z.s + 4 * p) + 2 * vector
                : inputs_of(z.s) + z.c * p * (p + 1) * z.s;
        setup = std::max(setup, element_matrices + cell_map / 4);
        if (z.k == 1) {
            // A generated grid's h-level: the transfer and its transpose ((3/2)^d entries a
            // row on boxes, at most 2 on simplices), the coarser grid's matrix (3^d entries in
            // each of n / 2^d rows on boxes; 7 or 15 on Kuhn's simplices) and AMG below it
            // (30%), the levels' vectors; its setup the coarse pattern and product.
            const double per_entry = 4 + z.s, coarse_rows = z.n / std::pow(2.0, z.d);
            const double row = simplex ? (z.d == 3 ? 15.0 : 7.0) : std::pow(3.0, z.d);
            const double coarse = coarse_rows * (row * per_entry + 4);
            kept = 2 * z.n * (simplex ? 2.0 : std::pow(1.5, z.d)) * per_entry + 1.3 * coarse + 8 * vector;
            setup = std::max(element_matrices, 1.5 * coarse + 4 * z.c / std::pow(2.0, z.d) * z.p * z.p);
        }
    }
    const double krylov = krylov_vectors(spec.solver) * vector + 8.0 * (spec.solver.max_iterations + 1);
    const double solve = system + 2 * vector + kept + std::max(setup, krylov);

    // Errors: the solution, a second geometry and the exact values at the nodes on the
    // executor; host copies of the point fields.
    const double fields = spec.problem.exact.empty() ? 1 : 3;
    double errors_executor = vector + 24 * z.n + 4 * z.c * z.p + std::max(24 * z.c, 16 * z.n);
    if (float32) {  // the float solution's residual against the system assembled in double
        MatrixShape in_double = m;
        in_double.value_bytes = 8;
        // (A matrix-free format is built again in double instead: its storage twice the float's.)
        errors_executor = std::max(errors_executor,
                                   entry.matrix_free()
                                       ? vector + inputs_of(8) + 2 * e.format.build_peak + 2 * vector
                                       : vector + std::max(assembled_peak_of(8), csr_bytes(in_double) + 40 * z.n));
    }
    const double errors_host = (float32 ? 12 : 8) * z.n + 16 * z.n;

    // Output (host): the point fields, VTK's offsets, types and groups (connectivity too
    // beyond order 1), and the compressed blocks, which are about as large as the raw arrays.
    double output = 8 * z.n * fields + 9 * z.c + (z.k >= 2 ? 4 * z.c * z.p : 0);
    if (spec.output.write_solution) output += 24 * z.n + 8 * z.n * fields + 4 * z.c * z.p + 9 * z.c + 4e6;

    const double base = baseline_host + mesh_host;
    if (cuda) {
        const double prewrite = prewrite_host_bytes(spec, mesh);
        e.phases = {
            {"mesh", base, mesh_device},
            {"assembly", base + prewrite + e.format.host + 2 * z.n, mesh_device + scratch + assembly},
            {"solve", base + prewrite, mesh_device + scratch + solve},
            {"errors", base + 9 * z.c + errors_host, mesh_device + scratch + errors_executor},
            {"output", base + output, mesh_device + scratch + vector},
        };
    } else {
        e.phases = {
            {"mesh", base, 0},
            {"assembly", base + z.n + assembly, 0},
            {"solve", base + solve, 0},
            {"errors", base + errors_executor + 8 * fields * z.n + 16 * z.n, 0},
            {"output", base + vector + output, 0},
        };
    }
    return e;
}

MemoryEstimate estimate_memory(const CaseSpec& spec, const MeshCounts& mesh, const Executor& exec,
                               double baseline_host)
{
    return estimate_memory(spec, mesh, exec.is_cuda(), baseline_host);
}

MemoryEstimate estimate_external_memory(const CaseSpec& spec, const Executor& exec, double baseline_host)
{
    const MatrixMarketHeader header = read_matrix_market_header(spec.matrix->file);
    const double rows = static_cast<double>(header.rows);
    const double entries = static_cast<double>(header.entries);
    const double file_bytes = static_cast<double>(std::filesystem::file_size(spec.matrix->file));
    const bool symmetric = header.symmetry != MatrixMarketSymmetry::general;
    MemoryEstimate e;
    e.cuda = exec.is_cuda();
    e.format_name = spec.format;
    e.baseline_host = baseline_host;
    const double s = spec.precision == Precision::float32 ? 4 : 8;
    const double nnz = symmetric ? 2 * entries : entries;  // the halves expanded (at most)
    e.matrix.rows = rows;
    e.matrix.nnz = nnz;
    e.matrix.max_row_length = rows > 0 ? std::ceil(std::min(rows, 4 * nnz / rows)) : 0;  // not known before reading
    e.matrix.padded_row_length = rows > 0 ? 1.5 * nnz / rows : 0;
    e.matrix.band_width = rows;
    e.matrix.value_bytes = s;
    e.matrix.on_device = e.cuda;
    const MatrixShape& m = e.matrix;
    e.format = format_memory_estimate(spec.format, m, spec.format_options);
    const double csr = csr_bytes(m);
    MatrixShape in_double = m;
    in_double.value_bytes = 8;
    const double csr_double = csr_bytes(in_double);
    const double vector = rows * s;

    // Reading (host): the file's text, the parsed entries (row, column, value) and the CSR in
    // double, with b; the CSR and b stay for the run.
    const double kept_host = csr_double + 8 * rows;
    const double read = file_bytes + 16 * nnz + kept_host;
    // Assembly: the CSR in V and b on the executor, then the conversion.
    const PreconditionerEntry& preconditioner = *spec.solver.preconditioner;
    const bool keep_matrix = preconditioner.needs.assembled_matrix;
    const double conversion = std::max(csr + 2 * vector, e.format.build_peak + 2 * vector) + (keep_matrix ? csr : 0);
    const double system = e.format.stored + 2 * vector + (keep_matrix ? csr : 0);
    const auto [kept, setup] = preconditioner.memory(m, false);
    const double krylov = krylov_vectors(spec.solver) * vector + 8.0 * (spec.solver.max_iterations + 1);
    const double solve = system + 2 * vector + kept + std::max(setup, krylov);
    const double base = baseline_host + kept_host;
    if (e.cuda) {
        e.phases = {{"mesh", baseline_host + read, 0},
                    {"assembly", base + e.format.host + (s == 4 ? csr : 0), conversion},
                    {"solve", base, solve},
                    {"errors", base + 16 * rows, vector + (s == 4 ? csr_double + 3 * 8 * rows : 0)},
                    {"output", base + 40 * rows, vector}};
    } else {
        e.phases = {{"mesh", baseline_host + read, 0},
                    {"assembly", base + conversion + e.format.host, 0},
                    {"solve", base + solve, 0},
                    {"errors", base + vector + 16 * rows, 0},
                    {"output", base + vector + 40 * rows, 0}};
    }
    return e;
}

void check_csr_limit(const MemoryEstimate& estimate)
{
    const double nnz = estimate.matrix.nnz;
    if (estimate.assembles_csr.empty() || nnz <= csr_nnz_limit * (estimate.nnz_exact ? 1.0 : 1.2)) return;
    if (estimate.wide_offsets && estimate.wide_refusal.empty()) return;
    const bool fv = estimate.assembles_csr == "finite volumes";
    if (estimate.wide_offsets)
        throw std::runtime_error(fmt::format(
            "{}: the matrix has {}{:.4g} non-zeros ({:.4g} rows), past 2,147,483,647: csr holds it with 64-bit "
            "row offsets, but {}", estimate.assembles_csr, estimate.nnz_exact ? "" : "about ", nnz,
            estimate.matrix.rows, estimate.wide_refusal));
    throw std::runtime_error(fmt::format(
        "{}: the matrix has {}{:.4g} non-zeros ({:.4g} rows), past the 2,147,483,647 that 32-bit row offsets "
        "hold; {}",
        estimate.assembles_csr, estimate.nnz_exact ? "" : "about ", nnz, estimate.matrix.rows,
        fv ? "use a coarser mesh.size or a smaller refine"
           : "use format: csr (64-bit row offsets past that) or lma (matrix-free: element matrices, no CSR), "
             "with preconditioner jacobi, none, or pmg (at degree >= 2, on a generated grid or, with lma, on a "
             "mesh refined by gpufem), or a coarser mesh.size, a smaller refine or degree"));
}

void check_memory_fits(const MemoryEstimate& estimate, const Executor& exec)
{
    const bool matrix_case = estimate.mesh.dim == 0;
    // What stores less than the format in hand: the baseline (csr) than the padded formats,
    // the matrix-free levels (not for a matrix case) than any matrix.
    const std::string baseline = baseline_format().name;
    const std::string levels = operator_levels().joined_names(" or ");
    const OperatorChoice in_hand = lookup_operator(estimate.format_name);
    std::string store_less;
    if (estimate.format_name != baseline && !in_hand.matrix_free())
        store_less = matrix_case ? ", or format " + baseline : ", or format " + baseline + " or the matrix-free " + levels;
    else if (in_hand.format && in_hand.format->baseline && !matrix_case)
        store_less = ", or the matrix-free format " + levels;
    const std::string suggestion =
        (matrix_case ? "use precision: float" + store_less
                     : "use a coarser mesh.size, a smaller refine or degree, precision: float" + store_less) +
        "; `gpufem run --dry-run` prints the estimate of every phase";
    const double host_needed = estimate.peak_host() - estimate.baseline_host;
    const double host_free = static_cast<double>(available_host_bytes());
    if (host_needed > host_free) {
        const PhaseEstimate& peak = estimate.peak_phase(false);
        throw std::runtime_error(fmt::format(
            "not enough host memory: the run needs about {:.2f} GB at its peak (the {} phase), "
            "and {:.2f} GB are available; {}",
            gigabytes(host_needed), peak.phase, gigabytes(host_free), suggestion));
    }
    if (!exec.is_cuda()) return;
    const double device_needed = estimate.peak_device();
    const double device_free = static_cast<double>(exec.free_memory());
    if (device_needed > device_free) {
        const PhaseEstimate& peak = estimate.peak_phase(true);
        throw std::runtime_error(fmt::format(
            "not enough device memory on {}: the run needs about {:.2f} GB at its peak (the {} "
            "phase: {} unknowns, about {:.3g} non-zeros in format {} of {:.2f} GB), and {:.2f} GB "
            "of {:.2f} GB are free; {}",
            exec.device_name(), gigabytes(device_needed), peak.phase, estimate.matrix.rows,
            estimate.matrix.nnz, estimate.format_name, gigabytes(estimate.format.stored),
            gigabytes(device_free), gigabytes(static_cast<double>(exec.total_memory())), suggestion));
    }
}

std::string memory_estimate_table(const MemoryEstimate& e)
{
    const bool cuda = e.cuda;
    const MatrixShape& m = e.matrix;
    std::string s;
    if (e.mesh.dim == 0)  // a matrix case: its "mesh" phase reads the files
        s += fmt::format("  {:<24} from a Matrix Market header (the mesh phase reads the files)\n", "system");
    else
        s += fmt::format("  {:<24} {} cells ({}, degree {}), {} nodes\n", "mesh", e.mesh.cells,
                         e.mesh.mixed ? "several types" : element_type_name(e.mesh.cell_type), e.mesh.degree,
                         e.mesh.nodes);
    s += fmt::format("  {:<24} {} rows, about {:.4g} non-zeros ({:.1f} per row, longest {})\n",
                     "matrix (estimated)", m.rows, m.nnz, m.rows > 0 ? m.nnz / m.rows : 0.0,
                     m.max_row_length);
    s += fmt::format("  {:<24} {:.3f} GB stored, {:.3f} GB while it is built{}{}\n", "format",
                     gigabytes(e.format.stored), gigabytes(e.format.build_peak),
                     e.format.host > 0 ? fmt::format(", {:.3f} GB on the host", gigabytes(e.format.host)) : "",
                     e.wide_offsets ? "; 64-bit row offsets" : "");
    s += fmt::format("  {:<24} {:>10} {:>10}\n", "peak memory (GB)", "host", cuda ? "device" : "");
    for (const PhaseEstimate& p : e.phases)
        s += cuda ? fmt::format("  {:<24} {:>10.3f} {:>10.3f}\n", p.phase, gigabytes(p.host), gigabytes(p.device))
                  : fmt::format("  {:<24} {:>10.3f}\n", p.phase, gigabytes(p.host));
    s += fmt::format("  {:<24} {:>10.3f}\n", "(host baseline)", gigabytes(e.baseline_host));
    return s;
}

nlohmann::json memory_report(const MemoryEstimate& e, const std::vector<PhaseMemory>& measured)
{
    nlohmann::json phases = nlohmann::json::object();
    for (const PhaseEstimate& p : e.phases)
        phases[p.phase]["estimate"] = {{"host", p.host}, {"device", p.device}};
    for (const PhaseMemory& p : measured)
        phases[p.phase]["measured"] = {{"host", p.host}, {"device", p.device}};
    double host = 0, device = 0;
    for (const PhaseMemory& p : measured) {
        host = std::max(host, static_cast<double>(p.host));
        device = std::max(device, static_cast<double>(p.device));
    }
    return {{"unit", "bytes"},
            {"baseline_host", e.baseline_host},
            {"matrix_estimate", {{"rows", e.matrix.rows}, {"nnz", e.matrix.nnz}, {"wide_offsets", e.wide_offsets},
                                 {"longest_row", e.matrix.max_row_length}}},
            {"format_estimate", {{"stored", e.format.stored}, {"build_peak", e.format.build_peak},
                                 {"host", e.format.host}}},
            {"peak_estimate", {{"host", e.peak_host()}, {"device", e.peak_device()}}},
            {"peak_measured", {{"host", host}, {"device", device}}},
            {"phases", phases}};
}

}  // namespace gpufem
