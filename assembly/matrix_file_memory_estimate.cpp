#include "assembly/matrix_file_memory_estimate.hpp"

#include <algorithm>
#include <cmath>

#include "linalg/matrix_market.hpp"

namespace gpufem {

MatrixFileEstimate matrix_file_estimate(const std::filesystem::path& file, double value_bytes)
{
    const MatrixMarketHeader header = read_matrix_market_header(file);
    const double rows = static_cast<double>(header.rows);
    const double entries = static_cast<double>(header.entries);
    const bool symmetric = header.symmetry != MatrixMarketSymmetry::general;
    const double nnz = symmetric ? 2 * entries : entries;  // the halves expanded (at most)
    MatrixFileEstimate e;
    e.file_bytes = static_cast<double>(std::filesystem::file_size(file));
    e.shape.rows = rows;
    e.shape.nnz = nnz;
    e.shape.max_row_length = rows > 0 ? std::ceil(std::min(rows, 4 * nnz / rows)) : 0;  // not known before reading
    e.shape.padded_row_length = rows > 0 ? 1.5 * nnz / rows : 0;
    e.shape.band_width = rows;
    e.shape.value_bytes = value_bytes;
    return e;
}

DiscretisationMemory matrix_file_memory(const MatrixFileEstimate& estimate, const MemoryChoices& c)
{
    const MatrixShape& m = estimate.shape;
    const double rows = m.rows, s = c.value_bytes;
    const double csr = csr_bytes(m);
    MatrixShape in_double = m;
    in_double.value_bytes = 8;
    const double csr_double = csr_bytes(in_double);
    const double vector = rows * s;
    DiscretisationMemory d;
    d.vector = vector;
    d.kept = c.preconditioner_kept;
    d.setup = c.preconditioner_setup;
    // Reading (host): the file's text and the parsed entries (row, column, value) beside the
    // CSR in double with b, which stay for the run.
    d.mesh = {csr_double + 8 * rows, 0};
    d.loading = {estimate.file_bytes + 16 * m.nnz, 0};
    // Assembly: the CSR in V and b on the executor, then the conversion.
    const double kept_matrix = c.keep_matrix ? csr : 0;
    const double conversion = std::max(csr + 2 * vector, c.format.build_peak + 2 * vector) + kept_matrix;
    d.system = c.format.stored + 2 * vector + kept_matrix;
    if (c.cuda) {
        d.assembly = {c.format.host + (s == 4 ? csr : 0), conversion};
        d.errors = {16 * rows, vector + (s == 4 ? csr_double + 3 * 8 * rows : 0)};
        d.output = {40 * rows, vector};
    } else {
        d.assembly = {conversion + c.format.host, 0};
        d.errors = {vector + 16 * rows, 0};
        d.output = {vector + 40 * rows, 0};
    }
    return d;
}

}  // namespace gpufem
