// libFuzzer target: bytes given as a Matrix Market file, read by read_matrix_market and
// read_matrix_market_vector (linalg/matrix_market.hpp). Any input must end in a result or a
// MatrixMarketError / std::runtime_error; a crash, a sanitizer report, a hang or another
// exception is a finding. Inputs over 64 KiB are refused (a larger file tests nothing new).
// Files whose size line announces more than 1e6 rows or columns are skipped after the header
// check: "1000000000 1000000000 1" is a valid file that legitimately needs a 4 GB row_ptr,
// beyond libFuzzer's -malloc_limit_mb; the reader's memory otherwise grows only with the bytes
// of the file (an entry count larger than the bytes can hold fails before allocating).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "linalg/matrix_market.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size > (64u << 10)) return 0;
    // The input's file, removed when the process exits normally.
    struct TempFile {
        std::filesystem::path path =
            std::filesystem::temp_directory_path() / ("gpufem_fuzz_" + std::to_string(::getpid()) + ".mtx");
        ~TempFile()
        {
            std::error_code ignored;
            std::filesystem::remove(path, ignored);
        }
    };
    static const TempFile temp;
    const std::filesystem::path& path = temp.path;
    {
        std::ofstream file(path, std::ios::binary | std::ios::trunc);
        file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        const gpufem::MatrixMarketHeader header = gpufem::read_matrix_market_header(path);
        if (header.rows > 1'000'000 || header.cols > 1'000'000) return 0;
    } catch (const gpufem::MatrixMarketError&) {
        // a clear error naming the file and line; the readers below must say the same
    } catch (const std::runtime_error&) {
        return 0;
    }
    try {
        const gpufem::Csr<double> matrix = gpufem::read_matrix_market(path);
        if (matrix.row_ptr.size() != std::size_t(matrix.rows) + 1) __builtin_trap();
    } catch (const gpufem::MatrixMarketError&) {
    } catch (const std::runtime_error&) {
    }
    try {
        gpufem::read_matrix_market_vector(path);
    } catch (const gpufem::MatrixMarketError&) {
    } catch (const std::runtime_error&) {
    }
    return 0;
}
