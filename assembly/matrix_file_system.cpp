#include "assembly/matrix_file_system.hpp"

#include "assembly/operator_levels.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "linalg/matrix_market.hpp"

namespace gpufem {

std::shared_ptr<const ExternalSystem> read_external_system(const std::filesystem::path& file,
                                                           const std::filesystem::path& rhs_file)
{
    const auto start = std::chrono::steady_clock::now();
    auto system = std::make_shared<ExternalSystem>();
    system->file = file;
    system->rhs_file = rhs_file;
    system->matrix = read_matrix_market(file);
    const Csr<double>& a = system->matrix;
    if (a.rows != a.cols)
        throw std::invalid_argument(fmt::format("{}: the matrix is {} x {}; a linear system needs a square one",
                                                file.string(), a.rows, a.cols));
    if (a.rows == 0) throw std::invalid_argument(file.string() + ": the matrix has no rows");
    if (rhs_file.empty()) {
        // b = A 1: the row sums, so that the exact solution is the vector of ones.
        const index_type* row_ptr = a.row_ptr.data();  // on the host executor
        const double* values = a.values.data();
        system->rhs.assign(static_cast<std::size_t>(a.rows), 0.0);
#pragma omp parallel for schedule(static)
        for (index_type i = 0; i < a.rows; ++i) {
            double sum = 0;
            for (index_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += values[k];
            system->rhs[i] = sum;
        }
    } else {
        system->rhs = read_matrix_market_vector(rhs_file);
        if (system->rhs.size() != static_cast<std::size_t>(a.rows))
            throw std::invalid_argument(fmt::format("{}: the right-hand side has {} entries; the matrix "
                                                    "{} has {} rows",
                                                    rhs_file.string(), system->rhs.size(),
                                                    file.filename().string(), a.rows));
    }
    system->read_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return system;
}

template <typename V>
ExternalSystemDiscretisation<V>::ExternalSystemDiscretisation(std::shared_ptr<const ExternalSystem> system)
    : system_(std::move(system)), space_(row_space(system_->matrix.rows))
{
    mesh_.source = "matrix file " + system_->file.string();
}

template <typename V>
std::string ExternalSystemDiscretisation<V>::describe() const
{
    return fmt::format("external system {} ({} rows, {} non-zeros)", system_->file.filename().string(),
                       system_->matrix.rows, system_->matrix.nnz());
}

template <typename V>
LinearSystem<V> ExternalSystemDiscretisation<V>::assemble(const ExecPtr& exec, CsrOffsets offsets) const
{
    const auto start = std::chrono::steady_clock::now();
    const Csr<double>& a = system_->matrix;
    LinearSystem<V> out;
    out.matrix.rows = a.rows;
    out.matrix.cols = a.cols;
    out.matrix.row_ptr = a.row_ptr.clone_to(exec);
    out.matrix.col_idx = a.col_idx.clone_to(exec);
    if constexpr (std::is_same_v<V, double>) {
        out.matrix.values = a.values.clone_to(exec);
        out.rhs = Array<V>::from_host(exec, system_->rhs);
    } else {  // converted on the host, then uploaded
        const double* values = a.values.data();
        out.matrix.values = Array<V>::from_host(exec, std::vector<V>(values, values + a.nnz()));
        out.rhs = Array<V>::from_host(exec, std::vector<V>(system_->rhs.begin(), system_->rhs.end()));
    }
    out.initial_guess = Array<V>::from_host(exec, std::vector<V>(system_->rhs.size(), V(0)));
    exec->synchronize();
    // The upload is the whole "assembly" of a read system.
    out.times.values = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (offsets == CsrOffsets::wide) widen_offsets(out);
    return out;
}

template <typename V>
DiscreteSystem<V> ExternalSystemDiscretisation<V>::assemble_matrix_free(const ExecPtr&, const OperatorLevelEntry& level,
                                                                        const FormatOptions&) const
{
    throw std::invalid_argument("format " + level.name + " is matrix-free: it needs a mesh's element "
                                "matrices, and " + system_->file.filename().string() +
                                " is an assembled matrix; use an assembled format");
}

template <typename V>
std::vector<Csr<V>> ExternalSystemDiscretisation<V>::pmg_interpolations(const ExecPtr&) const
{
    return {};
}

template <typename V>
SolutionOutput ExternalSystemDiscretisation<V>::solution_output(const Array<V>& u) const
{
    SolutionOutput out;
    const std::vector<V> uh = u.to_host();
    out.point_fields.push_back({"u", HostVector<double>(uh.begin(), uh.end())});
    if (!system_->rhs_file.empty()) return out;
    ErrorNorms norms;
    double sum = 0, largest = 0;
    for (const V value : uh) {
        const double e = static_cast<double>(value) - 1.0;
        sum += e * e;
        largest = std::isnan(e) || std::isnan(largest) ? NAN : std::max(largest, std::abs(e));
    }
    norms.l2 = std::sqrt(sum);
    norms.max_nodal = largest;
    norms.l2_exact = std::sqrt(static_cast<double>(uh.size()));
    out.errors = norms;
    return out;
}

template class ExternalSystemDiscretisation<float>;
template class ExternalSystemDiscretisation<double>;

}  // namespace gpufem
