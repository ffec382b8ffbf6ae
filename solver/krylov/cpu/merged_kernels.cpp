// The merged solver kernels on the host: each one pass over the rows in fixed chunks handed
// out on demand (linalg/cpu/chunked_loops.hpp: dots accumulated in double, per chunk, added in
// chunk order, so the results do not depend on the thread count), then the scalar step of
// merged_scalars.hpp (or, split, the totals left for the all-reduce: finish_reduction). The readable reference for cuda/merged_kernels.cu.
#include "solver/krylov/merged_kernels.hpp"

#include "linalg/cpu/chunked_loops.hpp"

namespace gpufem {

namespace kernels::cpu {
namespace {

using index = long long;
using Sums1 = std::array<double, 1>;
using Sums2 = std::array<double, 2>;
using Sums3 = std::array<double, 3>;

bool running(const MergedWorkspace& ws) { return ws.state->status == state_running; }

/// z_i: the preconditioned residual entry.
template <typename V>
V precondition(const V* dinv, index i, V r)
{
    return dinv ? dinv[i] * r : r;
}

}  // namespace

template <typename V>
void multi_dot(const Executor&, const MergedWorkspace&, std::size_t n, int count,
               const V* const* x, const V* const* y, double* result)
{
    for (int k = 0; k < count; ++k) {
        const V* xk = x[k];
        const V* yk = y[k];
        result[k] = chunked_sums<1>(static_cast<index>(n), [&](index i, Sums1& s) {
            s[0] += static_cast<double>(xk[i]) * static_cast<double>(yk[i]);
        })[0];
    }
}

template <typename V>
long long invert_diagonal(const Executor&, std::size_t n, const V* d, V* inverse)
{
    long long first_bad = -1;
    for (index i = 0; i < static_cast<index>(n); ++i) {
        if (d[i] == V(0) || !merged::finite(static_cast<double>(d[i]))) {
            first_bad = i;
            break;
        }
        inverse[i] = V(1) / d[i];
    }
    return first_bad;
}

template <typename V>
void cg_start(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* b, const V* dinv,
              V* r, V* p)
{
    const Sums3 s = chunked_sums<3>(static_cast<index>(n), [&](index i, Sums3& acc) {
        const V ri = b[i] - r[i];
        const V zi = precondition(dinv, i, ri);
        r[i] = ri;
        p[i] = zi;
        acc[0] += double(ri) * double(zi);
        acc[1] += double(ri) * double(ri);
        acc[2] += double(b[i]) * double(b[i]);
    });
    finish_reduction(ws, ScalarStep::cg_start, s.data());
}

template <typename V>
void cg_alpha(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* p, const V* q)
{
    if (!running(ws)) return;
    const Sums1 pq = chunked_sums<1>(static_cast<index>(n), [&](index i, Sums1& acc) {
        acc[0] += double(p[i]) * double(q[i]);
    });
    finish_reduction(ws, ScalarStep::cg_alpha, pq.data());
}

template <typename V>
void cg_update_xr(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* p,
                  const V* q, const V* dinv, V* x, V* r)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
    const Sums2 s = chunked_sums<2>(static_cast<index>(n), [&](index i, Sums2& acc) {
        if (x) x[i] += alpha * p[i];
        const V ri = r[i] - alpha * q[i];
        r[i] = ri;
        acc[0] += double(ri) * double(precondition(dinv, i, ri));
        acc[1] += double(ri) * double(ri);
    });
    finish_reduction(ws, ScalarStep::cg_finish, s.data());
}

template <typename V>
void cg_update_partials(const Executor&, const MergedWorkspace& ws, std::size_t n, std::size_t count,
                        const double* partials, const V* p, const V* q, const V* dinv, V* x, V* r, V* z)
{
    if (!running(ws)) return;
    const Sums1 pq = chunked_sums<1>(static_cast<index>(count), [&](index i, Sums1& acc) { acc[0] += partials[i]; });
    Sums3 s{pq[0], 0.0, 0.0};
    if (merged::cg_alpha_taken(ws.state->rho, pq[0])) {
        const V alpha = static_cast<V>(ws.state->rho / pq[0]);
        const Sums2 rz_rr = chunked_sums<2>(static_cast<index>(n), [&](index i, Sums2& acc) {
            x[i] += alpha * p[i];
            const V ri = r[i] - alpha * q[i];
            r[i] = ri;
            const V zi = precondition(dinv, i, ri);
            if (z) z[i] = zi;
            acc[0] += double(ri) * double(zi);
            acc[1] += double(ri) * double(ri);
        });
        s[1] = rz_rr[0];
        s[2] = rz_rr[1];
    }
    finish_reduction(ws, ScalarStep::cg_alpha_finish, s.data());
}

template <typename V>
void cg_update_xr_residual(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* p,
                           const V* q, V* x, V* r)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
    const Sums1 rr = chunked_sums<1>(static_cast<index>(n), [&](index i, Sums1& acc) {
        x[i] += alpha * p[i];
        const V ri = r[i] - alpha * q[i];
        r[i] = ri;
        acc[0] += double(ri) * double(ri);
    });
    finish_reduction(ws, ScalarStep::residual, rr.data());
}

