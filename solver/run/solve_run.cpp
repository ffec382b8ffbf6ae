#include "solver/run/solve_run.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "linalg/blas1.hpp"
#include "linalg/rank_messages.hpp"

namespace gpufem {

double norm_over_processes(const Communicator& comm, double mine)
{
    if (comm.size() == 1) return mine;
    const std::vector<double> norms = gather_on_every_rank(comm, std::span<const double>(&mine, 1));
    const double largest = *std::max_element(norms.begin(), norms.end());
    double sum = 0;
    for (double n : norms) sum += largest > 0 ? (n / largest) * (n / largest) : 0.0;
    return largest * std::sqrt(sum);
}

template <typename V>
void check_true_residual(const LinearOperator<V>& a, const Array<V>& b, const Array<V>& x,
                         double tolerance, SolveResult& result, const Communicator& comm)
{
    if (!(result.rhs_norm > 0)) return;  // ||b||, as the solver computed it
    Array<V> r = b.clone_to(b.executor());
    a.apply(V(-1), x, V(1), r);
    // Scaled: the residual of tiny (or huge) data would underflow (overflow) as a sum of squares.
    const double norm = norm_over_processes(comm, scaled_nrm2(r));
    result.true_relative_residual = norm / result.rhs_norm;
    if (result.status == SolveStatus::converged &&
        !(result.true_relative_residual <= true_residual_slack * tolerance)) {
        result.status = SolveStatus::stagnated;
        result.message = fmt::format(
            "the recursive residual reached {:.3e} but the true residual ||b - A u|| / ||b|| of "
            "the solution is {:.3e}, more than {} x the tolerance {:.1e}: rounding in {} "
            "arithmetic keeps the solution from the tolerance; {}",
            result.relative_residual, result.true_relative_residual, true_residual_slack,
            tolerance, sizeof(V) == 4 ? "float" : "double",
            sizeof(V) == 4 ? "use precision: double or a looser tolerance"
                           : "loosen the tolerance (or improve the matrix's conditioning: a "
                             "preconditioner, or coefficients of less contrast)");
    }
}

template void check_true_residual(const LinearOperator<float>&, const Array<float>&, const Array<float>&, double,
                                  SolveResult&, const Communicator&);
template void check_true_residual(const LinearOperator<double>&, const Array<double>&, const Array<double>&, double,
                                  SolveResult&, const Communicator&);

}  // namespace gpufem
