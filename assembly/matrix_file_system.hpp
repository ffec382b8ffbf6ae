#pragma once
// An external linear system read from Matrix Market files (the case's `matrix` map): the
// matrix A and the right-hand side b, or b = A 1 when none is given (then the solution's
// error against 1 is reported). It stands where a discretisation stands in the pipeline, so
// every assembled format, solver, preconditioner, precision and benchmark works on it (the
// matrix-free lma needs a mesh); it has no mesh,
// its unknowns are the matrix's rows and its output is the solution as Matrix Market.
#include <filesystem>
#include <memory>
#include <vector>

#include "assembly/discretisation.hpp"

namespace gpufem {

/// A and b as read from the files, on the host, shared by the systems of every precision.
struct ExternalSystem {
    std::filesystem::path file;      ///< A's file
    std::filesystem::path rhs_file;  ///< b's file ("" = b = A 1)
    Csr<double> matrix;              ///< A on the host executor
    std::vector<double> rhs;         ///< b (A 1 when rhs_file is empty)
    double read_seconds = 0;         ///< reading both files (wall time)
};

/// Reads A (square, Matrix Market coordinate) and b (Matrix Market array or coordinate
/// vector of A's rows; absent: b = A 1). Throws MatrixMarketError naming the file and line
/// for a malformed file, std::invalid_argument for a non-square A or a b of the wrong size.
std::shared_ptr<const ExternalSystem> read_external_system(const std::filesystem::path& file,
                                                           const std::filesystem::path& rhs_file);

/// The external system as a discretisation in precision V.
template <typename V>
class ExternalSystemDiscretisation final : public Discretisation<V> {
public:
    explicit ExternalSystemDiscretisation(std::shared_ptr<const ExternalSystem> system);

    /// "external system A.mtx (n rows, nnz non-zeros)".
    std::string describe() const override;
    /// An empty mesh: the system has none.
    const Mesh& mesh() const override { return mesh_; }
    /// The matrix's rows (UnknownLocation::rows).
    const FunctionSpace& space() const override { return space_; }
    /// A and b in V on exec (both scaled by 2^scale_exponent: the solution is the same); initial
    /// guess 0; no Dirichlet rows (the file's system is taken
    /// as it is).
    using Discretisation<V>::assemble;
    LinearSystem<V> assemble(const ExecPtr& exec, CsrOffsets offsets) const override;
    /// Throws std::invalid_argument: a matrix file has no element matrices.
    DiscreteSystem<V> assemble_matrix_free(const ExecPtr& exec, const OperatorLevelEntry& level,
                                           const FormatOptions& options) const override;
    /// None: there is no mesh to coarsen in degree (pmg is amg here).
    std::vector<Csr<V>> pmg_interpolations(const ExecPtr& exec) const override;
    /// The field u; with b = A 1 also the error u - 1 and its norms (ErrorNorms: l2 the
    /// discrete 2-norm of u - 1, max_nodal its largest entry, l2_exact = ||1|| = sqrt(n)).
    SolutionOutput solution_output(const Array<V>& u) const override;

    /// The system as read.
    const ExternalSystem& system() const { return *system_; }
    /// The power of two A and b are scaled by in V (0 when A is inside V's safe band), and
    /// warnings for values outside V's range ("warnings", each a sentence).
    nlohmann::json report() const override;

private:
    std::shared_ptr<const ExternalSystem> system_;
    int scale_exponent_ = 0;              ///< A and b are assembled as 2^scale_exponent_ A, b
    std::vector<std::string> warnings_;   ///< values V cannot hold
    Mesh mesh_;
    FunctionSpace space_;
};

}  // namespace gpufem
