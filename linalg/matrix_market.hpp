#pragma once
// Matrix Market (.mtx) files: a parallel reader (the whole file read once, split at newlines
// into one chunk per host thread, parsed with std::from_chars, turned into CSR by a stable
// counting sort) and a parallel writer (chunks formatted with std::to_chars, written in order).
// Supported: `matrix coordinate|array`, `real|integer|pattern`,
// `general|symmetric|skew-symmetric`; complex, hermitian and `vector` objects are refused.
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "linalg/csr.hpp"
#include "linalg/named_enum.hpp"

namespace gpufem {

/// Error in a Matrix Market file; what() is "<file>:<line>: <problem>" (line 1-based).
class MatrixMarketError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The value kind of a Matrix Market file (pattern: no values, every entry is 1).
enum class MatrixMarketField { real, integer, pattern };
/// Their names, as in the banner.
inline constexpr std::array<EnumName<MatrixMarketField>, 3> matrix_market_field_names{
    {{MatrixMarketField::real, "real"}, {MatrixMarketField::integer, "integer"}, {MatrixMarketField::pattern, "pattern"}}};

/// Which part a Matrix Market file stores: all entries, or the lower triangle of a
/// symmetric (a_ji = a_ij) or skew-symmetric (a_ji = -a_ij, zero diagonal) matrix.
enum class MatrixMarketSymmetry { general, symmetric, skew_symmetric };
/// Their names, as in the banner.
inline constexpr std::array<EnumName<MatrixMarketSymmetry>, 3> matrix_market_symmetry_names{
    {{MatrixMarketSymmetry::general, "general"},
     {MatrixMarketSymmetry::symmetric, "symmetric"},
     {MatrixMarketSymmetry::skew_symmetric, "skew-symmetric"}}};

/// The banner and size line of a Matrix Market file.
struct MatrixMarketHeader {
    bool coordinate = true;  ///< false: `array` (dense, column-major)
    MatrixMarketField field = MatrixMarketField::real;
    MatrixMarketSymmetry symmetry = MatrixMarketSymmetry::general;
    std::int64_t rows = 0, cols = 0;
    /// Lines of data the size line announces (coordinate: nnz as stored; array: rows*cols,
    /// or the stored triangle for symmetric / skew-symmetric).
    std::int64_t entries = 0;
    std::int64_t data_line = 0;    ///< 1-based line number of the first data line
    std::size_t data_offset = 0;   ///< byte offset of the first data line
};

/// Reads only the banner, comments and size line (cheap: for sizes and memory estimates), and
/// checks that the file is large enough for the entries the size line announces.
/// Throws MatrixMarketError for a malformed or unsupported banner or size line, and
/// std::runtime_error naming the path when the file cannot be read.
MatrixMarketHeader read_matrix_market_header(const std::filesystem::path& path);

/// A coordinate-format file as a CSR matrix on the host executor: symmetric and
/// skew-symmetric halves expanded, duplicates summed (in file order), columns sorted within
/// each row, pattern entries = 1. Parsed by host_threads() threads; the result is the same
/// for any thread count. Rectangular matrices allowed (the caller checks squareness).
/// Throws MatrixMarketError for anything malformed, and when the expanded non-zero count or
/// a dimension does not fit gpufem's 32-bit index_type; std::runtime_error naming the path
/// when the file cannot be read.
Csr<double> read_matrix_market(const std::filesystem::path& path);

/// A vector from a file: `array` format with one column (n x 1; a 1 x n row is accepted
/// too), or `coordinate` with one column or one row (absent entries 0, duplicates summed).
std::vector<double> read_matrix_market_vector(const std::filesystem::path& path);

/// Writes a matrix (any executor: it is downloaded) as `coordinate real general`, values in
/// shortest round-trip form of V (std::to_chars: a float gets the fewest digits that read
/// back as that float), after one comment line `%` + comment when the
/// comment is not empty (a comment with newlines becomes several `%` lines). Formatted by
/// host_threads() threads in chunks, written sequentially. Throws std::runtime_error naming
/// the path on an I/O error.
template <typename V>
void write_matrix_market(const std::filesystem::path& path, const Csr<V>& matrix,
                         const std::string& comment = "");

/// Writes a vector as `array real general` (n x 1), shortest round-trip values, with the
/// comment as write_matrix_market does.
void write_matrix_market_vector(const std::filesystem::path& path, std::span<const double> values,
                                const std::string& comment = "");

}  // namespace gpufem
