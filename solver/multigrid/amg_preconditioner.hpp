#pragma once
// Smoothed-aggregation algebraic multigrid as a preconditioner: the hierarchy is set up on the
// matrix's executor (aggregation, prolongators, Galerkin products; see aggregation.hpp) and one
// V-cycle is one apply. Level 0 smooths with the system's own operator (the format the user
// chose); the coarser levels and the transfer operators are stored in the registry's tuned CSR
// format (p-multigrid's first transfer may be given as operators instead, applied by sum
// factorisation); the coarsest level is solved with a dense inverse.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "linalg/csr.hpp"
#include "linalg/transfer_operators.hpp"
#include "solver/krylov/preconditioner.hpp"
#include "solver/multigrid/aggregation.hpp"
#include "solver/multigrid/amg_options.hpp"
#include "solver/multigrid/chebyshev.hpp"
#include "solver/multigrid/classical_coarsening.hpp"
#include "solver/multigrid/dense_inverse.hpp"
#include "solver/multigrid/lattice_product.hpp"

namespace gpufem {

/// What one level of a hierarchy holds, for logs and reports.
struct AmgLevelSummary {
    index_type rows = 0;
    std::size_t nnz = 0;
    double lambda_max = 0;  ///< the estimate of the largest eigenvalue of D^-1 A (0: coarsest)
    int mis_rounds = 0;     ///< rounds of the aggregation's independent set (0: coarsest)
};

/// The median time of one phase of the V-cycle on one level (AmgPreconditioner::time_cycle).
struct AmgCyclePhase {
    int level = 0;
    std::string phase;  ///< pre-smooth, residual, restrict, coarse solve, prolong, post-smooth
    double seconds = 0;
};

/// Smoothed-aggregation AMG, one V-cycle per apply. Symmetric (the same polynomial smoother
/// before and after the coarse correction, R = P^T), so CG stays valid.
template <typename V>
class AmgPreconditioner final : public Preconditioner<V> {
public:
    /// Builds the hierarchy of a, whose entries `matrix` holds in CSR in a's numbering (a is
    /// kept by reference and must outlive the preconditioner; matrix is only read). With
    /// given prolongators (p-multigrid: the interpolations to lower degrees of the same mesh,
    /// finest first, the first's rows in a's numbering) the first coarse levels are R A P
    /// with those P (not smoothed) instead of aggregations; the levels below are AMG's.
    /// Throws std::invalid_argument on a zero or non-finite diagonal or prolongators whose
    /// sizes do not chain. lattices[l], where given and not empty, holds the coarse grid of
    /// prolongator l as lattice points: its R A P by windows (lattice_product.hpp).
    AmgPreconditioner(const LinearOperator<V>& a, const Csr<V>& matrix, const AmgOptions& options,
                      const std::vector<Csr<V>>* given_prolongators = nullptr,
                      std::vector<CoarseLattice> lattices = {});
    /// p-multigrid without a's matrix: the given prolongators and, for the first of them (at
    /// least one, at most all), the operator of its coarse space (coarse_operators[l] for the
    /// columns of prolongators[l], e.g. the element-wise Galerkin products of
    /// pmg_coarse_operators) instead of R A P; the given levels after them R A P from the
    /// level above; AMG below the last. a needs only its diagonal and its products (any format, matrix-free
    /// included). update() is not available on such a hierarchy. origin: how the given
    /// operators were made, for report() (coarse_operators). With `first`, the first transfer
    /// is those operators (applied without a stored matrix; P: a's rows x coarse_operators[0]'s)
    /// and prolongators hold the chain below it (prolongators[l]: level l + 1's; may be empty);
    /// lattices and coarse_operators stay indexed by level (lattices[0]: the first transfer's).
    /// first_operator, with `first` and at least one prolongator below it: the first coarse
    /// level's operator without a stored matrix (assembly/pa_coarse_level.hpp), in place of
    /// coarse_operators[0] (then empty); it needs only its diagonal and its products.
    AmgPreconditioner(const LinearOperator<V>& a, const AmgOptions& options,
                      const std::vector<Csr<V>>& prolongators, std::vector<Csr<V>> coarse_operators,
                      std::vector<CoarseLattice> lattices = {}, std::string origin = "element galerkin",
                      std::optional<TransferOperators<V>> first = std::nullopt,
                      std::unique_ptr<LinearOperator<V>> first_operator = nullptr);
    /// p-multigrid in float from a's entries in double (`matrix`, only read during the
    /// setup): as the first constructor with the given prolongators (at least one), level 0's
    /// R A P reading matrix's values rounded to float as it goes (lattice_galerkin), so no
    /// rounded copy of the matrix is made; the same hierarchy as from rounded_to_float(matrix).
    /// update() is not available on such a hierarchy (it keeps no level-0 matrix).
    AmgPreconditioner(const LinearOperator<V>& a, const Csr<double>& matrix, const AmgOptions& options,
                      const std::vector<Csr<V>>& given_prolongators, std::vector<CoarseLattice> lattices = {})
        requires std::is_same_v<V, float>;
    ~AmgPreconditioner() override;

