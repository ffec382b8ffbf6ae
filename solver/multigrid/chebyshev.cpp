#include "solver/multigrid/chebyshev.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "linalg/blas1.hpp"
#include "solver/krylov/cg_product.hpp"
#include "solver/krylov/merged_kernels.hpp"
#include "solver/krylov/merged_workspace.hpp"
#include "solver/multigrid/amg_kernels.hpp"

namespace gpufem {

double tridiagonal_lambda_max(const std::vector<double>& d, const std::vector<double>& e)
{
    const std::size_t n = d.size();
    if (n == 0) return 0;
    // Gershgorin bounds, then bisection: the number of eigenvalues below x is the number of
    // negative pivots of T - x I (Sturm sequence).
    double lo = d[0], hi = d[0];
    for (std::size_t i = 0; i < n; ++i) {
        const double radius = (i > 0 ? std::abs(e[i - 1]) : 0) + (i + 1 < n ? std::abs(e[i]) : 0);
        lo = std::min(lo, d[i] - radius);
        hi = std::max(hi, d[i] + radius);
    }
    const auto below = [&](double x) {
        std::size_t count = 0;
        double pivot = 1;
        for (std::size_t i = 0; i < n; ++i) {
            const double off = i > 0 ? e[i - 1] * e[i - 1] / pivot : 0;
            pivot = d[i] - x - off;
            if (pivot == 0) pivot = -1e-300;
            if (pivot < 0) ++count;
        }
        return count;
    };
    for (int it = 0; it < 200 && hi - lo > 1e-12 * std::max(std::abs(hi), 1e-300); ++it) {
        const double mid = 0.5 * (lo + hi);
        if (below(mid) >= n)
            hi = mid;  // every eigenvalue lies below mid
        else
            lo = mid;
    }
    return hi;
}

namespace {

/// Relative residual at which the Lanczos run stops early: the Krylov space then holds the
/// start vector's whole spectrum (a level of fewer rows than steps) and further steps would
/// only add rounding.
constexpr double lanczos_tolerance = 1e-14;

/// The Lanczos tridiagonal matrix of D^-1 A from CG's coefficients (alpha_k at [2k], beta_k
/// at [2k + 1]; not finite: not made), as far as they are whole: its largest eigenvalue, or 1
/// when the first step already failed.
double lanczos_lambda_max(const std::vector<double>& coefficients)
{
    std::vector<double> diag, off;
    const std::size_t steps = coefficients.size() / 2;
    for (std::size_t j = 0; j < steps; ++j) {
        const double alpha = coefficients[2 * j];
        if (!(alpha > 0) || !std::isfinite(alpha)) break;
        if (j == 0) {
            diag.push_back(1 / alpha);
            continue;
        }
        const double previous_alpha = coefficients[2 * j - 2], previous_beta = coefficients[2 * j - 1];
        if (!(previous_beta >= 0) || !std::isfinite(previous_beta)) break;
        diag.push_back(1 / alpha + previous_beta / previous_alpha);
        off.push_back(std::sqrt(previous_beta) / previous_alpha);
    }
    return diag.empty() ? 1 : tridiagonal_lambda_max(diag, off);
}

}  // namespace

template <typename V>
LambdaMaxEstimate<V>::LambdaMaxEstimate(const LinearOperator<V>& a, const Array<V>& dinv, int steps,
                                        const Communicator& comm)
{
    const ExecPtr& exec = a.executor();
    const Executor& e = *exec;
    const std::size_t n = static_cast<std::size_t>(a.rows());
    if ((n == 0 && !comm.reduces()) || steps < 1) return;  // (a rank without rows still joins the sums)
    // Jacobi-preconditioned CG from x = 0 on a fixed start vector b: the merged kernels keep
    // its scalars on the device and record alpha and beta as they make them.
    MergedBuffers buffers(exec, n, lanczos_tolerance, steps, comm.reduces());
    coefficients_ = Array<double>(exec, 2 * static_cast<std::size_t>(steps));
    fill(coefficients_, std::numeric_limits<double>::quiet_NaN());
    MergedWorkspace ws = buffers.workspace();
    ws.coefficients = coefficients_.data();
    const auto finish = [&](ScalarStep step) { finish_reduction_across(e, ws, comm, step); };
    Array<V> b(exec, n), r(exec, n), p(exec, n), q(exec, n);
    GPUFEM_DISPATCH(e, amg_start_vector(e, a.rows(), b.data()));  // fixed, made on the device
    fill(r, V(0));  // A x for x = 0 (x itself is not needed)
    GPUFEM_DISPATCH(e, cg_start(e, ws, n, b.data(), dinv.data(), r.data(), p.data()));
    finish(ScalarStep::cg_start);
    CgProduct<V> product(a, true);
    for (int j = 0; j < steps; ++j) {  // the kernels after a stop return at once
        product.apply(p, q);
        product.alpha(ws, p, q);
        finish(ScalarStep::cg_alpha);
        GPUFEM_DISPATCH(e, cg_update_xr(e, ws, n, p.data(), q.data(), dinv.data(), static_cast<V*>(nullptr), r.data()));
        finish(ScalarStep::cg_finish);
        GPUFEM_DISPATCH(e, cg_update_p(e, ws, n, r.data(), dinv.data(), p.data()));
    }
    // The work arrays go now: the pool frees them in stream order, after the kernels.
}

template <typename V>
double LambdaMaxEstimate<V>::lambda_max() const
{
    return coefficients_.empty() ? 1 : lanczos_lambda_max(coefficients_.to_host());
}

template <typename V>
PolynomialSmoother<V>::PolynomialSmoother(const LinearOperator<V>& a, const Array<V>& dinv,
                                          double upper, int degree, bool jacobi, double range)
    : a_(&a), dinv_(&dinv)
{
    if (degree < 1) throw std::invalid_argument("smoother degree must be at least 1");
    if (jacobi) {
        for (int k = 0; k < degree; ++k) {
            c_d_.push_back(0);
            c_r_.push_back(static_cast<V>(4.0 / (3.0 * upper)));
        }
        return;
    }
    const double lower = upper / range;
    const double theta = 0.5 * (upper + lower), delta = 0.5 * (upper - lower);
    const double sigma = theta / delta;
    double rho = 1 / sigma;
    c_d_.push_back(0);
    c_r_.push_back(static_cast<V>(1 / theta));
    for (int k = 1; k < degree; ++k) {
        const double rho_next = 1 / (2 * sigma - rho);
        c_d_.push_back(static_cast<V>(rho_next * rho));
        c_r_.push_back(static_cast<V>(2 * rho_next / delta));
        rho = rho_next;
    }
}

template <typename V>
void PolynomialSmoother<V>::smooth(const Array<V>& b, Array<V>& x, bool zero_guess, Array<V>& ax,
                                   Array<V>& d) const
{
    const Executor& exec = *a_->executor();
    const index_type n = a_->rows();
    for (std::size_t k = 0; k < c_d_.size(); ++k) {
        const V* ax_data = nullptr;
        if (k > 0 || !zero_guess) {
            a_->apply(x, ax);
            ax_data = ax.data();
        }
        GPUFEM_DISPATCH(exec, amg_chebyshev_step(exec, n, b.data(), ax_data, dinv_->data(), c_d_[k],
                                                 c_r_[k], d.data(), x.data()));
    }
}

template class LambdaMaxEstimate<float>;
template class LambdaMaxEstimate<double>;
template class PolynomialSmoother<float>;
template class PolynomialSmoother<double>;

}  // namespace gpufem
