#include "assembly/fv_discretisation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "assembly/boundary_conditions.hpp"
#include "assembly/cell_data_requests.hpp"
#include "assembly/coefficients.hpp"
#include "assembly/element_data.hpp"
#include "assembly/expression_kernels.hpp"
#include "assembly/fe_fluxes.hpp"
#include "assembly/flux_kernels.hpp"
#include "assembly/fv_kernels.hpp"
#include "assembly/operator_levels.hpp"
#include "assembly/robin_data.hpp"
#include "linalg/blas1.hpp"
#include "linalg/rank_messages.hpp"
#include "mesh/cell_faces.hpp"
#include "mesh/mesh_quality.hpp"
#include "mesh/stage_laps.hpp"

namespace gpufem {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start)
{
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// A coefficient of the problem at the cells' centroids on exec: one value per cell (b: dim per
/// cell; a constant b: its one point's), empty when the problem has none. Throws naming the
/// key and the cell where a value fails its check, and for an anisotropic kappa.
Array<double> cell_coefficient(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem, CoefficientKind kind,
                               const Array<double>& centroid, const Array<int>& regions)
{
    const MeshCoefficient c = mesh_coefficient(mesh, problem, kind);
    if (c.empty()) return {};
    if (kind == CoefficientKind::kappa && c.components > 1)
        throw std::runtime_error("problem.kappa: finite volumes take a scalar kappa (per region or not); an "
                                 "anisotropic kappa needs discretisation: fe");
    const CoefficientPoints at{{}, centroid.data(), mesh.num_cells(), 1, regions.data()};
    const auto place = [&](long long k) {
        const std::vector<double> x = centroid.to_host();
        return PointPlace{{x[3 * k], x[3 * k + 1], x[3 * k + 2]}, fmt::format("centroid of cell {}", k)};
    };
    Array<double> values = evaluate_coefficient<double>(exec, c, at, place);
    if (!c.constant() || kind == CoefficientKind::convection) return values;
    Array<double> per_cell(exec, static_cast<std::size_t>(mesh.num_cells()));  // the kernels read one per cell
    fill(per_cell, c.constant_values()[0]);
    return per_cell;
}

/// The faces of a rank's own cells (the first `own` of mesh): the slots with a neighbour
/// (each face between two cells is one on both ranks that own a side, or twice here), its
/// boundary faces, and those on a Dirichlet group.
struct OwnFaces {
    long long neighbour_slots = 0;
    long long boundary = 0;
    long long dirichlet = 0;
};

OwnFaces own_faces(const Mesh& mesh, const CellFaces& faces, index_type own, const std::vector<FvCondition>& conditions)
{
    const std::vector<index_type> neighbour = faces.neighbour.to_host();
    const std::vector<int> group = faces.group.to_host();
    const KernelShapes shapes = kernel_shapes();
    const std::uint8_t* types = mesh.is_mixed() ? mesh.cell_types.data() : nullptr;
    OwnFaces out;
    for (index_type c = 0; c < own; ++c)
        for (int f = 0, n = shape_of_cell(shapes, types, mesh.cell_type, c).faces; f < n; ++f) {
            const std::size_t slot = static_cast<std::size_t>(c) * static_cast<std::size_t>(faces.faces_per_cell) +
                                     static_cast<std::size_t>(f);
            if (neighbour[slot] >= 0) {
                ++out.neighbour_slots;
                continue;
            }
            ++out.boundary;
            const int g = group[slot];
            out.dirichlet += g >= 0 && conditions[static_cast<std::size_t>(g)].kind == FvBoundaryKind::dirichlet;
        }
    return out;
}

/// The largest of every rank's value.
double largest_over_ranks(const Communicator& host, double mine)
{
    const std::vector<double> all = gather_on_every_rank(host, std::span<const double>(&mine, 1));
    return *std::max_element(all.begin(), all.end());
}

}  // namespace

/// Everything the discretisation keeps on its executor.
template <typename V>
struct FiniteVolumeDiscretisation<V>::State {
    ExecPtr exec;
    CellFaces faces;
    Array<index_type> own_cells;
    Array<std::uint8_t> cell_types;  ///< mixed meshes: each cell's type, on the executor
    Array<int> regions;              ///< each cell's region when kappa is given per region
    Array<int> cell_sides;           ///< each cell's number when kappa is given as cell data
    Array<double> own_coordinates;
    Array<double> centroid, volume, kappa, source, reaction, velocity;
    Array<ExprInstruction> programs;
    Array<FvCondition> conditions;
    Array<ExprInstruction> exact;  ///< empty without an exact solution
    FvMeshView mesh;
    FvProblemView problem;
    Array<V> base_rhs;             ///< the right-hand side without correction
    mutable Array<double> gradient;  ///< corrected_rhs_into's scratch (3 per cell)
    FvMeshReport report;
    AssemblyTimes times;
    index_type dirichlet_faces = 0;
};

