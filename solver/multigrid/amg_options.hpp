#pragma once
// The settings of smoothed-aggregation AMG (solver.amg in the case file), typed.
#include <array>
#include <string>

#include "linalg/named_enum.hpp"

namespace gpufem {

/// The smoother on every level but the coarsest.
enum class AmgSmoother {
    chebyshev,  ///< Chebyshev polynomial in D^-1 A over [1.1 lambda_max / 10, 1.1 lambda_max]
    jacobi,     ///< damped Jacobi, weight 4 / (3 lambda_max)
};
/// Their names, as in the case file.
inline constexpr std::array<EnumName<AmgSmoother>, 2> amg_smoother_names{
    {{AmgSmoother::chebyshev, "chebyshev"}, {AmgSmoother::jacobi, "jacobi"}}};

/// The cycle: how often each level visits the next coarser one.
enum class AmgCycle {
    v,  ///< once (V-cycle)
    w,  ///< twice (W-cycle): more work on the coarse levels, fewer iterations
};
/// Their names, as in the case file.
inline constexpr std::array<EnumName<AmgCycle>, 2> amg_cycle_names{{{AmgCycle::v, "v"}, {AmgCycle::w, "w"}}};

/// How far apart the aggregates' roots are: the independent set's distance over the strong
/// graph. Each aggregate is a root and the nodes that reach it first.
enum class AmgAggregation {
    distance2,  ///< roots at least 3 strong hops apart: large aggregates (about 10 nodes on
                ///< 2D triangles, 13 on Kuhn tetrahedra, 50 on hexahedra), cheap levels
    distance1,  ///< roots at least 2 hops apart: a root and its unclaimed neighbours (about 4
                ///< on triangles): more levels and fewer iterations; too dense in 3D
};
/// Their names, as in the case file.
inline constexpr std::array<EnumName<AmgAggregation>, 2> amg_aggregation_names{
    {{AmgAggregation::distance2, "distance2"}, {AmgAggregation::distance1, "distance1"}}};

/// How a level's coarse space is made.
enum class AmgCoarsening {
    aggregation,  ///< smoothed aggregation: the nodes grouped into aggregates, the constant per
                  ///< aggregate smoothed by one Jacobi step (cheap levels, many iterations)
    classical,    ///< C/F splitting (PMIS) and extended+i interpolation, as classical AMG
                  ///< (hypre's BoomerAMG): fewer iterations, denser coarse levels, set up on
                  ///< the host
};
/// Their names, as in the case file.
inline constexpr std::array<EnumName<AmgCoarsening>, 2> amg_coarsening_names{
    {{AmgCoarsening::aggregation, "aggregation"}, {AmgCoarsening::classical, "classical"}}};

/// The matrix the tentative prolongator is smoothed with (one Jacobi step).
enum class AmgProlongator {
    full,      ///< A itself: each row of P reaches every neighbour's aggregate
    filtered,  ///< A's strong entries, the weak ones added to the diagonal (row sums kept):
               ///< P's rows reach only strong neighbours' aggregates, so a higher
               ///< strength_threshold thins the coarse operators instead of filling them
};
/// Their names, as in the case file.
inline constexpr std::array<EnumName<AmgProlongator>, 2> amg_prolongator_names{
    {{AmgProlongator::full, "full"}, {AmgProlongator::filtered, "filtered"}}};

/// The precision the hierarchy is stored and cycled in.
enum class AmgPrecision {
    same,    ///< the system's (the case's precision)
    single,  ///< float inside a double solver: the levels, transfers and smoothers in float, the
             ///< fine level a float copy of the system's matrix (half the bytes a cycle moves)
};
/// Their names, as in the case file.
inline constexpr std::array<EnumName<AmgPrecision>, 2> amg_precision_names{
    {{AmgPrecision::same, "double"}, {AmgPrecision::single, "float"}}};

/// p-multigrid's first coarse level on a `pa` operator (degrees 4, 6 and 8).
enum class AmgPaCoarse {
    factors,    ///< applied by sum factorisation from the operator's own quadrature-point
                ///< factors, the coarse Dirichlet nodes held at zero: no setup beyond its diagonal
    assembled,  ///< the element Galerkin product, assembled in CSR
};
/// Their names, as in the case file.
inline constexpr std::array<EnumName<AmgPaCoarse>, 2> amg_pa_coarse_names{
    {{AmgPaCoarse::factors, "factors"}, {AmgPaCoarse::assembled, "assembled"}}};

/// The options of the AMG hierarchy and its cycle.
struct AmgOptions {
    /// Strength of connection: a_ij is strong when |a_ij| > theta sqrt(|a_ii a_jj|). 0.02
    /// keeps every coupling of Q1 hexahedra (the weakest, corners, is 1/32 of the diagonal)
    /// and drops the weak positive couplings of high-order elements.
    double strength_threshold = 0.02;
    AmgSmoother smoother = AmgSmoother::chebyshev;
    /// Chebyshev: the polynomial degree (SpMVs per smoothing); jacobi: sweeps.
    int degree = 2;
    /// Levels of at most this many rows are solved directly (dense Cholesky, on the host at
    /// setup; the apply is a dense matrix-vector product on the device).
    int coarse_size = 500;
    /// At most this many levels (the last is solved directly or, when too large for that,
    /// smoothed).
    int max_levels = 25;
    AmgCycle cycle = AmgCycle::v;
    AmgCoarsening coarsening = AmgCoarsening::aggregation;
    /// classical: a_ij (of the opposite sign to a_ii) is strong when |a_ij| >= theta times
    /// the row's largest such coupling.
    double classical_threshold = 0.25;
    /// classical: at most this many entries per interpolation row (0: all).
    int interpolation_entries = 4;
    AmgAggregation aggregation = AmgAggregation::distance2;
    AmgProlongator prolongator = AmgProlongator::full;
    /// Across ranks: a coarse level of at most this many rows in all, and every level below
    /// it, is gathered onto every rank and cycled there as on one process (hypre's redundant
    /// coarse solve, AmgX's consolidation); the levels above it stay distributed.
    int gather_rows = 200000;
    /// double: as the system; float: the whole cycle in single precision inside the double
    /// Krylov method (amg and pmg on one process, from an assembled matrix; pmg also from pa or lma).
    AmgPrecision precision = AmgPrecision::same;
    /// Lanczos (Jacobi-preconditioned CG) steps of the lambda_max estimate on each level.
    int eigen_steps = 10;
    /// pmg on pa: how its first coarse level is made.
    AmgPaCoarse pa_coarse = AmgPaCoarse::factors;
    /// pmg on triangles and tetrahedra of degree 3: through degree 2 (3 -> 2 -> 1) instead of
    /// straight to degree 1.
    bool through_degree_two = false;
};

}  // namespace gpufem
