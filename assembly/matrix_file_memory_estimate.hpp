#pragma once
// The memory model of an external system read from Matrix Market files (the case's `matrix`):
// its matrix from the file's header (read before the file), the reading, the conversion into
// the format, the residual of a float solve and the solution written as Matrix Market.
#include <filesystem>

#include "assembly/discretisation_memory.hpp"

namespace gpufem {

/// The external matrix as known from its Matrix Market header, and the file's size.
struct MatrixFileEstimate {
    MatrixShape shape;       ///< rows, the non-zeros once symmetric halves are expanded (at most)
    double file_bytes = 0;   ///< the file's size
};

/// Reads the header of file (not the entries): rows, the entries the file stores (symmetric:
/// one half, expanded on reading) and the file's size; values of value_bytes.
MatrixFileEstimate matrix_file_estimate(const std::filesystem::path& file, double value_bytes);

/// The external system's memory for a run on the matrix of estimate and the run's choices.
/// Its "mesh" is the CSR in double and b read from the files, kept for the run.
DiscretisationMemory matrix_file_memory(const MatrixFileEstimate& estimate, const MemoryChoices& choices);

}  // namespace gpufem