template <typename V>
FiniteVolumeDiscretisation<V>::FiniteVolumeDiscretisation(const Mesh& mesh, const ProblemSpec& problem,
                                                          const FvOptions& options)
    : mesh_(mesh), space_(cell_space(mesh)), problem_(problem), options_(options)
{
}

template <typename V>
FiniteVolumeDiscretisation<V>::~FiniteVolumeDiscretisation() = default;

template <typename V>
std::string FiniteVolumeDiscretisation<V>::describe() const
{
    if (options_.nonorthogonal_correctors == 0)
        return "cell-centred finite volumes (two-point flux, no non-orthogonal correction)";
    if (options_.correction == FvCorrection::implicit)
        return "cell-centred finite volumes (two-point flux, non-orthogonal correction solved with the system)";
    return fmt::format("cell-centred finite volumes (two-point flux, at most {} deferred non-orthogonal corrector{})",
                       options_.nonorthogonal_correctors, options_.nonorthogonal_correctors == 1 ? "" : "s");
}

template <typename V>
void FiniteVolumeDiscretisation<V>::share_among_ranks(const FvRankShare& share)
{
    if (state_) throw std::logic_error("share_among_ranks after assembly");
    if (!share.host || share.own_cells > mesh_.num_cells())
        throw std::invalid_argument("share_among_ranks: no communicator, or more own cells than the mesh has");
    share_ = share;
    this->set_flux_output(false);
}

