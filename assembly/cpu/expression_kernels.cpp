#include "assembly/expression_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "assembly/expression_cell_math.hpp"

namespace gpufem::kernels::cpu {
namespace {

/// The lowest index in [0, n) whose value fails check, or -1 (values already written).
template <typename V>
long long first_failure(ValueCheck check, const V* values, long long n)
{
    if (check == ValueCheck::none) return -1;
    for (long long k = 0; k < n; ++k)
        if (!passes(check, static_cast<double>(values[k]))) return k;
    return -1;
}

}  // namespace

template <typename V>
long long evaluate_at_quadrature_points(const Executor&, const ExprInstruction* program,
                                        const ElementData<double>& geometry, ValueCheck check,
                                        V* out)
{
    const ElementArgs<double> a = geometry.args();
    const int nq = a.num_points;
#pragma omp parallel for schedule(static)
    for (index_type e = 0; e < a.num_cells; ++e) {
        for (int q = 0; q < nq; ++q) {
            double p[3];
            quadrature_position(a, e, q, p);
            out[static_cast<long long>(e) * nq + q] =
                static_cast<V>(evaluate_program(program, p[0], p[1], p[2]));
        }
    }
    return first_failure(check, out, static_cast<long long>(a.num_cells) * nq);
}

template <typename V>
long long evaluate_at_points(const Executor&, const ExprInstruction* program, const V* coordinates,
                             const index_type* points, index_type n, ValueCheck check, V* out)
{
#pragma omp parallel for schedule(static)
    for (index_type k = 0; k < n; ++k) {
        const V* x = coordinates + 3 * static_cast<long long>(points ? points[k] : k);
        out[k] = static_cast<V>(evaluate_program(program, x[0], x[1], x[2]));
    }
    return first_failure(check, out, n);
}

template <typename V>
ErrorSums error_integrals(const Executor&, const ExprInstruction* program,
                          const ElementData<double>& geometry, const V* u)
{
    const ElementArgs<double> g = geometry.args();
    // Per-cell sums in parallel, then added in cell order: the result does not depend on the
    // number of threads.
    std::vector<double> cell_sums(3 * static_cast<std::size_t>(g.num_cells), 0.0);
    dispatch_dimension(g.dim, [&]<int DIM>() {
#pragma omp parallel for schedule(static)
        for (index_type e = 0; e < g.num_cells; ++e) {
            double sums[3] = {0, 0, 0};
            cell_error_sums<DIM>(program, g, e, u, sums);
            for (int k = 0; k < 3; ++k) cell_sums[3 * static_cast<std::size_t>(e) + k] = sums[k];
        }
    });
    ErrorSums total;
    for (index_type e = 0; e < g.num_cells; ++e) {
        total.l2 += cell_sums[3 * static_cast<std::size_t>(e)];
        total.h1 += cell_sums[3 * static_cast<std::size_t>(e) + 1];
        total.l2_exact += cell_sums[3 * static_cast<std::size_t>(e) + 2];
    }
    return total;
}

template <typename V>
double nodal_errors(const Executor&, const ExprInstruction* program, const double* coordinates,
                    index_type n, const V* u, double* exact, double* error)
{
#pragma omp parallel for schedule(static)
    for (index_type i = 0; i < n; ++i) {
        const double* x = coordinates + 3 * static_cast<long long>(i);
        exact[i] = evaluate_program(program, x[0], x[1], x[2]);
        error[i] = static_cast<double>(u[i]) - exact[i];
    }
    double max_error = 0;
    for (index_type i = 0; i < n; ++i) {
        const double a = std::abs(error[i]);
        if (std::isnan(a)) return a;
        max_error = std::max(max_error, a);
    }
    return max_error;
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(
    evaluate_at_quadrature_points, evaluate_at_points, error_integrals, nodal_errors)

}  // namespace gpufem::kernels::cpu
