#pragma once
// Preconditioners as operators: z = M^-1 r on the system operator's executor. CG and BiCGSTAB
// (reference and merged) take any Preconditioner; a diagonal one (Jacobi) is folded into the
// merged kernels' fused updates, any other runs as its own apply between them. This is the
// interface multigrid plugs into; the preconditioners a case can name are registered in
// solver/preconditioners/preconditioner_registry.hpp.
#include <array>
#include <cstddef>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "linalg/array.hpp"
#include "linalg/library_blas.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// z = M^-1 r for some M approximating the operator A it was built for.
template <typename V>
class Preconditioner {
public:
    virtual ~Preconditioner() = default;

    /// Where r and z live (the operator's executor).
    virtual const ExecPtr& executor() const = 0;
    /// Rows of M (= rows of A).
    virtual index_type size() const = 0;
    /// The name as in the case file ("jacobi", ...), for logs and reports.
    virtual std::string name() const = 0;
    /// z = M^-1 r; r and z are distinct vectors of size() entries on executor().
    virtual void apply(const Array<V>& r, Array<V>& z) const = 0;
    /// Minimal bytes one apply moves (reads + writes), for the traffic model.
    virtual std::size_t apply_bytes() const = 0;
    /// When M^-1 is diagonal: its entries (size() values on executor()), which the merged
    /// solvers fold into their fused updates instead of calling apply; nullptr otherwise.
    virtual const Array<V>* inverse_diagonal() const { return nullptr; }
    /// True when apply only queues work on the executor's stream (no host synchronisation,
    /// no allocation), so that it can be captured in a CUDA graph.
    virtual bool graph_capturable() const { return true; }
    /// What report.json records of it beyond its name (setup time, levels, ...); empty for
    /// preconditioners with nothing to add.
    virtual nlohmann::json report() const { return nlohmann::json::object(); }
    /// Takes the new values of an operator with the same pattern and numbering (the next point
    /// of a coefficient sweep), a the new operator and matrix its entries in CSR (null when the
    /// system keeps none), keeping what depends on the pattern only; false when it cannot (it
    /// is then set up again). Throws when the update itself fails.
    virtual bool update(const LinearOperator<V>& /*a*/, const Csr<V>* /*matrix*/) { return false; }
    /// Wall time of the last update (0: none).
    virtual double update_seconds() const { return 0; }
};

/// Jacobi: M = diag(A), from the diagonal the operator carries (every built format does).
template <typename V>
class JacobiPreconditioner final : public Preconditioner<V> {
public:
    /// Inverts the operator's diagonal on its executor. Throws std::invalid_argument naming
    /// the first row whose diagonal is zero or not finite, or when the operator has none.
    explicit JacobiPreconditioner(const LinearOperator<V>& a);

    const ExecPtr& executor() const override { return exec_; }
    index_type size() const override { return static_cast<index_type>(inverse_.size()); }
    std::string name() const override { return "jacobi"; }
    /// z = dinv .* r, one library call (cublas<t>dgmm on CUDA).
    void apply(const Array<V>& r, Array<V>& z) const override;
    /// Reads dinv and r, writes z.
    std::size_t apply_bytes() const override { return 3 * inverse_.bytes(); }
    const Array<V>* inverse_diagonal() const override { return &inverse_; }
    /// Once the first apply has made the cuBLAS handle (creating it cannot be captured).
    bool graph_capturable() const override { return blas_ != nullptr; }

private:
    ExecPtr exec_;
    Array<V> inverse_;
    /// Made on the first apply: the merged solvers never call apply (they fold inverse_ into
    /// their kernels) and should not pay for a cuBLAS handle.
    mutable std::unique_ptr<LibraryBlas<V>> blas_;
};

/// What a preconditioner adds to an iteration's vector traffic (see
/// vector_bytes_per_iteration in krylov.hpp).
struct PreconditionerTraffic {
    bool present = false;         ///< a preconditioner is applied
    bool diagonal = false;        ///< fused into the merged kernels (reads dinv there)
    std::size_t apply_bytes = 0;  ///< bytes of one apply when it runs on its own
};

/// The traffic description of m (null: none).
template <typename V>
PreconditionerTraffic traffic_of(const Preconditioner<V>* m)
{
    if (!m) return {};
    return {true, m->inverse_diagonal() != nullptr, m->apply_bytes()};
}

}  // namespace gpufem