template <typename V>
const typename FiniteVolumeDiscretisation<V>::State& FiniteVolumeDiscretisation<V>::state(const ExecPtr& exec) const
{
    if (state_ && state_->exec == exec) return *state_;
    auto s = std::make_unique<State>();
    s->exec = exec;
    const Mesh& mesh = mesh_;
    const long long n = mesh.num_cells();

    // The boundary conditions per group (Dirichlet, then Neumann: the order faces are marked in).
    std::vector<FvCondition> conditions(mesh.boundaries.size());
    std::vector<ExprInstruction> code;
    std::vector<int> marked;
    std::vector<std::string> named(mesh.boundaries.size());
    const auto add_program = [&](const std::string& text) {
        const int offset = static_cast<int>(code.size());
        const Expression expr(text);
        code.insert(code.end(), expr.program().code.begin(), expr.program().code.end());
        return offset;
    };
    const auto add = [&](const std::string& group, const std::string& text, FvBoundaryKind kind, const char* key) {
        const BoundaryFacets& facets = condition_facets(mesh, group, key);
        const auto g = static_cast<std::size_t>(&facets - mesh.boundaries.data());
        if (!named[g].empty())
            throw std::runtime_error(fmt::format("problem.{}.{}: group '{}' already has a condition ({})",
                                                 key, group, group, named[g]));
        named[g] = fmt::format("problem.{}.{}", key, group);
        conditions[g] = {kind, add_program(text)};
        marked.push_back(static_cast<int>(g));
        return g;
    };
    for (const BoundaryCondition& bc : problem_.dirichlet) add(bc.group, bc.expression, FvBoundaryKind::dirichlet, "dirichlet");
    for (const BoundaryCondition& bc : problem_.neumann) add(bc.group, bc.expression, FvBoundaryKind::neumann, "neumann");
    for (const RobinCondition& bc : problem_.robin)
        conditions[add(bc.group, bc.h, FvBoundaryKind::robin, "robin")].second = add_program(bc.u_inf);

    // Geometry: the face adjacency, centroids and volumes on the executor.
    auto start = clock_type::now();
    check_mesh_coordinates(mesh);  // finite, and 2D in a plane z = const, as for finite elements
    s->faces = cell_faces(mesh, exec, &marked);
    for (std::size_t k = 0; k < marked.size(); ++k) {
        const auto g = static_cast<std::size_t>(marked[k]);
        const long long facets = static_cast<long long>(mesh.boundaries[g].size());
        if (s->faces.interior_facets[g] > 0)
            throw std::runtime_error(fmt::format(
                "{}: {} of the group's {} facets lie inside the domain (between two cells); finite "
                "volumes take conditions on the boundary only", named[g], s->faces.interior_facets[g], facets));
        if (s->faces.shared_faces[g] > 0) {
            std::string earlier;
            for (std::size_t e = 0; e < k; ++e) earlier += (earlier.empty() ? "" : ", ") + named[static_cast<std::size_t>(marked[e])];
            throw std::runtime_error(fmt::format(
                "{}: {} of its faces also belong to a group with an earlier condition ({}); a face "
                "takes one condition: give conditions on groups that do not overlap", named[g],
                s->faces.shared_faces[g], earlier));
        }
        if (conditions[g].kind == FvBoundaryKind::dirichlet)
            s->dirichlet_faces += static_cast<index_type>(facets - s->faces.interior_facets[g]);
    }
    FvMeshView& view = s->mesh;
    if (!exec->is_cuda()) {
        view.cells = mesh.cells.data();
        view.coordinates = mesh.node_coordinates().data();
    } else if (mesh.device) {
        view.cells = mesh.device->cells.data();
        view.coordinates = mesh.device->coordinates.data();
    } else {
        s->own_cells = Array<index_type>::from_host(exec, std::span<const index_type>(mesh.cells.data(), mesh.cells.size()));
        s->own_coordinates = Array<double>::from_host(exec, std::span<const double>(mesh.node_coordinates().data(), mesh.node_coordinates().size()));
        view.cells = s->own_cells.data();
        view.coordinates = s->own_coordinates.data();
    }
    view.num_cells = n;
    view.nodes_per_cell = mesh.nodes_per_cell;
    view.dim = element_dimension(mesh.cell_type);
    view.faces_per_cell = s->faces.faces_per_cell;
    view.shapes = kernel_shapes();
    view.cell_type = mesh.cell_type;
    if (mesh.is_mixed()) {
        s->cell_types = Array<std::uint8_t>::from_host(
            exec, std::span<const std::uint8_t>(mesh.cell_types.data(), mesh.cell_types.size()));
        view.cell_types = s->cell_types.data();
    }
    view.neighbour = s->faces.neighbour.data();
    view.group = s->faces.group.data();
    s->centroid = Array<double>(exec, 3 * static_cast<std::size_t>(n));
    s->volume = Array<double>(exec, static_cast<std::size_t>(n));
    const long long bad = GPUFEM_DISPATCH(*exec, fv_cell_geometry(*exec, view, s->centroid.data(), s->volume.data()));
    if (bad >= 0)
        throw std::runtime_error(fmt::format("mesh {}: cell {} has no volume (degenerate cell)", mesh.source, bad));
    view.centroid = s->centroid.data();
    view.volume = s->volume.data();
    if (kappa_has_cell_data(problem_)) {  // kappa may jump across every face
        std::vector<int> numbers(static_cast<std::size_t>(n));
        std::iota(numbers.begin(), numbers.end(), 0);
        s->cell_sides = Array<int>::from_host(exec, numbers);
        view.region = s->cell_sides.data();
    } else if (!problem_.kappa_regions.empty()) {  // interfaces where kappa may jump
        s->regions = cell_regions(exec, mesh);
        view.region = s->regions.data();
    }
    s->report.interior_faces = s->faces.interior_faces;
    s->report.boundary_faces = s->faces.boundary_faces;
    if (share_.host) {  // the own cells' faces, counted over the ranks
        const OwnFaces own = own_faces(mesh, s->faces, share_.own_cells, conditions);
        s->report.interior_faces = std::llround(sum_over_processes(*share_.host, static_cast<double>(own.neighbour_slots)) / 2);
        s->report.boundary_faces = std::llround(sum_over_processes(*share_.host, static_cast<double>(own.boundary)));
        s->dirichlet_faces = static_cast<index_type>(own.dirichlet);
        FvMeshView own_view = view;  // a ghost cell's faces beyond the share are not faces of the mesh
        own_view.num_cells = share_.own_cells;
        s->report.max_nonorthogonality =
            largest_over_ranks(*share_.host, GPUFEM_DISPATCH(*exec, fv_max_nonorthogonality(*exec, own_view)));
    } else {
        s->report.max_nonorthogonality = GPUFEM_DISPATCH(*exec, fv_max_nonorthogonality(*exec, view));
    }
    if (!(s->report.max_nonorthogonality < 89.0))
        throw std::runtime_error(fmt::format(
            "mesh {}: a face's normal and the line between its cells' centroids are {:.1f} degrees "
            "apart (at most 89 for finite volumes): the cells are too distorted, or overlap", mesh.source,
            s->report.max_nonorthogonality));
    s->times.geometry = seconds_since(start);

    // Coefficients at the centroids, boundary conditions per group.
    start = clock_type::now();
    const Array<int> regions = s->regions.empty() ? cell_regions(exec, mesh) : s->regions.clone_to(exec);
    s->kappa = cell_coefficient(exec, mesh, problem_, CoefficientKind::kappa, s->centroid, regions);
    s->source = cell_coefficient(exec, mesh, problem_, CoefficientKind::f, s->centroid, regions);
    s->reaction = cell_coefficient(exec, mesh, problem_, CoefficientKind::reaction, s->centroid, regions);
    s->velocity = cell_coefficient(exec, mesh, problem_, CoefficientKind::convection, s->centroid, regions);
    if (code.empty()) code.push_back(ExprInstruction{});
    s->programs = Array<ExprInstruction>::from_host(exec, code);
    s->conditions = Array<FvCondition>::from_host(exec, conditions);
    FvProblemView& problem = s->problem;
    problem.kappa = s->kappa.data();
    problem.source = s->source.data();
    problem.reaction = s->reaction.empty() ? nullptr : s->reaction.data();
    problem.velocity_components = view.dim;
    if (s->velocity.size() == static_cast<std::size_t>(view.dim)) {  // a constant b
        const std::vector<double> b = s->velocity.to_host();
        for (int a = 0; a < view.dim; ++a) problem.convection[a] = b[static_cast<std::size_t>(a)];
    } else if (!s->velocity.empty()) {
        problem.velocity = s->velocity.data();
    }
    problem.conditions = s->conditions.data();
    problem.programs = s->programs.data();
    problem.limit = options_.correction_limit;
    if (!problem_.exact.empty()) s->exact = program_on(exec, Expression(problem_.exact));
    if (!problem_.robin.empty()) {  // h >= 0 and finite, u_inf finite (the facets' quadrature points)
        Array<double> loads(exec, static_cast<std::size_t>(mesh.num_nodes()));
        const MeshOnExec on_exec(mesh, exec);
        robin_facets(mesh, on_exec.coordinates, problem_.robin, loads);
    }
    const double dirichlet_faces = share_.host ? sum_over_processes(*share_.host, s->dirichlet_faces) : s->dirichlet_faces;
    if (dirichlet_faces == 0 && !fixed_without_dirichlet(problem_)) {
        if (has_convection(problem_))
            throw std::runtime_error(
                "problem: finite volumes with convection need a Dirichlet condition (a pure-Neumann "
                "problem with convection has no constant null space to fix)");
        problem.pinned = share_.host ? share_.whole_first_cell : 0;
        s->report.pinned = true;
    }
    s->times.coefficients = seconds_since(start);
    state_ = std::move(s);
    return *state_;
}

