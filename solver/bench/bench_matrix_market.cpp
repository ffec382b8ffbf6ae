#include "solver/bench/bench_matrix_market.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "linalg/host_threads.hpp"
#include "linalg/matrix_market.hpp"
#include "solver/bench/bench_common.hpp"

namespace gpufem {
namespace {

/// A random matrix with the pattern of the 7-point Laplacian on an n x n x m grid
/// (n = cbrt(rows), the last layer possibly partial): diagonal in [6, 7), neighbours in
/// (-1.5, -0.5]; fixed seed.
Csr<double> laplacian_like(long long rows_wanted)
{
    const index_type rows = checked_index(rows_wanted, "bench mtx --rows");
    const auto n = std::max<index_type>(1, static_cast<index_type>(std::lround(std::cbrt(double(rows)))));
    const std::int64_t layer = std::int64_t(n) * n;
    std::mt19937_64 rng(20240611);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<index_type> ptr{0}, col;
    std::vector<double> val;
    col.reserve(std::size_t(rows) * 7);
    val.reserve(std::size_t(rows) * 7);
    for (std::int64_t i = 0; i < rows; ++i) {
        const std::int64_t x = i % n, y = (i / n) % n;
        const auto add = [&](std::int64_t j, double v) {
            col.push_back(static_cast<index_type>(j));
            val.push_back(v);
        };
        if (i >= layer) add(i - layer, -0.5 - unit(rng));
        if (y > 0) add(i - n, -0.5 - unit(rng));
        if (x > 0) add(i - 1, -0.5 - unit(rng));
        add(i, 6.0 + unit(rng));
        if (x + 1 < n && i + 1 < rows) add(i + 1, -0.5 - unit(rng));
        if (y + 1 < n && i + n < rows) add(i + n, -0.5 - unit(rng));
        if (i + layer < rows) add(i + layer, -0.5 - unit(rng));
        ptr.push_back(static_cast<index_type>(col.size()));
    }
    const ExecPtr host = Executor::create_cpu();
    return Csr<double>{rows, rows, Array<index_type>::from_host(host, ptr), Array<index_type>::from_host(host, col),
                       Array<double>::from_host(host, val)};
}

double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Removes a file when it goes out of scope (also on an error).
struct RemoveOnExit {
    std::filesystem::path path;
    ~RemoveOnExit()
    {
        std::error_code ignored;
        if (!path.empty()) std::filesystem::remove(path, ignored);
    }
};

/// Restores the host thread count on scope exit.
struct RestoreThreads {
    int threads = host_threads();
    ~RestoreThreads() { set_host_threads(threads); }
};

}  // namespace

std::string run_matrix_market_bench(const MatrixMarketBenchOptions& options)
{
    if (options.repeats < 1) throw std::invalid_argument("bench mtx: --repeats must be at least 1");
    const RestoreThreads restore;
    std::vector<int> thread_counts{1};
    if (restore.threads > 1) thread_counts.push_back(restore.threads);

    const std::filesystem::path dir = options.work_dir.empty() ? std::filesystem::temp_directory_path() : options.work_dir;
    const bool generate = options.file.empty();
    RemoveOnExit scratch{dir / fmt::format("gpufem_bench_mtx_{}.mtx", ::getpid())};
    const std::filesystem::path read_path = generate ? scratch.path : options.file;
    Csr<double> matrix;
    if (generate) {
        spdlog::info("bench mtx: generating a 7-point matrix of {} rows", options.rows);
        matrix = laplacian_like(options.rows);
    }

    std::string table = fmt::format("{:>10} {:>8} {:>10} {:>10} {:>10} {:>10}\n", "file MB", "threads", "read s",
                                    "read MB/s", "write s", "write MB/s");
    for (const int threads : thread_counts) {
        set_host_threads(threads);
        double write_seconds = 0;
        if (generate) {  // the file to read is the one written
            const auto start = std::chrono::steady_clock::now();
            write_matrix_market(scratch.path, matrix, "gpufem bench mtx: random 7-point matrix");
            write_seconds = seconds_since(start);
        }
        std::vector<double> reads;
        for (int r = 0; r < options.repeats; ++r) {
            const auto start = std::chrono::steady_clock::now();
            Csr<double> read = read_matrix_market(read_path);
            reads.push_back(seconds_since(start));
            if (!generate) matrix = std::move(read);
        }
        const double read_mb = double(std::filesystem::file_size(read_path)) / 1e6;
        double write_mb = read_mb;
        if (!generate) {  // write what was read, to a scratch file
            const auto start = std::chrono::steady_clock::now();
            write_matrix_market(scratch.path, matrix);
            write_seconds = seconds_since(start);
            write_mb = double(std::filesystem::file_size(scratch.path)) / 1e6;
            std::filesystem::remove(scratch.path);
        }
        const double read_seconds = median(reads);
        table += fmt::format("{:>10.1f} {:>8} {:>10.3f} {:>10.1f} {:>10.3f} {:>10.1f}\n", read_mb, threads,
                             read_seconds, read_mb / read_seconds, write_seconds, write_mb / write_seconds);
        spdlog::info("bench mtx: {} thread(s): {} rows, {} entries, read {:.3f} s (median of {}), write {:.3f} s",
                     threads, matrix.rows, matrix.nnz(), read_seconds, options.repeats, write_seconds);
    }
    fmt::print("{}", table);
    return table;
}

}  // namespace gpufem
