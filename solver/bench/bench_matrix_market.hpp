#pragma once
// `gpufem bench mtx`: how fast gpufem reads and writes Matrix Market files (linalg/
// matrix_market.hpp), on a given file or on a generated 7-point matrix, with 1 thread and
// with all of host_threads().
#include <filesystem>
#include <string>

namespace gpufem {

/// Options of `gpufem bench mtx`.
struct MatrixMarketBenchOptions {
    std::filesystem::path file;      ///< the file to read; empty: generate one
    long long rows = 2'000'000;      ///< rows of the generated matrix (about 250 bytes of text per row)
    int repeats = 5;                 ///< timed reads per thread count (median reported)
    std::filesystem::path work_dir;  ///< where the written file goes; empty: the temp folder
};

/// Times reading (median of repeats) and writing a Matrix Market file with 1 thread and
/// with host_threads() threads, prints a table (file MB, threads, read s, read MB/s, write s,
/// write MB/s) and returns it as text. Without a file it generates a random 7-point
/// 3D-Laplacian-like matrix of `rows` rows, writes it (timed), reads it back and deletes it;
/// with a file, the matrix read is written to a scratch file in work_dir (timed), then
/// deleted. The file is in the page cache when read: the rates are of parsing, not of disks.
std::string run_matrix_market_bench(const MatrixMarketBenchOptions& options);

}  // namespace gpufem