template <typename V>
LinearSystem<V> FiniteVolumeDiscretisation<V>::assemble(const ExecPtr& exec, CsrOffsets offsets) const
{
    const State& s = state(exec);
    State& kept = *state_;
    const long long n = mesh_.num_cells();
    LinearSystem<V> system;
    system.times = s.times;
    auto start = clock_type::now();
    // At most one entry per face and the diagonal a row: checked before the 32-bit offsets.
    checked_index(n * (s.mesh.faces_per_cell + 1LL), "non-zeros of the finite-volume matrix");
    Array<index_type> row_ptr(exec, static_cast<std::size_t>(n) + 1);
    const long long nnz = GPUFEM_DISPATCH(*exec, fv_row_offsets(*exec, s.mesh, s.problem.pinned, row_ptr.data()));
    checked_index(nnz, "non-zeros of the finite-volume matrix");
    system.times.pattern = seconds_since(start);
    start = clock_type::now();
    Array<index_type> cols(exec, static_cast<std::size_t>(nnz));
    Array<V> values(exec, static_cast<std::size_t>(nnz));
    Array<V> rhs(exec, static_cast<std::size_t>(n));
    GPUFEM_DISPATCH(*exec, fv_assemble<V>(*exec, s.mesh, s.problem, row_ptr.data(), cols.data(), values.data(),
                                          rhs.data()));
    exec->synchronize();
    system.times.values = seconds_since(start);
    start = clock_type::now();
    if (s.report.pinned) remove_imbalance(s, rhs, kept.report);
    kept.base_rhs = rhs.clone_to(exec);
    system.times.boundary = seconds_since(start);
    system.matrix = Csr<V>{static_cast<index_type>(n), static_cast<index_type>(n), std::move(row_ptr),
                           std::move(cols), std::move(values)};
    system.rhs = std::move(rhs);
    system.initial_guess = Array<V>(exec, static_cast<std::size_t>(n));
    fill(system.initial_guess, V(0));
    system.dirichlet_count = s.dirichlet_faces;
    if (offsets == CsrOffsets::wide) widen_offsets(system);
    return system;
}

