#pragma once
// Cell-centred finite volumes (fv_geometry.hpp has the scheme): one unknown per cell, the
// two-point flux with the over-relaxed non-orthogonal split, its explicit part solved with the
// system (implicit, the default) or corrected in further solves (deferred), upwind convection. The
// geometry, the face adjacency and the matrix are built on the executor, one row per cell.
#include <memory>

#include "assembly/discretisation.hpp"
#include "assembly/fe_fluxes.hpp"
#include "assembly/problem_spec.hpp"
#include "linalg/communicator.hpp"
#include "linalg/named_enum.hpp"

namespace gpufem {

/// How the explicit part of the non-orthogonal split is brought into the solution.
enum class FvCorrection {
    implicit,  ///< one Krylov solve of the corrected operator (affine: the limiter off)
    deferred,  ///< repeated solves with the two-point matrix, the correction on the right
};
inline constexpr std::array<EnumName<FvCorrection>, 2> fv_correction_names{
    {{FvCorrection::implicit, "implicit"}, {FvCorrection::deferred, "deferred"}}};

/// Options of the finite-volume discretisation (case key `fv`).
struct FvOptions {
    /// At most this many solves after the first, each with the explicit non-orthogonal
    /// correction of the previous solution on the right-hand side; they stop once it changes
    /// by less than the solver's tolerance (on orthogonal meshes at once). 0: the plain
    /// two-point flux.
    int nonorthogonal_correctors = 50;
    /// OpenFOAM's limiter psi: each face's correction is at most psi / (1 - psi) times its
    /// implicit part (1: unlimited, 0.5: at most equal, 0: none).
    double correction_limit = 1.0;
    /// implicit needs the unlimited (affine) correction; the case reader's default is implicit
    /// with the amg preconditioner and the limit 1, deferred otherwise.
    FvCorrection correction = FvCorrection::implicit;
};

/// What the finite-volume assembly found about the mesh and the data (for report.json).
struct FvMeshReport {
    long long interior_faces = 0;
    long long boundary_faces = 0;
    double max_nonorthogonality = 0;  ///< degrees
    bool pinned = false;              ///< a pure-Neumann problem: cell 0 fixed to 0
    double imbalance = 0;             ///< pure Neumann: the data's net source, removed
    double imbalance_relative = 0;    ///< |imbalance| / (sqrt(n) ||b||)
};

/// A rank's share of a mesh whose cells are split among ranks: the mesh's first own_cells
/// cells are the rank's (its rows), the rest its ghost cells, the face neighbours of its own
/// that other ranks hold (assembly/fv_part.hpp).
struct FvRankShare {
    index_type own_cells = 0;
    /// The local number of the whole mesh's cell 0 where this rank holds it (as its own or a
    /// ghost), else -1: the cell a pure-Neumann problem fixes, as on one rank.
    long long whole_first_cell = -1;
    const Communicator* host = nullptr;  ///< the ranks, for sums and maxima of host values
};

struct FvMeshView;

/// A rank's part of the fluxes of a solution (FiniteVolumeDiscretisation::share_fluxes).
struct FvShareFluxes {
    /// The own cells' boundary faces summed by group and their regions' integrals (both to
    /// be summed over the ranks; the same groups on every rank), their flux cell fields; no
    /// point fields.
    SolutionFluxes fluxes;
    /// Per node of the share, the own cells' volume-weighted flux summed at the node (3 per
    /// node), then per node their volumes; summed over the ranks, the nodes' mean as one rank
    /// has it.
    std::vector<double> node_sums;
};

/// The finite-volume discretisation of a problem on a mesh (both must outlive it).
template <typename V>
class FiniteVolumeDiscretisation final : public Discretisation<V> {
public:
    FiniteVolumeDiscretisation(const Mesh& mesh, const ProblemSpec& problem, const FvOptions& options);
    FiniteVolumeDiscretisation(Mesh&&, const ProblemSpec&, const FvOptions&) = delete;
    ~FiniteVolumeDiscretisation() override;