template <typename V>
void cg_rho(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* r, const V* z,
            bool start)
{
    if (!running(ws)) return;
    const Sums1 rz = chunked_sums<1>(static_cast<index>(n), [&](index i, Sums1& acc) {
        acc[0] += double(r[i]) * double(z[i]);
    });
    finish_reduction(ws, start ? ScalarStep::cg_beta_start : ScalarStep::cg_beta, rz.data());
}

template <typename V>
void cg_update_p(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* r,
                 const V* dinv, V* p)
{
    if (!running(ws)) return;
    const V beta = static_cast<V>(ws.state->beta);
    chunked_for(static_cast<index>(n),
                [&](index i) { p[i] = precondition(dinv, i, r[i]) + beta * p[i]; });
}

template <typename V>
void cg1_start(const Executor&, std::size_t n, const V* b, const V* dinv, V* r, V* z)
{
    chunked_for(static_cast<index>(n), [&](index i) {
        const V ri = b[i] - r[i];
        r[i] = ri;
        if (dinv) z[i] = dinv[i] * ri;
    });
}

template <typename V>
void cg1_dots(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* b, const V* r, const V* z,
              const V* s)
{
    if (!b && !running(ws)) return;
    using Sums4 = std::array<double, 4>;
    const Sums4 sums = chunked_sums<4>(static_cast<index>(n), [&](index i, Sums4& acc) {
        const double ri = r[i], zi = z ? z[i] : r[i];
        acc[0] += ri * ri;
        acc[1] += ri * zi;
        acc[2] += zi * double(s[i]);
        if (b) acc[3] += double(b[i]) * double(b[i]);
    });
    finish_reduction(ws, b ? ScalarStep::cg1_start : ScalarStep::cg1_step, sums.data());
}

template <typename V>
void cg1_update(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* z_in, const V* dinv,
                const V* s, V* p, V* q, V* x, V* r, V* z_out)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha), beta = static_cast<V>(ws.state->beta);
    chunked_for(static_cast<index>(n), [&](index i) {
        const V zi = z_in ? z_in[i] : precondition(dinv, i, r[i]);
        const V pi = zi + beta * p[i];
        const V qi = s[i] + beta * q[i];
        p[i] = pi;
        q[i] = qi;
        x[i] += alpha * pi;
        const V ri = r[i] - alpha * qi;
        r[i] = ri;
        if (z_out) z_out[i] = dinv[i] * ri;
    });
}

template <typename V>
void bicgstab_start(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* b, V* r,
                    V* rhat, V* p, V* v)
{
    const Sums2 s = chunked_sums<2>(static_cast<index>(n), [&](index i, Sums2& acc) {
        const V ri = b[i] - r[i];
        r[i] = ri;
        rhat[i] = ri;
        p[i] = 0;
        v[i] = 0;
        acc[0] += double(ri) * double(ri);
        acc[1] += double(b[i]) * double(b[i]);
    });
    finish_reduction(ws, ScalarStep::bicgstab_start, s.data());
}

