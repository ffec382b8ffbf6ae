#include "solver/run/memory_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "assembly/fe_memory_estimate.hpp"
#include "assembly/fv_memory_estimate.hpp"
#include "assembly/matrix_file_memory_estimate.hpp"
#include "assembly/operator_levels.hpp"
#include "linalg/host_memory.hpp"
#include "linalg/host_vector.hpp"
#include "solver/run/format_choice.hpp"

namespace gpufem {
namespace {

double gigabytes(double bytes) { return bytes / 1e9; }

/// The value size of the case's precision.
double value_bytes(const CaseSpec& spec) { return spec.precision == Precision::float32 ? 4 : 8; }

/// The Krylov solver's vectors (the preconditioner's own apart) of vector bytes each, and the
/// residual history: z for a preconditioner applied on its own in merged CG, A z and z for any
/// preconditioner in single-reduction CG, M^-1 p and M^-1 s in BiCGSTAB.
double krylov_bytes(const SolverSpec& solver, double vector)
{
    const PreconditionerEntry& m = *solver.preconditioner;
    const bool preconditioned = !m.identity;
    double vectors = preconditioned ? 4 : 3;
    if (solver.method == KrylovMethod::bicgstab) vectors = preconditioned ? 8 : 6;
    else if (solver.variant == KrylovVariant::merged) vectors = preconditioned && !m.diagonal ? 4 : 3;
    else if (solver.variant == KrylovVariant::single_reduction) vectors = preconditioned ? 5 : 4;
    return vectors * vector + 8.0 * (solver.max_iterations + 1);
}

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

/// An estimate of spec with no phases yet: its matrix of shape m and the format's memory.
MemoryEstimate start_estimate(const CaseSpec& spec, const MatrixShape& m, bool cuda, double baseline_host)
{
    MemoryEstimate e;
    e.cuda = cuda;
    e.format_name = spec.format;
    e.baseline_host = baseline_host;
    e.matrix = m;
    e.matrix.on_device = cuda;
    e.format = format_memory_estimate(spec.format, e.matrix, spec.format_options);
    return e;
}

/// The choices of spec every discretisation's model reads, the preconditioner's memory for
/// the estimate's matrix (finite_volumes: a row per cell) included.
MemoryChoices case_choices(const CaseSpec& spec, const MemoryEstimate& e, bool finite_volumes)
{
    const PreconditionerEntry& preconditioner = *spec.solver.preconditioner;
    MemoryChoices c;
    c.cuda = e.cuda;
    c.value_bytes = value_bytes(spec);
    c.format = e.format;
    c.keep_matrix = preconditioner.needs.assembled_matrix;
    c.space_hierarchy = preconditioner.needs.space_hierarchy;
    const auto [kept, setup] = preconditioner.memory(e.matrix, finite_volumes);
    c.preconditioner_kept = kept;
    c.preconditioner_setup = setup;
    c.write_solution = spec.output.write_solution;
    c.fluxes = spec.output.fluxes;
    c.compressed_output = spec.output.compression == VtuCompression::lz4;
    return c;
}

/// The phases: the discretisation's pieces beside the baseline and its mesh, and the solve's
/// own (the system, the right-hand side and guess in the operator's numbering, the
/// preconditioner, the Krylov vectors and history) on the executor.
std::vector<PhaseEstimate> sum_phases(const DiscretisationMemory& d, const SolverSpec& solver, bool cuda,
                                      double baseline_host)
{
    const double solve = d.system + 2 * d.vector + d.kept + std::max(d.setup, krylov_bytes(solver, d.vector));
    const PhaseBytes on_executor = cuda ? PhaseBytes{0, solve} : PhaseBytes{solve, 0};
    const auto phase = [&](const char* name, const PhaseBytes& piece, const PhaseBytes& more = {}) {
        return PhaseEstimate{name, baseline_host + d.mesh.host + piece.host + more.host,
                             d.mesh.device + piece.device + more.device};
    };
    return {phase("mesh", d.loading), phase("assembly", d.assembly), phase("solve", d.resident, on_executor),
            phase("errors", d.errors), phase("output", d.output)};
}

/// What to do when the finite elements' CSR would pass csr_nnz_limit.
constexpr const char* fe_csr_limit_advice =
    "use format: csr (64-bit row offsets past that) or lma (matrix-free: element matrices, no CSR), "
    "with preconditioner jacobi, none, or pmg (at degree >= 2, on a generated grid or, with lma, on a "
    "mesh refined by gpufem), or a coarser mesh.size, a smaller refine or degree";

/// Whether the operator holds the matrix with 64-bit row offsets (past csr_nnz_limit, or asked
/// for by its options), and sets the bytes that adds to its memory.
void choose_wide_offsets(const CaseSpec& spec, const OperatorChoice& entry, MemoryEstimate& e, MemoryChoices& c)
{
    // Past 2^31 - 1 entries (or with csr's offsets: 64) a format that takes 64-bit offsets
    // holds the matrix: no cell-to-CSR map (the assembly searches the rows), 8-byte offsets.
    e.wide_offsets = entry.format && entry.format->takes_wide_csr() &&
                     (entry.format->wide_offsets_asked(spec.format_options) || e.matrix.nnz > csr_nnz_limit);
    c.wide_offsets = e.wide_offsets;
    c.wide_extra = e.wide_offsets ? 4 * (e.matrix.rows + 1) : 0.0;
    e.format.stored += c.wide_extra;
    e.format.build_peak += c.wide_extra;
    c.format = e.format;
}

/// Why the run cannot use a matrix with 64-bit row offsets (empty when it can).
std::string wide_refusal(const CaseSpec& spec, const MemoryEstimate& e, bool element_pmg)
{
    const PreconditionerEntry& preconditioner = *spec.solver.preconditioner;
    if (e.wide_offsets && preconditioner.keeps_matrix(element_pmg))
        return fmt::format("preconditioner {} reads the matrix with 32-bit row offsets; use {}",
                           preconditioner.name, wide_offsets_preconditioners);
    if (e.wide_offsets && spec.format_options.reordering() != Reordering::none)
        return fmt::format("reorder: {} permutes matrices with 32-bit row offsets only; use reorder: none",
                           enum_name(reordering_names, spec.format_options.reordering()));
    return {};
}

/// What makes a finite-element run assemble its matrix in CSR (empty: nothing, surely).
std::string fe_assembles_csr(const CaseSpec& spec, const OperatorChoice& entry, bool keep_matrix)
{
    const PreconditionerEntry& preconditioner = *spec.solver.preconditioner;
    if (!entry.matrix_free())
        return spec.format == auto_format_name ? "format auto (its candidates are assembled)" : "format " + spec.format;
    if (!keep_matrix) return {};
    return "preconditioner " + preconditioner.name + " (with format " + spec.format +
           " the matrix is assembled for its setup" +
           (preconditioner.needs.space_hierarchy
                ? ": at degree 1 on a mesh with no coarser grid or parent mesh, " + preconditioner.name + " is amg"
                : "") +
           ")";
}

/// The finite-element run's choices: the operator's entry (format: auto builds assembled
/// formats: flags of the baseline's entry), 64-bit offsets, pmg from the element matrices
/// (matrix-free formats or 64-bit offsets: no CSR for the Galerkin products) and the matrix
/// kept for the preconditioner.
MemoryChoices fe_choices(const CaseSpec& spec, const MeshCounts& mesh, MemoryEstimate& e)
{
    const OperatorChoice entry =
        spec.format == auto_format_name ? OperatorChoice{&baseline_format(), nullptr} : find_operator(spec.format);
    const PreconditionerEntry& preconditioner = *spec.solver.preconditioner;
    MemoryChoices c = case_choices(spec, e, false);
    choose_wide_offsets(spec, entry, e, c);
    c.matrix_free = entry.matrix_free();
    c.element_pmg = (spec.format != auto_format_name || e.wide_offsets) &&
                    preconditioner.coarse_from_elements(fe_offers_element_coarse_operators(mesh),
                                                        c.matrix_free || e.wide_offsets);
    c.element_matrices_stored = entry.level && entry.level->keeps_element_matrices_with(spec.format_options);
    c.keep_matrix = preconditioner.keeps_matrix(c.element_pmg) && !(entry.format && entry.format->keeps_csr);
    c.float_operator_copy = c.matrix_free && c.element_pmg && spec.precision == Precision::float64 &&
                            spec.solver.amg.precision == AmgPrecision::single;
    e.wide_refusal = wide_refusal(spec, e, c.element_pmg);
    e.assembles_csr = fe_assembles_csr(spec, entry, c.keep_matrix);
    e.csr_limit_advice = fe_csr_limit_advice;
    return c;
}

/// The finite-element run's estimate.
MemoryEstimate estimate_fe_memory(const CaseSpec& spec, const MeshCounts& mesh, bool cuda, double baseline_host)
{
    const FeMatrixEstimate matrix = fe_matrix_estimate(mesh, value_bytes(spec));
    MemoryEstimate e = start_estimate(spec, matrix.shape, cuda, baseline_host);
    e.mesh = mesh;
    e.nnz_exact = matrix.nnz_exact;
    const MemoryChoices c = fe_choices(spec, mesh, e);
    e.phases = sum_phases(fe_memory(mesh, spec.problem, e.matrix, c), spec.solver, cuda, baseline_host);
    return e;
}

/// The finite-volume run's estimate (one unknown per cell; the matrix always assembled).
MemoryEstimate estimate_fv_memory(const CaseSpec& spec, const MeshCounts& mesh, bool cuda, double baseline_host)
{
    MemoryEstimate e = start_estimate(spec, fv_matrix_shape(mesh, value_bytes(spec)), cuda, baseline_host);
    e.mesh = mesh;
    e.assembles_csr = "finite volumes";
    e.csr_limit_advice = "use a coarser mesh.size or a smaller refine";
    const MemoryChoices c = case_choices(spec, e, true);
    e.phases = sum_phases(fv_memory(mesh, spec.problem, spec.fv, e.matrix, c), spec.solver, cuda, baseline_host);
    return e;
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

MemoryEstimate estimate_memory(const CaseSpec& spec, const MeshCounts& mesh, bool cuda,
                               double baseline_host)
{
    if (spec.discretisation == DiscretisationKind::fv) return estimate_fv_memory(spec, mesh, cuda, baseline_host);
    return estimate_fe_memory(spec, mesh, cuda, baseline_host);
}

MemoryEstimate estimate_memory(const CaseSpec& spec, const MeshCounts& mesh, const Executor& exec,
                               double baseline_host)
{
    return estimate_memory(spec, mesh, exec.is_cuda(), baseline_host);
}

MemoryEstimate estimate_external_memory(const CaseSpec& spec, const Executor& exec, double baseline_host)
{
    const MatrixFileEstimate file = matrix_file_estimate(spec.matrix->file, value_bytes(spec));
    MemoryEstimate e = start_estimate(spec, file.shape, exec.is_cuda(), baseline_host);
    const MemoryChoices c = case_choices(spec, e, false);
    e.phases = sum_phases(matrix_file_memory(file, c), spec.solver, e.cuda, baseline_host);
    return e;
}

void check_csr_limit(const MemoryEstimate& estimate)
{
    const double nnz = estimate.matrix.nnz;
    if (estimate.assembles_csr.empty() || nnz <= csr_nnz_limit * (estimate.nnz_exact ? 1.0 : 1.2)) return;
    if (estimate.wide_offsets && estimate.wide_refusal.empty()) return;
    if (estimate.wide_offsets)
        throw std::runtime_error(fmt::format(
            "{}: the matrix has {}{:.4g} non-zeros ({:.4g} rows), past 2,147,483,647: csr holds it with 64-bit "
            "row offsets, but {}", estimate.assembles_csr, estimate.nnz_exact ? "" : "about ", nnz,
            estimate.matrix.rows, estimate.wide_refusal));
    throw std::runtime_error(fmt::format(
        "{}: the matrix has {}{:.4g} non-zeros ({:.4g} rows), past the 2,147,483,647 that 32-bit row offsets "
        "hold; {}",
        estimate.assembles_csr, estimate.nnz_exact ? "" : "about ", nnz, estimate.matrix.rows,
        estimate.csr_limit_advice));
}

void check_memory_fits(const MemoryEstimate& estimate, const Executor& exec)
{
    const bool matrix_case = estimate.mesh.dim == 0;
    // What stores less than the format in hand: the baseline (csr) than the padded formats,
    // the matrix-free levels (not for a matrix case) than any matrix.
    const std::string baseline = baseline_format().name;
    const std::string levels = operator_levels().joined_names(" or ");
    const OperatorChoice in_hand = lookup_operator(estimate.format_name);
    const bool is_baseline = in_hand.format && in_hand.format->baseline;
    std::string store_less;
    if (!is_baseline && !in_hand.matrix_free())
        store_less = matrix_case ? ", or format " + baseline : ", or format " + baseline + " or the matrix-free " + levels;
    else if (is_baseline && !matrix_case)
        store_less = ", or the matrix-free format " + levels;
    const std::string suggestion =
        (matrix_case ? "use precision: float" + store_less
                     : "use a coarser mesh.size, a smaller refine or degree, precision: float" + store_less) +
        "; `gpufem run --dry-run` prints the estimate of every phase";
    const double host_needed = estimate.peak_host() - estimate.baseline_host;
    // Blocks made ahead for the mesh's arrays are part of what the run needs, not taken from it.
    const double host_free = static_cast<double>(available_host_bytes() + prepared_host_bytes());
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