    std::string describe() const override;
    /// Makes this the discretisation of one rank's share (before anything is assembled):
    /// whether the problem is pure Neumann and how non-orthogonal the mesh is are decided over
    /// every rank, the data's balance is summed over them, solution_output covers the own
    /// cells (shifted by the global mean where pure Neumann; its error norms this rank's, whose
    /// squares the caller sums), and fluxes are not computed. Collective from then on: the
    /// first assemble, solution_output.
    void share_among_ranks(const FvRankShare& share);
    const Mesh& mesh() const override { return mesh_; }
    /// The cell space of the mesh: one unknown per cell.
    const FunctionSpace& space() const override { return space_; }
    /// The matrix (one row per cell, columns increasing) and the right-hand side without the
    /// explicit correction. Throws naming the key on bad coefficients or groups, the cell on a
    /// degenerate cell, and on incompatible pure-Neumann data.
    using Discretisation<V>::assemble;
    LinearSystem<V> assemble(const ExecPtr& exec, CsrOffsets offsets) const override;
    /// Throws: finite volumes have no element matrices.
    DiscreteSystem<V> assemble_matrix_free(const ExecPtr& exec, const OperatorLevelEntry& level,
                                           const FormatOptions& options) const override;
    /// None: one unknown per cell has no lower degree.
    std::vector<Csr<V>> pmg_interpolations(const ExecPtr&) const override { return {}; }
    /// u, and with an exact solution u_exact and error, as cell data; the cell-centred L2
    /// error sqrt(sum V_c (u_c - u(x_c))^2). A pure-Neumann solution (and the exact one) is
    /// shifted to zero mean.
    SolutionOutput solution_output(const Array<V>& u) const override;
    /// fv.nonorthogonal_correctors; 0 on orthogonal meshes (every face's normal along d: the
    /// correction is 0), known once assembled.
    int correction_passes() const override;
    /// fv.correction is implicit (the unlimited correction, affine in u).
    bool correction_is_affine() const override { return options_.correction == FvCorrection::implicit; }
    Array<V> corrected_rhs(const Array<V>& u) const override;
    /// Without allocating after the first call (the gradients' scratch is kept).
    void corrected_rhs_into(const Array<V>& u, Array<V>& out) const override;

    /// Across ranks: the cell gradients (3 per cell of the share, written for its own cells)
    /// of u, which holds every cell's value (own, then ghosts).
    void own_gradients(const Array<V>& u, Array<double>& gradient) const;
    /// Across ranks: the own cells' corrected right-hand side (their rows) of u, with gradient
    /// holding the own cells' and the ghosts' gradients (the latter from their owners).
    void own_corrected_rhs(const Array<V>& u, const Array<double>& gradient, Array<V>& out) const;

    /// The outward flux through every face of every cell (slot c * faces_per_cell + f) for
    /// the solution u, with the explicit correction of u when corrected (host copy).
    std::vector<double> face_fluxes(const Array<V>& u, bool corrected) const;
    /// The cells' volumes and centroids (3 per cell), host copies (after assemble).
    std::vector<double> volumes() const;
    std::vector<double> centroids() const;
    /// What assembly found (after assemble).
    FvMeshReport mesh_report() const;
    /// The fluxes of the solution u (shifted by shift_u for the integrals of u): the flux out
    /// through each condition's group (the scheme's face fluxes, convection included), the
    /// regions' integrals (midpoint rule), -kappa grad u per cell (the least-squares gradient)
    /// and at the nodes (the mean over the cells around a node, weighted by their volumes);
    /// the fields held in float where flux_fields_float32().
    SolutionFluxes fluxes(const Array<V>& u, double shift_u) const;
    /// Across ranks: fluxes() of this rank's share, u and gradient holding every cell of it
    /// (own, then ghosts; the ghosts' gradients from their owners, as for the correction);
    /// shifted to zero mean over every rank where pure Neumann; the fields held in double.
    /// Collective.
    FvShareFluxes share_fluxes(const Array<V>& u, const Array<double>& gradient) const;
    /// The method, its options and mesh_report() (when assembled), for report.json.
    nlohmann::json report() const override;

private:
    struct State;
    const State& state(const ExecPtr& exec) const;
    /// Balances a pure-Neumann right-hand side (rows: the own cells) and fixes the pinned row.
    void remove_imbalance(const State& s, Array<V>& rhs, FvMeshReport& report) const;
    /// The cell gradients of u (3 per cell), on s's executor.
    Array<double> cell_gradients(const State& s, const Array<V>& u) const;
    /// face_fluxes of u with the correction of the cell gradients `gradient` (null: none), on
    /// s's executor.
    Array<double> face_fluxes_with(const State& s, const Array<V>& u, const double* gradient) const;
    /// The same for the cells of view (s.mesh, or its first cells).
    Array<double> face_fluxes_with(const State& s, const FvMeshView& view, const Array<V>& u,
                                   const double* gradient) const;
    /// Where pure Neumann, the shift that brings the own cells' u to zero mean over every
    /// rank's (0 otherwise).
    double zero_mean_shift(const State& s, const Array<V>& u) const;
    /// out = base + the corrections of u (every cell; gradient: scratch, 3 per cell).
    void correct(const State& s, const Array<V>& u, const Array<V>& base, Array<double>& gradient,
                 Array<V>& out) const;

    const Mesh& mesh_;
    FunctionSpace space_;
    const ProblemSpec& problem_;
    FvOptions options_;
    FvRankShare share_;  ///< host null: the whole mesh on one rank
    mutable std::unique_ptr<State> state_;
};

}  // namespace gpufem