template <typename V>
void FiniteVolumeDiscretisation<V>::remove_imbalance(const State& s, Array<V>& rhs, FvMeshReport& report) const
{
    // A pure-Neumann problem: the data must balance (sum of f V + boundary fluxes = 0, up to
    // the midpoint rule's error); what is left is removed evenly by volume, and the pinned
    // cell's equation (the one that depends on the others) is dropped. Across ranks the sums
    // run over every rank's own rows.
    const ExecPtr& exec = s.exec;
    const index_type rows = share_.host ? share_.own_cells : static_cast<index_type>(mesh_.num_cells());
    const std::vector<V> b = rhs.to_host();
    const std::vector<double> volume = s.volume.to_host();
    double sums[4] = {0, 0, 0, static_cast<double>(rows)};  // net, sum b^2, volume, rows
    for (index_type c = 0; c < rows; ++c) {
        const auto i = static_cast<std::size_t>(c);
        sums[0] += static_cast<double>(b[i]);
        sums[1] += static_cast<double>(b[i]) * static_cast<double>(b[i]);
        sums[2] += volume[i];
    }
    if (share_.host && share_.host->reduces()) share_.host->all_reduce_sum(*Executor::create_cpu(), sums, 4);
    const double net = sums[0];
    const double size = std::sqrt(sums[3] * sums[1]);
    const double relative = size > 0 ? std::abs(net) / size : 0.0;
    if (relative > 1e-2)
        throw std::runtime_error(fmt::format(
            "problem: no Dirichlet condition, and the data do not balance: the sources and "
            "boundary fluxes add up to {:.6g} ({:.2g} of their size); a pure-Neumann problem "
            "needs int f dV + int g dS = 0", net, relative));
    const std::vector<V> weights(volume.begin(), volume.end());
    if (sums[2] > 0) axpy(static_cast<V>(-net / sums[2]), Array<V>::from_host(exec, weights), rhs);
    if (s.problem.pinned >= 0 && s.problem.pinned < rows) {
        const V zero(0);
        copy_bytes(*exec, rhs.data() + s.problem.pinned, *Executor::create_cpu(), &zero, sizeof(V));
    }
    report.imbalance = net;
    report.imbalance_relative = relative;
}

template <typename V>
void FiniteVolumeDiscretisation<V>::correct(const State& s, const Array<V>& u, const Array<V>& base,
                                            Array<double>& gradient, Array<V>& out) const
{
    const Executor& e = *s.exec;
    GPUFEM_DISPATCH(e, fv_cell_gradients<V>(e, s.mesh, s.problem, u.data(), s.mesh.num_cells, gradient.data()));
    GPUFEM_DISPATCH(e, fv_corrected_rows<V>(e, s.mesh, s.problem, u.data(), base.data(), gradient.data(),
                                             s.mesh.num_cells, out.data()));
}

template <typename V>
void FiniteVolumeDiscretisation<V>::own_gradients(const Array<V>& u, Array<double>& gradient) const
{
    const State& s = state(u.executor());
    const Executor& e = *s.exec;
    GPUFEM_DISPATCH(e, fv_cell_gradients<V>(e, s.mesh, s.problem, u.data(), share_.own_cells, gradient.data()));
}

template <typename V>
void FiniteVolumeDiscretisation<V>::own_corrected_rhs(const Array<V>& u, const Array<double>& gradient,
                                                      Array<V>& out) const
{
    const State& s = state(u.executor());
    if (s.base_rhs.empty()) throw std::logic_error("own_corrected_rhs before assemble");
    const Executor& e = *s.exec;
    const auto rows = static_cast<std::size_t>(share_.own_cells);
    if (out.size() != rows || out.executor() != s.exec) out = Array<V>(s.exec, rows);
    GPUFEM_DISPATCH(e, fv_corrected_rows<V>(e, s.mesh, s.problem, u.data(), s.base_rhs.data(), gradient.data(),
                                             share_.own_cells, out.data()));
}

template <typename V>
int FiniteVolumeDiscretisation<V>::correction_passes() const
{
    constexpr double orthogonal_degrees = 1e-3;  // acos of rounding-level cosines stays below
    if (state_ && state_->report.max_nonorthogonality < orthogonal_degrees) return 0;
    return options_.nonorthogonal_correctors;
}

template <typename V>
DiscreteSystem<V> FiniteVolumeDiscretisation<V>::assemble_matrix_free(const ExecPtr&, const OperatorLevelEntry& level,
                                                                      const FormatOptions&) const
{
    throw std::invalid_argument("format '" + level.name +
                                "' is matrix-free (element matrices); finite volumes take an assembled format");
}

template <typename V>
Array<V> FiniteVolumeDiscretisation<V>::corrected_rhs(const Array<V>& u) const
{
    const State& s = state(u.executor());
    const ExecPtr& exec = u.executor();
    if (s.base_rhs.empty()) throw std::logic_error("corrected_rhs before assemble");
    Array<double> gradient(exec, 3 * static_cast<std::size_t>(mesh_.num_cells()));
    Array<V> rhs(exec, static_cast<std::size_t>(mesh_.num_cells()));
    correct(s, u, s.base_rhs, gradient, rhs);
    return rhs;
}

template <typename V>
void FiniteVolumeDiscretisation<V>::corrected_rhs_into(const Array<V>& u, Array<V>& out) const
{
    const State& s = state(u.executor());
    const ExecPtr& exec = u.executor();
    if (s.base_rhs.empty()) throw std::logic_error("corrected_rhs before assemble");
    const std::size_t n = static_cast<std::size_t>(mesh_.num_cells());
    if (s.gradient.size() != 3 * n) s.gradient = Array<double>(exec, 3 * n);
    if (out.size() != n || out.executor() != exec) out = Array<V>(exec, n);
    correct(s, u, s.base_rhs, s.gradient, out);
}

