#include "solver/multigrid/chebyshev.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "linalg/blas1.hpp"
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

template <typename V>
double estimate_lambda_max(const LinearOperator<V>& a, const Array<V>& dinv, int steps, const Communicator& comm)
{
    const ExecPtr& exec = a.executor();
    const std::size_t n = static_cast<std::size_t>(a.rows());
    if (n == 0 && !comm.reduces()) return 1;  // (a rank without rows still joins the sums)
    const auto global_dot = [&comm](const Array<V>& x, const Array<V>& y) {
        return sum_over_processes(comm, x.empty() ? 0.0 : static_cast<double>(dot(x, y)));
    };
    // gpufem's BLAS-1 kernels, not a library handle: creating a cuBLAS handle per level cost
    // more than the steps themselves.
    const Executor& e = *exec;
    const index_type rows = a.rows();
    Array<V> r(exec, n), z(exec, n), p(exec, n), q(exec, n), scratch(exec, n);
    GPUFEM_DISPATCH(e, amg_start_vector(e, rows, r.data()));  // fixed, made on the device
    const auto precondition = [&] {  // z = D^-1 r (the step kernel from a zero guess)
        GPUFEM_DISPATCH(e, amg_chebyshev_step(e, rows, r.data(), static_cast<const V*>(nullptr),
                                              dinv.data(), V(0), V(1), z.data(), scratch.data()));
    };
    precondition();
    p.copy_from(z);
    double rz = global_dot(r, z);
    const double rz0 = rz;
    std::vector<double> diag, off;
    double previous_alpha = 0, previous_beta = 0;
    for (int j = 0; j < steps && rz > 1e-28 * rz0 && std::isfinite(rz); ++j) {
        a.apply(p, q);
        const double pq = global_dot(p, q);
        if (!(pq > 0)) break;  // not positive definite along p: keep what we have
        const double alpha = rz / pq;
        diag.push_back(1 / alpha + (j > 0 ? previous_beta / previous_alpha : 0));
        if (j > 0) off.push_back(std::sqrt(previous_beta) / previous_alpha);
        axpy(static_cast<V>(-alpha), q, r);
        precondition();
        const double rz_new = global_dot(r, z);
        const double beta = rz_new / rz;
        xpay(z, static_cast<V>(beta), p);
        rz = rz_new;
        previous_alpha = alpha;
        previous_beta = beta;
    }
    if (diag.empty()) return 1;
    return tridiagonal_lambda_max(diag, off);
}

template <typename V>
PolynomialSmoother<V>::PolynomialSmoother(const LinearOperator<V>& a, const Array<V>& dinv,
                                          double upper, int degree, bool jacobi)
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
    const double lower = upper / chebyshev_range;
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

template double estimate_lambda_max(const LinearOperator<float>&, const Array<float>&, int, const Communicator&);
template double estimate_lambda_max(const LinearOperator<double>&, const Array<double>&, int, const Communicator&);
template class PolynomialSmoother<float>;
template class PolynomialSmoother<double>;

}  // namespace gpufem