    const ExecPtr& executor() const override { return exec_; }
    index_type size() const override { return rows_; }
    /// "amg", or "pmg" with given prolongators.
    std::string name() const override { return name_; }
    /// One V-cycle from a zero guess.
    void apply(const Array<V>& r, Array<V>& z) const override;
    std::size_t apply_bytes() const override { return apply_bytes_; }
    bool graph_capturable() const override;
    nlohmann::json report() const override;

    /// The levels, finest first.
    const std::vector<AmgLevelSummary>& levels() const { return summaries_; }
    /// Stored non-zeros of all level operators over those of the finest.
    double operator_complexity() const;
    /// Wall time of the setup (synchronised).
    double setup_seconds() const { return setup_seconds_; }
    /// New values on the same pattern (e.g. a new kappa): a, the new level-0 operator (kept by
    /// reference from now on), and matrix, its entries in CSR. The numeric part of the setup
    /// again — diagonals, eigenvalue estimates, smoothers, P's values on the kept aggregates,
    /// R and the Galerkin products, the coarse inverse — without the strength and the
    /// aggregation (the same aggregates, as AmgX's and hypre's setup reuse keep them). The
    /// given prolongators (pmg) stay. Throws std::invalid_argument when the sizes differ; when
    /// the update itself fails (e.g. a zero diagonal) the hierarchy is dropped and apply()
    /// throws until the preconditioner is set up again.
    void update(const LinearOperator<V>& a, const Csr<V>& matrix);
    /// update(a, *matrix) where the hierarchy can take it: false without a matrix, on a
    /// hierarchy of element-wise coarse operators or on one made from a double matrix (no
    /// level-0 matrix to update from).
    bool update(const LinearOperator<V>& a, const Csr<V>* matrix) override
    {
        if (!matrix || given_operators_ || from_double_) return false;
        update(a, *matrix);
        return true;
    }
    /// Wall time of the last update (0: none).
    double update_seconds() const override { return update_seconds_; }
    /// Runs `repeats` V-cycles z = M^-1 r with every phase of every level between timer
    /// marks (CUDA events on the GPU) and returns each phase's median time, finest level
    /// first. For benchmarks: the marks cost a little and prevent graph capture.
    std::vector<AmgCyclePhase> time_cycle(const Array<V>& r, Array<V>& z, int repeats) const;

private:
    struct Level;
    struct PhaseTimers;
    void cycle(std::size_t l, const Array<V>& b, Array<V>& x) const;
    /// Gives the level its smoother for lambda, the estimate of the largest eigenvalue of its
    /// D^-1 A (Chebyshev over [upper / 10, upper], upper = chebyshev_margin x lambda, or
    /// damped Jacobi; [upper / 5, upper] on classically coarsened levels, not on pmg's given
    /// ones); returns lambda.
    double set_up_smoother(Level& level, double lambda, bool given = false) const;
    /// The last steps of a setup or an update: the deferred levels' estimates queued on the
    /// device while the host inverts the coarsest level (coarsest_entries, when direct), then
    /// their smoothers; phase_done(k) times step k.
    template <typename PhaseDone>
    void finish_levels(const std::vector<std::size_t>& deferred,
                       const std::optional<DenseInverseInput>& coarsest_entries, const PhaseDone& phase_done);
    /// Bytes one cycle moves at least (the traffic model of apply_bytes).
    std::size_t cycle_bytes() const;
    /// update's work (on failure update drops the levels).
    void update_levels(const LinearOperator<V>& a, const Csr<V>& matrix);
    /// The constructors' work: matrix null only with given coarse operators.
    void set_up(const Csr<V>* matrix, const std::vector<Csr<V>>* given_prolongators,
                std::vector<Csr<V>>* given_operators);