template <typename V>
Array<double> FiniteVolumeDiscretisation<V>::cell_gradients(const State& s, const Array<V>& u) const
{
    Array<double> gradient(s.exec, 3 * static_cast<std::size_t>(s.mesh.num_cells));
    const Executor& e = *s.exec;
    GPUFEM_DISPATCH(e, fv_cell_gradients<V>(e, s.mesh, s.problem, u.data(), s.mesh.num_cells, gradient.data()));
    return gradient;
}

template <typename V>
Array<double> FiniteVolumeDiscretisation<V>::face_fluxes_with(const State& s, const Array<V>& u,
                                                              const double* gradient) const
{
    return face_fluxes_with(s, s.mesh, u, gradient);
}

template <typename V>
Array<double> FiniteVolumeDiscretisation<V>::face_fluxes_with(const State& s, const FvMeshView& view,
                                                              const Array<V>& u, const double* gradient) const
{
    const std::size_t slots = static_cast<std::size_t>(view.num_cells) * static_cast<std::size_t>(view.faces_per_cell);
    Array<double> flux(s.exec, slots);
    const Executor& e = *s.exec;
    GPUFEM_DISPATCH(e, fv_face_fluxes<V>(e, view, s.problem, u.data(), gradient, flux.data()));
    return flux;
}

template <typename V>
std::vector<double> FiniteVolumeDiscretisation<V>::face_fluxes(const Array<V>& u, bool corrected) const
{
    const State& s = state(u.executor());
    if (!corrected) return face_fluxes_with(s, u, nullptr).to_host();
    const Array<double> gradient = cell_gradients(s, u);
    return face_fluxes_with(s, u, gradient.data()).to_host();
}

template <typename V>
std::vector<double> FiniteVolumeDiscretisation<V>::volumes() const
{
    if (!state_) throw std::logic_error("volumes before assemble");
    return state_->volume.to_host();
}

template <typename V>
std::vector<double> FiniteVolumeDiscretisation<V>::centroids() const
{
    if (!state_) throw std::logic_error("centroids before assemble");
    return state_->centroid.to_host();
}

template <typename V>
FvMeshReport FiniteVolumeDiscretisation<V>::mesh_report() const
{
    if (!state_) throw std::logic_error("mesh_report before assemble");
    return state_->report;
}

template <typename V>
nlohmann::json FiniteVolumeDiscretisation<V>::report() const
{
    nlohmann::json out = {{"method", "cell-centred finite volumes, two-point flux (over-relaxed non-orthogonal split)"},
                          {"nonorthogonal_correctors", options_.nonorthogonal_correctors},
                          {"correction_limit", options_.correction_limit},
                          {"correction", std::string(enum_name(fv_correction_names, options_.correction))}};
    if (!state_) return out;
    const FvMeshReport& r = state_->report;
    out["interior_faces"] = r.interior_faces;
    out["boundary_faces"] = r.boundary_faces;
    out["max_nonorthogonality_degrees"] = r.max_nonorthogonality;
    out["pure_neumann"] = r.pinned;
    if (r.pinned) {
        out["net_source_removed"] = r.imbalance;
        out["net_source_relative"] = r.imbalance_relative;
        out["constant"] = "u = 0 in cell 0 while solving, then shifted to zero mean";
    }
    return out;
}

