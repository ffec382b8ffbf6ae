#pragma once
// LinearOperator: the one interface every storage format (and later matrix-free operators)
// implements, so that solvers never see the format.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "linalg/array.hpp"
#include "linalg/csr.hpp"
#include "linalg/types.hpp"

namespace gpufem {

template <typename V>
struct Bdia;

/// y = alpha A x + beta y for some operator A living on one executor.
template <typename V>
class LinearOperator {
public:
    virtual ~LinearOperator() = default;

    virtual index_type rows() const = 0;
    virtual index_type cols() const = 0;
    virtual const ExecPtr& executor() const = 0;
    /// Format name as in the case file ("csr", "cusparse", ...).
    virtual std::string format() const = 0;
    /// Bytes the operator keeps in memory.
    virtual std::size_t bytes_stored() const = 0;
    /// Minimal bytes one y = A x must move (for effective bandwidth).
    virtual std::size_t spmv_min_bytes() const = 0;
    /// The format's parameters as chosen (e.g. "coop=4 repeat=2 block=256"), for logs/reports.
    virtual std::string parameters() const { return {}; }
    /// True when the next apply only queues work on the executor's stream (no host
    /// synchronisation, no allocation, the same launches as every later apply), so that it can
    /// be captured in a CUDA graph. False e.g. while a run-time tuner is still measuring.
    virtual bool graph_capturable() const { return true; }

    /// The CSR matrix the operator applies, when it keeps one in gpufem's CSR arrays in its own
    /// numbering (csr, csr-scalar, cusparse); nullptr for every other format. Lets a
    /// preconditioner built from the matrix (AMG) read it without a second copy.
    virtual const Csr<V>* stored_csr() const { return nullptr; }
    /// The same for a matrix it keeps with 64-bit row offsets (csr past 2^31 - 1 entries).
    virtual const WideCsr<V>* stored_wide_csr() const { return nullptr; }
    /// The bDIA bands the operator applies (format bdia), nullptr for every other format: for
    /// solvers whose kernels read the bands themselves (CG in one resident kernel).
    virtual const Bdia<V>* stored_bdia() const { return nullptr; }

    /// The diagonal a_ii (rows() values on executor()), for Jacobi preconditioning; empty when
    /// the operator was built without it (build_format and the LMA builder always attach it).
    const Array<V>& diagonal() const { return diagonal_; }
    /// Attaches the diagonal (in the operator's own numbering); builders call this.
    void set_diagonal(Array<V> diagonal)
    {
        if (diagonal.size() != static_cast<std::size_t>(rows()))
            throw std::invalid_argument("LinearOperator::set_diagonal: size does not match rows");
        diagonal_ = std::move(diagonal);
    }

    /// y = A x
    void apply(const Array<V>& x, Array<V>& y) const { apply(V(1), x, V(0), y); }
    /// y = alpha A x + beta y (beta == 0 ignores y's contents, NaNs included)
    void apply(V alpha, const Array<V>& x, V beta, Array<V>& y) const
    {
        if (x.size() != static_cast<std::size_t>(cols()) ||
            y.size() != static_cast<std::size_t>(rows()))
            throw std::invalid_argument("LinearOperator::apply: vector size does not match");
        apply_impl(alpha, x, beta, y);
    }

    /// Blocks of rows apply_with_dot() sums over (0: the operator has no product fused with a
    /// dot, and a solver takes the dot on its own).
    virtual std::size_t dot_partials() const { return 0; }
    /// y = A x and, in the same pass, partials[k] = the sum of x_i y_i over the k-th block of
    /// rows, k < dot_partials(), in double on executor() and in a fixed order: a CG's product
    /// and its p.Ap without reading p and q again. Square operators that offer it only.
    void apply_with_dot(const Array<V>& x, Array<V>& y, double* partials) const
    {
        if (dot_partials() == 0)
            throw std::logic_error("LinearOperator::apply_with_dot: format '" + format() +
                                   "' has no product fused with a dot");
        if (x.size() != static_cast<std::size_t>(cols()) || y.size() != static_cast<std::size_t>(rows()) ||
            rows() != cols())
            throw std::invalid_argument("LinearOperator::apply_with_dot: vector size does not match");
        apply_with_dot_impl(x, y, partials);
    }
    /// CG's direction fused with its product, for formats with dot_partials() > 0: with b =
    /// *beta (double, on executor(), read when the product runs, so that a solver can queue it
    /// before beta is known), p = z + b p and q = A z + b q (A p, when q held A p_old), and
    /// partials as apply_with_dot() of p.q. b == 0 ignores the contents of p and q. z, p and q
    /// are distinct.
    void apply_cg_direction(const Array<V>& z, const double* beta, Array<V>& p, Array<V>& q, double* partials) const
    {
        if (dot_partials() == 0)
            throw std::logic_error("LinearOperator::apply_cg_direction: format '" + format() +
                                   "' has no product fused with a dot");
        if (z.size() != static_cast<std::size_t>(cols()) || p.size() != z.size() || q.size() != z.size() ||
            rows() != cols())
            throw std::invalid_argument("LinearOperator::apply_cg_direction: vector size does not match");
        apply_cg_direction_impl(z, beta, p, q, partials);
    }

protected:
    virtual void apply_impl(V alpha, const Array<V>& x, V beta, Array<V>& y) const = 0;
    /// See apply_with_dot(); called only when dot_partials() > 0, so a format that reports
    /// partials must override it (the default refuses rather than leave y and partials unset).
    virtual void apply_with_dot_impl(const Array<V>&, Array<V>&, double*) const
    {
        throw std::logic_error("LinearOperator::apply_with_dot: format '" + format() +
                               "' reports dot partials but has no fused product");
    }
    /// See apply_cg_direction(); like apply_with_dot_impl, for formats that report partials.
    virtual void apply_cg_direction_impl(const Array<V>&, const double*, Array<V>&, Array<V>&, double*) const
    {
        throw std::logic_error("LinearOperator::apply_cg_direction: format '" + format() +
                               "' reports dot partials but has no fused direction");
    }

    Array<V> diagonal_;  ///< see diagonal()
};

}  // namespace gpufem
