#include "assembly/fe_memory_estimate.hpp"

#include <algorithm>
#include <cmath>

#include "mesh/shapes/cell_shape.hpp"
#include "assembly/pattern_estimate.hpp"
#include "mesh/gll_points.hpp"
#include "mesh/grid_coarsening.hpp"

namespace gpufem {
namespace {

/// The finite-element model, array by array: the sizes it is written in (bytes apart from
/// counts) and one method per piece.
class FeMemoryModel {
public:
    FeMemoryModel(const MeshCounts& mesh, const ProblemSpec& problem, const MatrixShape& m,
                  const MemoryChoices& choices);
    /// Every piece together.
    DiscretisationMemory memory() const;

private:
    double inputs(double s) const;
    double assembled_peak(double s) const;
    double assembly() const;
    double system() const;
    double element_matrices() const;
    std::pair<double, double> hierarchy() const;
    double errors_on_executor() const;
    double equispaced_fields() const;
    PhaseBytes fluxes() const;
    double flux_fields() const;
    double output_host() const;

    const MeshCounts& mesh_;
    const ProblemSpec& problem_;
    const MatrixShape& m_;
    const MemoryChoices& c_;
    double n_ = 0;   ///< nodes = unknowns
    double cells_ = 0;
    double p_ = 0;   ///< nodes per cell
    double s_ = 8;   ///< value size
    double q_ = 0;   ///< assembly quadrature points per cell
    int k_ = 1;
    int d_ = 2;
    bool simplex_ = false;
    double vector_ = 0;
    double csr_ = 0;       ///< the assembled CSR (64-bit offsets included)
    double cell_map_ = 0;  ///< the cell-to-CSR map
    double scratch_ = 0;   ///< the high-order CUDA kernels' scratch, kept until the run ends
};

FeMemoryModel::FeMemoryModel(const MeshCounts& mesh, const ProblemSpec& problem, const MatrixShape& m,
                             const MemoryChoices& choices)
    : mesh_(mesh), problem_(problem), m_(m), c_(choices)
{
    n_ = mesh.nodes;
    cells_ = mesh.cells;
    p_ = mesh.nodes_per_cell;
    s_ = choices.value_bytes;
    k_ = std::clamp(mesh.degree, 1, 4);
    d_ = mesh.dim;
    simplex_ = cell_shape(mesh.cell_type).simplex;
    q_ = k_ == 1 && simplex_ ? d_ + 1 : std::pow(k_ + 1.0, d_);
    // Pyramids (a mixed mesh may hold them): n^2 (n + 1) points, n = k + 2 (36 at degree 1, 80
    // at 2: assembly_quadrature_degree 2k + 2).
    if (mesh.mixed || mesh.cell_type == ElementType::pyramid) q_ = std::max(q_, std::pow(k_ + 2.0, 2) * (k_ + 3.0));
    vector_ = n_ * s_;
    csr_ = csr_bytes(m) + choices.wide_extra;
    // Coordinates in V, the quadrature points' data per cell (with the lower-order terms' d + 1
    // values).
    const double stride = (d_ == 2 ? 4 : 7) + (has_convection(problem) || has_reaction(problem) ? d_ + 1 : 0);
    scratch_ = choices.cuda && k_ >= 2 ? std::min(cells_, std::floor(2097152 / q_)) * q_ * stride * s_ : 0;
    // No cell-to-CSR map with 64-bit offsets, nor for a mesh of several types (both search
    // each entry's row).
    cell_map_ = choices.wide_offsets || mesh.mixed ? 0.0 : 4 * cells_ * p_ * p_;
}

/// Element geometry and coefficients at the quadrature points, with values of s bytes.
double FeMemoryModel::inputs(double s) const
{
    const double geometry = 3 * n_ * s + 4 * cells_ * p_;
    // Values per point: kappa's (a tensor's d (d + 1) / 2), f, c and b's d where they vary.
    const bool tensor = !problem_.kappa_tensor.empty() ||
                        std::any_of(problem_.kappa_regions.begin(), problem_.kappa_regions.end(),
                                    [](const RegionValue& r) { return r.components.size() > 1; });
    const bool kappa_varies = tensor || !problem_.kappa_regions.empty() || problem_.kappa_data.given() ||
                              !is_constant_expression(problem_.kappa);
    const bool f_varies = !problem_.f_regions.empty() || problem_.f_data.given() || !is_constant_expression(problem_.f);
    const bool c_varies = !problem_.reaction_regions.empty() || problem_.reaction_data.given() ||
                          !is_constant_expression(problem_.reaction);
    const double convection = !problem_.convection_field.empty() || !problem_.convection_regions.empty()
                                  ? d_ : static_cast<double>(problem_.convection.size());
    const double coefficients = cells_ * q_ * s *
                                ((kappa_varies ? (tensor ? d_ * (d_ + 1) / 2 : 1) : 0) + (f_varies ? 1 : 0) +
                                 (c_varies ? 1 : 0) + convection);
    return geometry + coefficients;
}

/// The assembly of the CSR system with values of s bytes, at its peak.
double FeMemoryModel::assembled_peak(double s) const
{
    MatrixShape shape = m_;
    shape.value_bytes = s;
    const double boundary = 2 * n_ * s + n_ + (s == 4 ? 24 * n_ : 0) + 4 * mesh_.facet_entries;
    const double pattern_build =
        c_.cuda ? 12 * m_.nnz + 12 * n_ : 4 * m_.nnz + 24 * n_ + 4 * cells_ * p_ + cell_map_;
    return inputs(s) + std::max(csr_bytes(shape) + c_.wide_extra + cell_map_ + boundary, pattern_build);
}

/// Assembly, on the executor: the element geometry (coordinates in V, cells), coefficients at
/// the quadrature points, the cell-to-CSR map, the matrix, rhs and Dirichlet data.
double FeMemoryModel::assembly() const
{
    const FormatMemory& f = c_.format;
    if (c_.matrix_free) {
        // Element matrices from the element kernels, no CSR (one more assembled for multigrid).
        const double elements = inputs(s_) + f.build_peak + vector_ + n_;
        return c_.keep_matrix ? std::max(elements, f.stored + assembled_peak(s_)) : elements;
    }
    // The host steps of a conversion (orderings) come before its executor peak.
    const double conversion = f.build_peak + 2 * vector_ + (c_.keep_matrix ? csr_ : 0);
    return std::max({assembled_peak(s_), conversion, c_.cuda ? 0.0 : csr_ + 2 * vector_ + f.host});
}

/// What the assembly leaves for the solve: operator, rhs, guess (and the kept matrix).
double FeMemoryModel::system() const
{
    return c_.format.stored + 2 * vector_ + (c_.keep_matrix ? csr_ : 0);
}

/// The element matrices and data pmg's coarse operators are computed from (none when the
/// operator gives them: the lma storage with cells in their own order, pa's factors).
/// Otherwise stored as lma's symmetric variant (its values, interleaved connectivity, diagonal
/// and the loads it writes), or cell-major in full with a convection term (and the loads).
double FeMemoryModel::element_matrices() const
{
    if (c_.element_matrices_stored) return 0;
    if (!has_convection(problem_)) return inputs(s_) + cells_ * (p_ * (p_ + 1) / 2 * s_ + 4 * p_) + 2 * vector_;
    return inputs(s_) + cells_ * p_ * (p_ + 1) * s_;
}

/// The preconditioner's kept and setup bytes with the coarser spaces the discretisation gives
/// it: a generated grid's halvings, or coarse operators from the element matrices.
std::pair<double, double> FeMemoryModel::hierarchy() const
{
    double kept = c_.preconditioner_kept, setup = c_.preconditioner_setup;
    // A float cycle's copy of a matrix-free operator: its values in half the bytes, its
    // indices copied (a tenth more at most: pa's node numbers against its Q3 factors).
    const double float_copy = c_.float_operator_copy ? 0.55 * c_.format.stored : 0.0;
    const double transfer_row = simplex_ ? 2.0 : std::pow(1.5, d_);  // entries a row of a transfer
    if (!c_.element_pmg && c_.space_hierarchy &&
        can_coarsen_grid(mesh_.shape, mesh_.boxes_per_unit, mesh_.cell_type, 1)) {
        // A generated grid's halvings below degree 1 on an assembled matrix: their transfers and
        // transposes over the degree-1 rows (the vertices) and the coarser grids' (1/2^d fewer
        // each), as measured (H200, 64.5M Q1 with csr: 51.4 GB against amg's 45.7).
        const double vertices = n_ / std::pow(static_cast<double>(k_), d_);
        const double levels = 1 / (1 - std::pow(0.5, d_));
        kept += 2 * vertices * levels * transfer_row * (4 + s_);
    }
    if (!c_.element_pmg) return {kept + float_copy, setup};
    const double elements = element_matrices();
    setup = std::max(setup, elements + cell_map_ / 4);  // and the coarse patterns' cell maps
    if (k_ == 1) {
        // A generated grid's h-level: the transfer and its transpose, the coarser grid's matrix
        // (3^d entries in each of n / 2^d rows on boxes; 7 or 15 on Kuhn's simplices) and AMG
        // below it (30%), the levels' vectors; its setup the coarse pattern and product.
        const double per_entry = 4 + s_, coarse_rows = n_ / std::pow(2.0, d_);
        const double row = simplex_ ? (d_ == 3 ? 15.0 : 7.0) : std::pow(3.0, d_);
        const double coarse = coarse_rows * (row * per_entry + 4);
        kept = 2 * n_ * transfer_row * per_entry + 1.3 * coarse + 8 * vector_;
        setup = std::max(elements, 1.5 * coarse + 4 * cells_ / std::pow(2.0, d_) * p_ * p_);
    }
    return {kept + float_copy, setup};
}

/// Errors: the solution, a second geometry and the exact values at the nodes on the executor;
/// a float solution's residual against the system assembled in double.
double FeMemoryModel::errors_on_executor() const
{
    const double errors = vector_ + 24 * n_ + 4 * cells_ * p_ + std::max(24 * cells_, 16 * n_);
    if (s_ != 4) return errors;
    MatrixShape in_double = m_;
    in_double.value_bytes = 8;
    // (A matrix-free format is built again in double instead: its storage twice the float's.)
    return std::max(errors, c_.matrix_free
                                ? vector_ + inputs(8) + 2 * c_.format.build_peak + 2 * vector_
                                : vector_ + std::max(assembled_peak(8), csr_bytes(in_double) + 40 * n_));
}

/// A CUDA run's conversion of the point fields to the equispaced points on a mesh with GLL
/// nodes (when it writes result.vtu): each node's first cell, the cells (uploaded where the
/// mesh has no device copy; counted either way), u and the flux's columns converted.
double FeMemoryModel::equispaced_fields() const
{
    if (!c_.cuda || !c_.write_solution || mesh_.mixed || !has_gll_nodes(mesh_.cell_type, mesh_.degree)) return 0;
    return 4 * n_ + 4 * cells_ * p_ + vector_ + (c_.fluxes ? 24 * n_ : 0);
}

/// The fluxes (with output.fluxes; else nothing): on the executor the node sums, the
/// residual, a block's cell means and integrals, its coefficients at the quadrature points and
/// at the nodes, the Neumann and Robin groups' loads and products; on the host the cells' means
/// and integrals, the node sums brought back and the flux fields.
PhaseBytes FeMemoryModel::fluxes() const
{
    if (!c_.fluxes) return {};
    const double executor = 57 * n_ + 3 * vector_ + 64 * cells_ + (2 * q_ + p_) * cells_ * s_;
    return {128 * cells_ + 64 * n_ + flux_fields(), executor};
}

/// The flux fields (host): d components at the nodes and per cell.
double FeMemoryModel::flux_fields() const { return flux_field_bytes(c_, mesh_); }

/// Output (host): the point fields, VTK's offsets, types and groups (connectivity too beyond
/// order 1), and the compressed blocks, which are about as large as the raw arrays.
double FeMemoryModel::output_host() const
{
    const double fields = problem_.exact.empty() ? 1 : 3;
    double output = 8 * n_ * fields + flux_fields() + 9 * cells_ + (k_ >= 2 ? 4 * cells_ * p_ : 0);
    if (c_.write_solution) output += 24 * n_ + 8 * n_ * fields + flux_fields() + 4 * cells_ * p_ + 9 * cells_ + 4e6;
    return output;
}

DiscretisationMemory FeMemoryModel::memory() const
{
    DiscretisationMemory d;
    d.mesh = mesh_memory(mesh_, c_.cuda);
    d.system = system();
    d.vector = vector_;
    std::tie(d.kept, d.setup) = hierarchy();
    const double fields = problem_.exact.empty() ? 1 : 3;
    const PhaseBytes flux = fluxes();
    if (c_.cuda) {
        const double prewrite = prewrite_host_bytes(c_, mesh_);
        d.assembly = {prewrite + c_.format.host + 2 * n_, scratch_ + assembly()};
        d.resident = {prewrite, scratch_};
        // With an exact solution and GLL nodes, u_exact and error are converted on the host there.
        const double exact_copies = equispaced_fields() > 0 && !problem_.exact.empty() ? 16 * n_ : 0;
        d.errors = {9 * cells_ + (s_ == 4 ? 12 : 8) * n_ + 16 * n_ + flux.host + exact_copies,
                    scratch_ + std::max(errors_on_executor(), flux.device) + equispaced_fields()};
        d.output = {output_host(), scratch_ + vector_};
    } else {
        d.assembly = {n_ + assembly(), 0};
        d.errors = {std::max(errors_on_executor(), flux.device) + flux.host + 8 * fields * n_ + 16 * n_, 0};
        d.output = {vector_ + output_host(), 0};
    }
    return d;
}

}  // namespace

FeMatrixEstimate fe_matrix_estimate(const MeshCounts& mesh, double value_bytes)
{
    // Exact for the unit square and cube (the l-shape's count adds three squares: an upper bound).
    return {estimated_matrix_shape(mesh, value_bytes), mesh.shape == "unit_square" || mesh.shape == "unit_cube"};
}

bool fe_offers_element_coarse_operators(const MeshCounts& mesh)
{
    const int k = std::clamp(mesh.degree, 1, 4);
    const bool element_coarse_operators =
        !mesh.mixed && (k >= 2 || can_coarsen_grid(mesh.shape, mesh.boxes_per_unit, mesh.cell_type, k));
    return element_coarse_operators || mesh.refined;
}

DiscretisationMemory fe_memory(const MeshCounts& mesh, const ProblemSpec& problem, const MatrixShape& m,
                               const MemoryChoices& choices)
{
    return FeMemoryModel(mesh, problem, m, choices).memory();
}

}  // namespace gpufem