namespace {

constexpr const char* fv_flux_method = "finite volumes: the scheme's face fluxes (diffusion with its correction, and "
                                       "the upwind convective flux) summed over each group's faces";

/// The outward fluxes through each condition's group, in the order the conditions are given
/// (Dirichlet, Neumann, Robin), and through the boundary faces in none ("none"): the face
/// fluxes (one per slot of view's cells, on its executor) tagged by group there and summed
/// group by group in an order fixed by the mesh (the same sums on every run); across ranks
/// (ranks given) the group of free faces is listed where any rank has one.
std::vector<GroupFlux> fv_group_fluxes(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                                       const FvMeshView& view, const Array<double>& face, const Communicator* ranks)
{
    std::vector<std::pair<std::string, std::string>> named;
    for (const BoundaryCondition& bc : problem.dirichlet) named.emplace_back(bc.group, "dirichlet");
    for (const BoundaryCondition& bc : problem.neumann) named.emplace_back(bc.group, "neumann");
    for (const RobinCondition& bc : problem.robin) named.emplace_back(bc.group, "robin");
    const auto group_of = [&](const std::string& name, const std::string& kind) {
        return static_cast<int>(&condition_facets(mesh, name, kind.c_str()) - mesh.boundaries.data());
    };
    std::vector<int> conditioned(mesh.boundaries.size() + 1, 0);  // + 1: never empty
    for (const auto& [name, kind] : named) conditioned[static_cast<std::size_t>(group_of(name, kind))] = 1;
    const int others = static_cast<int>(mesh.boundaries.size());
    const Array<int> on_exec = Array<int>::from_host(exec, conditioned);
    Array<int> tag(exec, face.size());
    const Executor& e = *exec;
    const long long free_faces = GPUFEM_DISPATCH(e, fv_boundary_face_tags(e, view, on_exec.data(), others,
                                                                          face.data(), tag.data()));
    const auto sum = [&](int g) {
        return GPUFEM_DISPATCH(e, region_sum(e, static_cast<long long>(face.size()), tag.data(), g, face.data()));
    };
    std::vector<GroupFlux> out;
    for (const auto& [name, kind] : named) out.push_back({name, kind, sum(group_of(name, kind))});
    // Across ranks every rank lists the same groups (their sums are added entry by entry).
    const double free_anywhere = ranks ? sum_over_processes(*ranks, static_cast<double>(free_faces))
                                       : static_cast<double>(free_faces);
    if (free_anywhere > 0) out.push_back({"(boundary faces in no condition's group)", "none", sum(others)});
    return out;
}

/// The flux at the nodes from the cells' (3 columns of n values on view's executor): at each
/// node the mean over the cells around it weighted by their volumes, as dim fields (float32:
/// held in float, as column_fields).
std::vector<MeshField> fv_node_average(const ExecPtr& exec, const Mesh& mesh, const FvMeshView& view,
                                       const Array<double>& flux, long long n, bool float32)
{
    const std::size_t nodes = static_cast<std::size_t>(mesh.num_nodes());
    Array<double> sum(exec, 3 * nodes), weight(exec, nodes);
    fill(sum, 0.0), fill(weight, 0.0);
    const Executor& e = *exec;
    GPUFEM_DISPATCH(e, fv_node_flux_sums(e, view, n, flux.data(), sum.data(), weight.data()));
    return node_mean_fields(mesh.dim, sum, weight, float32);
}

}  // namespace

template <typename V>
SolutionFluxes FiniteVolumeDiscretisation<V>::fluxes(const Array<V>& u, double shift_u) const
{
    const State& s = state(u.executor());
    const ExecPtr& exec = u.executor();
    const std::size_t n = static_cast<std::size_t>(mesh_.num_cells());
    SolutionFluxes out;
    out.report.method = fv_flux_method;
    StageLaps laps;
    const Array<double> gradient = cell_gradients(s, u);  // the face fluxes' correction and the flux field's
    {
        const Array<double> face = face_fluxes_with(s, u, correction_passes() > 0 ? gradient.data() : nullptr);
        out.report.groups = fv_group_fluxes(exec, mesh_, problem_, s.mesh, face, nullptr);
    }
    laps.lap("face fluxes summed by group");
    Array<double> flux(exec, 3 * n), integrals(exec, 5 * n);
    const Executor& e = *exec;
    GPUFEM_DISPATCH(e, fv_flux_integrals<V>(e, static_cast<long long>(n), s.problem, s.volume.data(), u.data(), shift_u,
                                            gradient.data(), flux.data(), integrals.data()));
    out.report.regions = region_integrals(mesh_, integrals, static_cast<long long>(n));
    laps.lap("cell fluxes and region integrals");
    const bool float32 = this->flux_fields_float32();
    out.cell_fields = column_fields(mesh_.dim, flux, n, float32);
    laps.lap("cell fields");
    out.point_fields = fv_node_average(exec, mesh_, s.mesh, flux, static_cast<long long>(n), float32);
    laps.lap("point fields");
    spdlog::debug("finite-volume fluxes: {}", laps.text);
    return out;
}

template <typename V>
double FiniteVolumeDiscretisation<V>::zero_mean_shift(const State& s, const Array<V>& u) const
{
    if (!s.report.pinned) return 0.0;
    const Executor& e = *s.exec;
    const FvErrorSums sums = GPUFEM_DISPATCH(e, fv_errors<V>(e, nullptr, s.centroid.data(), s.volume.data(),
                                                             share_.own_cells, u.data(), 0.0, 0.0, nullptr, nullptr));
    double total[2] = {sums.volume, sums.u};
    share_.host->all_reduce_sum(*Executor::create_cpu(), total, 2);
    return total[0] > 0 ? -total[1] / total[0] : 0.0;
}