template <typename V>
void bicgstab_update_p(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* r,
                       const V* v, const V* dinv, V* p, V* phat)
{
    if (!running(ws)) return;
    const V beta = static_cast<V>(ws.state->beta);
    const V omega = static_cast<V>(ws.state->omega);
    chunked_for(static_cast<index>(n), [&](index i) {
        const V pi = r[i] + beta * (p[i] - omega * v[i]);
        p[i] = pi;
        if (dinv) phat[i] = dinv[i] * pi;
    });
}

template <typename V>
void bicgstab_alpha(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* rhat,
                    const V* v)
{
    if (!running(ws)) return;
    const Sums1 rv = chunked_sums<1>(static_cast<index>(n), [&](index i, Sums1& acc) {
        acc[0] += double(rhat[i]) * double(v[i]);
    });
    finish_reduction(ws, ScalarStep::bicgstab_alpha, rv.data());
}

template <typename V>
void bicgstab_update_s(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* r,
                       const V* v, const V* dinv, V* s, V* shat)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
    chunked_for(static_cast<index>(n), [&](index i) {
        const V si = r[i] - alpha * v[i];
        s[i] = si;
        if (dinv) shat[i] = dinv[i] * si;
    });
}

template <typename V>
void bicgstab_omega(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* s,
                    const V* t)
{
    if (!running(ws)) return;
    const Sums3 d = chunked_sums<3>(static_cast<index>(n), [&](index i, Sums3& acc) {
        acc[0] += double(t[i]) * double(s[i]);
        acc[1] += double(t[i]) * double(t[i]);
        acc[2] += double(s[i]) * double(s[i]);
    });
    finish_reduction(ws, ScalarStep::bicgstab_omega, d.data());
}

template <typename V>
void bicgstab_update_xr(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* rhat,
                        const V* phat, const V* shat, const V* s, const V* t, V* x, V* r)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
    const V omega = static_cast<V>(ws.state->omega);
    const Sums2 d = chunked_sums<2>(static_cast<index>(n), [&](index i, Sums2& acc) {
        x[i] += alpha * phat[i] + omega * shat[i];
        const V ri = s[i] - omega * t[i];
        r[i] = ri;
        acc[0] += double(rhat[i]) * double(ri);
        acc[1] += double(ri) * double(ri);
    });
    finish_reduction(ws, ScalarStep::bicgstab_finish, d.data());
}

GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(multi_dot, invert_diagonal, cg_start, cg1_start, cg1_dots, cg1_update, cg_alpha, cg_update_xr, cg_update_xr_residual, cg_rho, cg_update_p,
                                  cg_update_partials,
                                  bicgstab_start, bicgstab_update_p, bicgstab_alpha, bicgstab_update_s, bicgstab_omega,
                                  bicgstab_update_xr)

void cg_alpha_partials(const Executor&, const MergedWorkspace& ws, std::size_t count, const double* partials)
{
    if (!running(ws)) return;
    const Sums1 pq = chunked_sums<1>(static_cast<index>(count), [&](index i, Sums1& acc) { acc[0] += partials[i]; });
    finish_reduction(ws, ScalarStep::cg_alpha, pq.data());
}

void merged_init(const Executor&, const MergedWorkspace& ws, double tolerance, int max_iterations)
{
    *ws.state = KrylovScalars{};
    ws.state->tolerance = tolerance;
    ws.state->max_iterations = max_iterations;
    *ws.counter = 0;
}

void scalar_step(const Executor&, const MergedWorkspace& ws, ScalarStep step)
{
    if (!starts_solve(step) && !running(ws)) return;
    step_and_record(ws, step, ws.sums);
}

}  // namespace kernels::cpu
}  // namespace gpufem
