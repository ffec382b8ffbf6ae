#include "assembly/matrix_file_system.hpp"

#include "assembly/operator_levels.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>
#include <stdexcept>

#include <fmt/format.h>

#include "linalg/matrix_market.hpp"
#include "linalg/scaled_norms.hpp"

namespace gpufem {

namespace {

/// Throws std::invalid_argument naming the first row of a (1-based, as in the file) that has
/// no entry or only zeros, or else the first column without a non-zero: the matrix is
/// singular, whatever the right-hand side.
void refuse_zero_rows(const Csr<double>& a, const std::filesystem::path& file)
{
    const index_type* row_ptr = a.row_ptr.data();  // on the host executor
    const index_type* col_idx = a.col_idx.data();
    const double* values = a.values.data();
    std::vector<char> column_used(static_cast<std::size_t>(a.cols), 0);
    for (std::size_t k = 0; k < a.nnz(); ++k)
        if (values[k] != 0.0) column_used[static_cast<std::size_t>(col_idx[k])] = 1;
    for (index_type i = 0; i < a.rows; ++i) {
        bool zero = true;
        for (index_type k = row_ptr[i]; k < row_ptr[i + 1] && zero; ++k) zero = values[k] == 0.0;
        if (zero)
            throw std::invalid_argument(fmt::format(
                "{}: row {} (1-based) {}: the matrix is singular", file.string(), i + 1,
                row_ptr[i] == row_ptr[i + 1] ? "has no entries" : "holds only zeros"));
    }
    const auto empty = std::find(column_used.begin(), column_used.end(), 0);
    if (empty != column_used.end())
        throw std::invalid_argument(fmt::format("{}: column {} (1-based) has no non-zero entry: the matrix is singular",
                                                file.string(), empty - column_used.begin() + 1));
}

/// The largest magnitude of the values, and the smallest non-zero one.
std::pair<double, double> value_range(const double* values, std::size_t n)
{
    double largest = 0, smallest = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < n; ++k) {
        const double a = std::abs(values[k]);
        largest = std::max(largest, a);
        if (a > 0) smallest = std::min(smallest, a);
    }
    return {largest, smallest};
}

/// The warning for data of range [smallest, largest] (scaled by 2^exponent) in precision V:
/// empty when V holds it, otherwise what becomes zero or infinite.
template <typename V>
std::string range_warning(const std::string& what, std::pair<double, double> range, int exponent)
{
    const double largest = std::ldexp(range.first, exponent), smallest = std::ldexp(range.second, exponent);
    const bool over = largest > static_cast<double>(std::numeric_limits<V>::max());
    const bool under = smallest < static_cast<double>(std::numeric_limits<V>::min());
    if (!over && !under) return {};
    return fmt::format("{} spans magnitudes {:.3e} .. {:.3e}{}, outside {}'s range ({:.1e} .. {:.1e}): "
                       "those values become {} in {}{}",
                       what, range.second, range.first,
                       exponent == 0 ? std::string() : fmt::format(" (solved scaled by 2^{})", exponent),
                       sizeof(V) == 4 ? "float" : "double", static_cast<double>(std::numeric_limits<V>::min()),
                       static_cast<double>(std::numeric_limits<V>::max()),
                       over ? (under ? "infinite or zero" : "infinite") : "zero (or lose digits)",
                       sizeof(V) == 4 ? "float" : "double", sizeof(V) == 4 ? "; use precision: double" : "");
}

}  // namespace

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
    refuse_zero_rows(a, file);
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
    const Csr<double>& a = system_->matrix;
    const auto matrix_range = value_range(a.values.data(), a.nnz());
    // A and b scaled together by one power of two: the solution is unchanged, and the
    // matrix's values (and the products with them) stay inside V's range.
    scale_exponent_ = equilibration_exponent<V>(matrix_range.first);
    const std::string name = system_->file.filename().string();
    for (std::string warning :
         {range_warning<V>(name + "'s matrix", matrix_range, scale_exponent_),
          range_warning<V>("the right-hand side of " + name,
                           value_range(system_->rhs.data(), system_->rhs.size()), scale_exponent_)})
        if (!warning.empty()) warnings_.push_back(std::move(warning));
}

template <typename V>
nlohmann::json ExternalSystemDiscretisation<V>::report() const
{
    nlohmann::json out = {{"scale_exponent", scale_exponent_}};
    if (!warnings_.empty()) out["warnings"] = warnings_;
    return out;
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
    // Scaled and converted on the host, then uploaded (double at scale 1: copied as it is).
    const auto convert = [this](const double* values, std::size_t n) {
        std::vector<V> out(n);
        for (std::size_t k = 0; k < n; ++k) out[k] = static_cast<V>(std::ldexp(values[k], scale_exponent_));
        return out;
    };
    if constexpr (std::is_same_v<V, double>) {
        if (scale_exponent_ == 0) {
            out.matrix.values = a.values.clone_to(exec);
            out.rhs = Array<V>::from_host(exec, system_->rhs);
        }
    }
    if (out.matrix.values.size() != a.nnz()) {
        out.matrix.values = Array<V>::from_host(exec, convert(a.values.data(), a.nnz()));
        out.rhs = Array<V>::from_host(exec, convert(system_->rhs.data(), system_->rhs.size()));
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
