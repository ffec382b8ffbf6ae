// The merged solver kernels on the host: each a loop over the rows (OpenMP, dots accumulated
// in double), then the scalar step of merged_scalars.hpp. The readable reference for
// cuda/merged_kernels.cu.
#include "solver/krylov/merged_kernels.hpp"

namespace gpufem {

namespace kernels::cpu {
namespace {

using index = long long;

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
        double sum = 0;
        const V* xk = x[k];
        const V* yk = y[k];
#pragma omp parallel for reduction(+ : sum) schedule(static)
        for (index i = 0; i < static_cast<index>(n); ++i)
            sum += static_cast<double>(xk[i]) * static_cast<double>(yk[i]);
        result[k] = sum;
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
    double rz = 0, rr = 0, bb = 0;
#pragma omp parallel for reduction(+ : rz, rr, bb) schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) {
        const V ri = b[i] - r[i];
        const V zi = precondition(dinv, i, ri);
        r[i] = ri;
        p[i] = zi;
        rz += double(ri) * double(zi);
        rr += double(ri) * double(ri);
        bb += double(b[i]) * double(b[i]);
    }
    merged::start(*ws.state, rr, rz, bb, ws.history);
}

template <typename V>
void cg_alpha(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* p, const V* q)
{
    if (!running(ws)) return;
    double pq = 0;
#pragma omp parallel for reduction(+ : pq) schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) pq += double(p[i]) * double(q[i]);
    merged::cg_alpha(*ws.state, pq);
}

template <typename V>
void cg_update_xr(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* p,
                  const V* q, const V* dinv, V* x, V* r)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
    double rz = 0, rr = 0;
#pragma omp parallel for reduction(+ : rz, rr) schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) {
        x[i] += alpha * p[i];
        const V ri = r[i] - alpha * q[i];
        r[i] = ri;
        rz += double(ri) * double(precondition(dinv, i, ri));
        rr += double(ri) * double(ri);
    }
    merged::cg_finish(*ws.state, rz, rr, ws.history);
}

template <typename V>
void cg_update_xr_residual(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* p,
                           const V* q, V* x, V* r)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
    double rr = 0;
#pragma omp parallel for reduction(+ : rr) schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) {
        x[i] += alpha * p[i];
        const V ri = r[i] - alpha * q[i];
        r[i] = ri;
        rr += double(ri) * double(ri);
    }
    merged::finish_iteration(*ws.state, rr, ws.history);
}

template <typename V>
void cg_rho(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* r, const V* z,
            bool start)
{
    if (!running(ws)) return;
    double rz = 0;
#pragma omp parallel for reduction(+ : rz) schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) rz += double(r[i]) * double(z[i]);
    merged::cg_beta(*ws.state, rz, start);
}

template <typename V>
void cg_update_p(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* r,
                 const V* dinv, V* p)
{
    if (!running(ws)) return;
    const V beta = static_cast<V>(ws.state->beta);
#pragma omp parallel for schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) p[i] = precondition(dinv, i, r[i]) + beta * p[i];
}

template <typename V>
void bicgstab_start(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* b, V* r,
                    V* rhat, V* p, V* v)
{
    double rr = 0, bb = 0;
#pragma omp parallel for reduction(+ : rr, bb) schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) {
        const V ri = b[i] - r[i];
        r[i] = ri;
        rhat[i] = ri;
        p[i] = 0;
        v[i] = 0;
        rr += double(ri) * double(ri);
        bb += double(b[i]) * double(b[i]);
    }
    merged::start(*ws.state, rr, rr, bb, ws.history);
}

template <typename V>
void bicgstab_update_p(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* r,
                       const V* v, const V* dinv, V* p, V* phat)
{
    if (!running(ws)) return;
    const V beta = static_cast<V>(ws.state->beta);
    const V omega = static_cast<V>(ws.state->omega);
#pragma omp parallel for schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) {
        const V pi = r[i] + beta * (p[i] - omega * v[i]);
        p[i] = pi;
        if (dinv) phat[i] = dinv[i] * pi;
    }
}

template <typename V>
void bicgstab_alpha(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* rhat,
                    const V* v)
{
    if (!running(ws)) return;
    double rv = 0;
#pragma omp parallel for reduction(+ : rv) schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) rv += double(rhat[i]) * double(v[i]);
    merged::bicgstab_alpha(*ws.state, rv);
}

template <typename V>
void bicgstab_update_s(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* r,
                       const V* v, const V* dinv, V* s, V* shat)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
#pragma omp parallel for schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) {
        const V si = r[i] - alpha * v[i];
        s[i] = si;
        if (dinv) shat[i] = dinv[i] * si;
    }
}

template <typename V>
void bicgstab_omega(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* s,
                    const V* t)
{
    if (!running(ws)) return;
    double ts = 0, tt = 0, ss = 0;
#pragma omp parallel for reduction(+ : ts, tt, ss) schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) {
        ts += double(t[i]) * double(s[i]);
        tt += double(t[i]) * double(t[i]);
        ss += double(s[i]) * double(s[i]);
    }
    merged::bicgstab_omega(*ws.state, ts, tt, ss);
}

template <typename V>
void bicgstab_update_xr(const Executor&, const MergedWorkspace& ws, std::size_t n, const V* rhat,
                        const V* phat, const V* shat, const V* s, const V* t, V* x, V* r)
{
    if (!running(ws)) return;
    const V alpha = static_cast<V>(ws.state->alpha);
    const V omega = static_cast<V>(ws.state->omega);
    double rhat_r = 0, rr = 0;
#pragma omp parallel for reduction(+ : rhat_r, rr) schedule(static)
    for (index i = 0; i < static_cast<index>(n); ++i) {
        x[i] += alpha * phat[i] + omega * shat[i];
        const V ri = s[i] - omega * t[i];
        r[i] = ri;
        rhat_r += double(rhat[i]) * double(ri);
        rr += double(ri) * double(ri);
    }
    merged::bicgstab_finish(*ws.state, rhat_r, rr, ws.history);
}

GPUFEM_INSTANTIATE_KERNELS(GPUFEM_MERGED_KERNELS)

}  // namespace kernels::cpu
}  // namespace gpufem
