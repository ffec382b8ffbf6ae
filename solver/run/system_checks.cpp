#include "solver/run/system_checks.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "linalg/blas1.hpp"

namespace gpufem {
namespace {

/// "row 12 (node 12)", "row 12 (cell 12)", "row 13 of the matrix file (1-based)".
std::string name_row(UnknownLocation location, long long row)
{
    switch (location) {
    case UnknownLocation::nodes: return fmt::format("row {} (node {} of the numbering)", row, row);
    case UnknownLocation::cells: return fmt::format("row {} (cell {})", row, row);
    case UnknownLocation::rows: break;
    }
    return fmt::format("row {} of the matrix file (1-based)", row + 1);
}

/// Why the discretisation's row may have a zero diagonal.
std::string zero_diagonal_cause(UnknownLocation location)
{
    return location == UnknownLocation::rows ? "the row is empty or its diagonal entry is zero"
                                             : "kappa is zero (or cancels) around it";
}

/// The first entry of the diagonal (in the operator's numbering) that is not finite, or
/// zero when zero_refused; -1 when none.
template <typename V>
long long first_bad_diagonal(const std::vector<V>& d, bool zero_refused)
{
    for (std::size_t i = 0; i < d.size(); ++i)
        if (!std::isfinite(d[i]) || (zero_refused && d[i] == V(0))) return static_cast<long long>(i);
    return -1;
}

/// check_system_diagonal's host pass, once the device's reductions found a diagonal entry to
/// report: names the row (in the discretisation's numbering), throws or warns.
template <typename V>
void report_bad_diagonal(const DiscreteSystem<V>& system, const Discretisation<V>& disc, const SolverSpec& solver)
{
    const LinearOperator<V>& op = *system.op.op;
    const std::vector<V> d = op.diagonal().to_host();
    const std::vector<index_type> order = system.op.permutation.to_host();  // new -> old
    const auto original = [&](long long i) { return order.empty() ? i : static_cast<long long>(order[i]); };
    const UnknownLocation where = disc.space().location;
    const PreconditionerEntry& pre = *solver.preconditioner;
    const bool zero_refused = solver.method == KrylovMethod::cg || !pre.identity;
    if (const long long i = first_bad_diagonal(d, zero_refused); i >= 0) {
        if (!std::isfinite(d[i]))
            throw std::runtime_error(fmt::format("data not finite: the matrix's diagonal is {} at {}",
                                                 static_cast<double>(d[i]), name_row(where, original(i))));
        throw std::runtime_error(fmt::format(
            "the matrix is singular or unusable for {}{}: {} has a zero diagonal ({}); {}",
            method_name(solver.method), pre.identity ? "" : " with preconditioner " + pre.name,
            name_row(where, original(i)), zero_diagonal_cause(where),
            where == UnknownLocation::rows ? "fix the matrix, or use solver.method: bicgstab with "
                                             "solver.preconditioner: none for an indefinite one"
                                           : "make kappa positive everywhere"));
    }
    double largest = 0;
    long long smallest = -1;
    for (std::size_t i = 0; i < d.size(); ++i) {
        const double a = std::abs(static_cast<double>(d[i]));
        largest = std::max(largest, a);
        if (smallest < 0 || a < std::abs(static_cast<double>(d[static_cast<std::size_t>(smallest)])))
            smallest = static_cast<long long>(i);
    }
    const double least = std::abs(static_cast<double>(d[static_cast<std::size_t>(smallest)]));
    if (least == 0)
        spdlog::warn("{} has a zero diagonal: the matrix may be singular (BiCGSTAB without a "
                     "preconditioner is tried)", name_row(where, original(smallest)));
    else if (least < std::numeric_limits<V>::epsilon() * largest)
        spdlog::warn("{} has a diagonal of {:.3e}, below {}'s unit roundoff times the largest ({:.3e}): "
                     "the system is nearly singular, and the solve may stagnate",
                     name_row(where, original(smallest)), least, sizeof(V) == 4 ? "float" : "double", largest);
}

}  // namespace

template <typename V>
void check_system_diagonal(const DiscreteSystem<V>& system, const Discretisation<V>& disc, const SolverSpec& solver)
{
    const LinearOperator<V>& op = *system.op.op;
    if (op.diagonal().size() != static_cast<std::size_t>(op.rows()) || op.rows() == 0) return;
    // Two reductions where the diagonal lives; it comes to the host only to name a row.
    const double largest = max_abs(op.diagonal()), least = min_abs(op.diagonal());
    if (std::isfinite(largest) && least > 0 && least >= std::numeric_limits<V>::epsilon() * largest) return;
    report_bad_diagonal(system, disc, solver);
}

template void check_system_diagonal(const DiscreteSystem<float>&, const Discretisation<float>&, const SolverSpec&);
template void check_system_diagonal(const DiscreteSystem<double>&, const Discretisation<double>&, const SolverSpec&);

}  // namespace gpufem