template <typename V>
FvShareFluxes FiniteVolumeDiscretisation<V>::share_fluxes(const Array<V>& u, const Array<double>& gradient) const
{
    if (!share_.host) throw std::logic_error("share_fluxes: not a rank's share");
    const State& s = state(u.executor());
    const ExecPtr& exec = u.executor();
    const Executor& e = *exec;
    const long long n = mesh_.num_cells(), own = share_.own_cells;
    FvMeshView own_view = s.mesh;  // a ghost cell's faces beyond the share are not faces of the mesh
    own_view.num_cells = own;
    FvShareFluxes out;
    out.fluxes.report.method = fv_flux_method;
    {
        const double* correction = correction_passes() > 0 ? gradient.data() : nullptr;
        const Array<double> face = face_fluxes_with(s, own_view, u, correction);
        out.fluxes.report.groups = fv_group_fluxes(exec, mesh_, problem_, own_view, face, share_.host);
    }
    // Every cell's integrals (region_integrals reads columns of the mesh's cells), summed over the own.
    Array<double> flux(exec, 3 * static_cast<std::size_t>(n)), integrals(exec, 5 * static_cast<std::size_t>(n));
    GPUFEM_DISPATCH(e, fv_flux_integrals<V>(e, n, s.problem, s.volume.data(), u.data(), zero_mean_shift(s, u),
                                            gradient.data(), flux.data(), integrals.data()));
    out.fluxes.report.regions = region_integrals(mesh_, integrals, own, true);
    Array<double> own_flux(exec, 3 * static_cast<std::size_t>(own));
    const std::size_t column_bytes = static_cast<std::size_t>(own) * sizeof(double);
    for (long long d = 0; d < 3 && own > 0; ++d)
        copy_bytes(e, own_flux.data() + d * own, e, flux.data() + d * n, column_bytes);
    out.fluxes.cell_fields = column_fields(mesh_.dim, own_flux, static_cast<std::size_t>(own), false);
    const std::size_t nodes = static_cast<std::size_t>(mesh_.num_nodes());
    Array<double> sum(exec, 4 * nodes);  // 3 per node, then one weight per node
    fill(sum, 0.0);
    GPUFEM_DISPATCH(e, fv_node_flux_sums(e, own_view, own, own_flux.data(), sum.data(), sum.data() + 3 * nodes));
    out.node_sums = sum.to_host();
    return out;
}

template <typename V>
SolutionOutput FiniteVolumeDiscretisation<V>::solution_output(const Array<V>& u) const
{
    const State& s = state(u.executor());
    const ExecPtr& exec = u.executor();
    const auto started = clock_type::now();
    const long long n = share_.host ? share_.own_cells : mesh_.num_cells();  // across ranks: the own cells
    if (static_cast<long long>(u.size()) < n) throw std::invalid_argument("solution_output: fewer values than cells");
    const bool has_exact = !s.exact.empty();
    const ExprInstruction* program = has_exact ? s.exact.data() : nullptr;
    Array<double> exact(exec, has_exact ? static_cast<std::size_t>(n) : 0);
    Array<double> error(exec, has_exact ? static_cast<std::size_t>(n) : 0);
    const auto errors = [&](double shift_u, double shift_exact) {
        return GPUFEM_DISPATCH(*exec, fv_errors<V>(*exec, program, s.centroid.data(), s.volume.data(), n,
                                                   u.data(), shift_u, shift_exact,
                                                   has_exact ? exact.data() : nullptr,
                                                   has_exact ? error.data() : nullptr));
    };
    FvErrorSums sums = errors(0.0, 0.0);
    double shift_u = 0.0;
    if (s.report.pinned) {
        // Defined up to a constant: the solution, and the exact one, at zero mean (over every
        // rank's cells).
        double total[3] = {sums.volume, sums.u, sums.exact};
        if (share_.host && share_.host->reduces()) share_.host->all_reduce_sum(*Executor::create_cpu(), total, 3);
        if (total[0] > 0) {
            shift_u = -total[1] / total[0];
            sums = errors(shift_u, has_exact ? -total[2] / total[0] : 0.0);
        }
    }
    SolutionOutput out;
    spdlog::debug("finite-volume errors: sums {:.3f} s", seconds_since(started));
    if (this->flux_output()) {
        SolutionFluxes fluxes = this->fluxes(u, shift_u);
        for (MeshField& field : fluxes.point_fields) out.point_fields.push_back(std::move(field));
        for (MeshField& field : fluxes.cell_fields) out.cell_fields.push_back(std::move(field));
        out.fluxes = std::move(fluxes.report);
    }
    const HostVector<V> uh = u.to_host_vector();
    HostVector<double> values(static_cast<std::size_t>(n));
    const long long count = n;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < count; ++i) values[i] = static_cast<double>(uh[i]) + shift_u;
    out.cell_fields.push_back({"u", std::move(values)});
    if (!has_exact) return out;
    ErrorNorms norms;
    norms.l2 = std::sqrt(sums.l2);
    norms.l2_exact = std::sqrt(sums.l2_exact);
    norms.max_nodal = sums.max_error;
    norms.h1_semi = std::numeric_limits<double>::quiet_NaN();
    out.errors = norms;
    out.cell_fields.push_back({"u_exact", exact.to_host_vector()});
    out.cell_fields.push_back({"error", error.to_host_vector()});
    return out;
}

template class FiniteVolumeDiscretisation<float>;
template class FiniteVolumeDiscretisation<double>;

}  // namespace gpufem
