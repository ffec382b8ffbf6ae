#include "solver/run/anderson_mixing.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include "linalg/blas1.hpp"

namespace gpufem {
namespace {

/// Solves the small symmetric system m gamma = r (Gaussian elimination with partial
/// pivoting); a pivot below tiny leaves its unknown 0.
std::vector<double> solve_small(std::vector<std::vector<double>> m, std::vector<double> r, double tiny)
{
    const std::size_t n = r.size();
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t p = k;
        for (std::size_t i = k + 1; i < n; ++i)
            if (std::abs(m[i][k]) > std::abs(m[p][k])) p = i;
        std::swap(m[k], m[p]);
        std::swap(r[k], r[p]);
        if (!(std::abs(m[k][k]) > tiny)) {
            m[k].assign(n, 0.0);
            m[k][k] = 1.0;
            r[k] = 0.0;
            continue;
        }
        for (std::size_t i = k + 1; i < n; ++i) {
            const double factor = m[i][k] / m[k][k];
            for (std::size_t j = k; j < n; ++j) m[i][j] -= factor * m[k][j];
            r[i] -= factor * r[k];
        }
    }
    std::vector<double> x(n, 0.0);
    for (std::size_t k = n; k-- > 0;) {
        double sum = r[k];
        for (std::size_t j = k + 1; j < n; ++j) sum -= m[k][j] * x[j];
        x[k] = sum / m[k][k];
    }
    return x;
}

/// gamma minimising ||f - dF gamma|| from the normal equations dF^T dF gamma = dF^T f, scaled
/// to a unit diagonal first: the regularisation and the pivot threshold are then relative to
/// each step's own length, so a late step, orders of magnitude shorter than the first ones
/// but independent of them, keeps its weight (a regularisation relative to the trace would
/// damp or drop it).
std::vector<double> solve_normal_equations(std::vector<std::vector<double>> normal, std::vector<double> rhs)
{
    const std::size_t m = rhs.size();
    std::vector<double> scale(m, 0.0);  // 1 / ||df_i||, 0 for a zero step
    for (std::size_t i = 0; i < m; ++i) scale[i] = normal[i][i] > 0 ? 1.0 / std::sqrt(normal[i][i]) : 0.0;
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < m; ++j) normal[i][j] *= scale[i] * scale[j];
        rhs[i] *= scale[i];
        normal[i][i] += 1e-12;  // Tikhonov: dependent steps
    }
    std::vector<double> gamma = solve_small(normal, rhs, 1e-14);
    for (std::size_t i = 0; i < m; ++i) gamma[i] *= scale[i];
    return gamma;
}

}  // namespace

template <typename V>
Array<V> AndersonMixing<V>::next(const Array<V>& x, const Array<V>& g)
{
    const ExecPtr& exec = g.executor();
    Array<V> f = g.clone_to(exec);
    axpy(V(-1), x, f);  // f = g - x
    if (depth_ > 0 && !last_f_.empty()) {
        Array<V> df = f.clone_to(exec), dg = g.clone_to(exec);
        axpy(V(-1), last_f_, df);
        axpy(V(-1), last_g_, dg);
        df_.push_back(std::move(df));
        dg_.push_back(std::move(dg));
        if (static_cast<int>(df_.size()) > depth_) {
            df_.pop_front();
            dg_.pop_front();
        }
    }
    last_f_ = f.clone_to(exec);
    last_g_ = g.clone_to(exec);
    Array<V> out = g.clone_to(exec);
    if (df_.empty()) return out;
    const std::size_t m = df_.size();
    std::vector<std::vector<double>> normal(m, std::vector<double>(m, 0.0));
    std::vector<double> rhs(m, 0.0);
    // The normal equations' entries: this process's dot products, summed over the processes.
    std::vector<double> sums;
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = i; j < m; ++j) sums.push_back(dot(df_[i], df_[j]));
        sums.push_back(dot(df_[i], f));
    }
    if (comm_.reduces()) comm_.all_reduce_sum(*Executor::create_cpu(), sums.data(), static_cast<int>(sums.size()));
    std::size_t k = 0;
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = i; j < m; ++j) normal[i][j] = normal[j][i] = sums[k++];
        rhs[i] = sums[k++];
    }
    const std::vector<double> gamma = solve_normal_equations(std::move(normal), std::move(rhs));
    for (std::size_t i = 0; i < m; ++i) axpy(static_cast<V>(-gamma[i]), dg_[i], out);
    return out;
}

template class AndersonMixing<float>;
template class AndersonMixing<double>;

}  // namespace gpufem