    ExecPtr exec_;
    std::string name_ = "amg";
    int given_levels_ = 0;  ///< transfers taken from the given prolongators
    bool given_operators_ = false;  ///< their coarse operators given too (no level-0 matrix)
    bool from_double_ = false;      ///< level 0's matrix was given in double (no level-0 matrix kept)
    const Csr<double>* fine_in_double_ = nullptr;  ///< that matrix, during the setup only
    std::string given_origin_;      ///< how the given coarse operators were made
    std::optional<TransferOperators<V>> first_transfer_;  ///< a given first transfer, until set_up takes it
    std::string first_transfer_format_ = "csr";           ///< the first transfer's format (report)
    std::unique_ptr<LinearOperator<V>> first_operator_;   ///< a given first coarse operator, until set_up takes it
    std::string first_operator_format_;                   ///< its format (report; empty: a stored matrix)
    index_type rows_ = 0;
    AmgOptions options_;
    const LinearOperator<V>* a_ = nullptr;  ///< the level-0 operator (the setup's)
    std::vector<std::unique_ptr<Level>> levels_;
    std::vector<AmgLevelSummary> summaries_;
    Array<V> coarse_inverse_;  ///< row-major dense inverse of the coarsest level (when direct)
    std::size_t apply_bytes_ = 0;
    double setup_seconds_ = 0;
    double update_seconds_ = 0;
    /// A level's coarse space: its aggregates or its C/F splitting (as the options' coarsening).
    /// Between a setup's coarsen() and prolongator_of() it also lends the classical strength,
    /// which prolongator_of() takes.
    struct Coarsening {
        Aggregates aggregates;
        CoarseSplitting splitting;
        Array<std::uint8_t> strong;  ///< classical: the strength coarsen() made, lent to prolongator_of
    };
    std::vector<Coarsening> coarsenings_;  ///< per level (empty: given P, coarsest)
    /// Makes level's coarse space from its matrix csr; returns the coarse size and sets rounds.
    index_type coarsen(const Csr<V>& csr, const LinearOperator<V>& op, Coarsening& out, int& rounds) const;
    /// The prolongator of a level from its coarse space (upper: its smoother's interval end);
    /// takes the strength coarsen() lent, else (an update) makes it again.
    Csr<V> prolongator_of(const Csr<V>& csr, const Array<V>& dinv, double upper, Coarsening& c) const;
    std::vector<CoarseLattice> lattices_;  ///< per given level: its coarse grid's lattice (or empty)
    /// R A P of level l (through its lattice when it has one).
    Csr<V> galerkin(std::size_t l, const Csr<V>& r, const Csr<V>& a, const Csr<V>& p) const;
    /// R A P of level 0 from fine_in_double_ (float hierarchies only).
    Csr<V> galerkin_from_double(const Csr<V>& r, const Csr<V>& p) const;
    /// The setup's steps, in setup_phases_ order (report.json setup_phases).
    static constexpr std::array<const char*, 6> setup_phase_names{
        "aggregation", "eigenvalue_estimate", "prolongator", "galerkin_product",
        "level_operators", "coarse_inverse"};
    std::array<double, 6> setup_phases_{};  ///< seconds of each step, summed over the levels
    mutable PhaseTimers* timers_ = nullptr;  ///< set while time_cycle runs
};

}  // namespace gpufem
