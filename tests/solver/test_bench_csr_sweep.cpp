// `gpufem bench spmv --csr-sweep` (the space of csr parameters it times, its refusal on the
// CPU) and the bdia channel case with the band GFLOP/s column, on the CPU.
#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "solver/bench/bench_csr_sweep.hpp"
#include "solver/bench/bench_spmv.hpp"
#include "solver/case/case_file.hpp"

using namespace gpufem;
namespace fs = std::filesystem;

namespace {

bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

TEST(CsrSweep, CombinationsAreValidAndHoldTheFixedRule)
{
    for (const index_type rows : {1, 37, 1000, 262144, 4173281}) {
        SCOPED_TRACE("rows " + std::to_string(rows));
        const std::vector<CsrParams> list = csr_sweep_combinations(rows);
        ASSERT_FALSE(list.empty());
        std::set<std::tuple<int, int, int>> seen;
        for (const CsrParams& p : list) {
            SCOPED_TRACE(to_string(p));
            EXPECT_TRUE(power_of_two(p.coop) && p.coop <= 32);
            EXPECT_TRUE(power_of_two(p.repeat) && p.repeat <= 64);
            EXPECT_TRUE(p.block >= 64 && p.block <= 512 && p.block % 32 == 0);
            EXPECT_EQ(p.block % p.coop, 0);
            EXPECT_GE(csr_grid_size(rows, p), 1);
            EXPECT_TRUE(p.repeat == 1 || static_cast<long long>(p.repeat) * (p.block / p.coop) <= rows);
            EXPECT_TRUE(csr_sweep_valid(p, rows));
            EXPECT_TRUE(seen.insert({p.coop, p.repeat, p.block}).second) << "listed twice";
        }
        // The rules' parameters, for any mean row length and device size.
        for (const double per_row : {1.0, 3.0, 7.0, 27.0, 125.0, 900.0}) {
            const auto nnz = static_cast<std::size_t>(per_row * rows);
            const CsrParams fixed = csr_fixed_rule(rows, nnz);
            EXPECT_NE(std::find(list.begin(), list.end(), fixed), list.end()) << to_string(fixed);
            for (const int min_blocks : {16, 16 * 132}) {
                const CsrParams paper = csr_paper_rule(rows, nnz, min_blocks);
                EXPECT_NE(std::find(list.begin(), list.end(), paper), list.end())
                    << to_string(paper) << " (" << per_row << " per row, " << min_blocks << " blocks)";
            }
        }
    }
    // Every coop x repeat x block for a large matrix; repeat 1 only for a one-row one.
    EXPECT_EQ(csr_sweep_combinations(4173281).size(), 6u * 7u * csr_sweep_blocks().size());
    EXPECT_EQ(csr_sweep_combinations(1).size(), 6u * csr_sweep_blocks().size());
    EXPECT_EQ(csr_sweep_blocks().front(), 64);
    EXPECT_EQ(csr_sweep_blocks().back(), 512);

    // What is not in the space.
    EXPECT_FALSE(csr_sweep_valid({3, 1, 128}, 1000));     // coop not a power of two
    EXPECT_FALSE(csr_sweep_valid({64, 1, 128}, 1000));    // coop above a warp
    EXPECT_FALSE(csr_sweep_valid({4, 3, 128}, 1000));     // repeat not a power of two
    EXPECT_FALSE(csr_sweep_valid({4, 128, 128}, 1 << 30)); // repeat above 64
    EXPECT_FALSE(csr_sweep_valid({4, 1, 1024}, 1000));    // above the kernel's launch bound
    EXPECT_FALSE(csr_sweep_valid({4, 1, 100}, 1000));     // not a multiple of 32
    EXPECT_FALSE(csr_sweep_valid({1, 2, 512}, 1000));     // 1024 rows per block > 1000 rows
    EXPECT_TRUE(csr_sweep_valid({1, 1, 512}, 10));        // repeat 1 always launches
    EXPECT_FALSE(csr_sweep_valid({1, 1, 128}, 0));        // no rows
}

TEST(CsrSweep, RefusedOnTheCpuBeforeAnyMesh)
{
    // A mesh this size would take long to build: the refusal comes first.
    const CaseSpec spec = parse_case_text("mesh:\n  shape: unit_cube\n  size: 0.002\nbackend: cpu\n",
                                          "sweep.yaml", "");
    SpmvBenchOptions options;
    options.csr_sweep = true;
    try {
        run_spmv_bench(spec, options);
        FAIL() << "--csr-sweep ran on the CPU backend";
    } catch (const std::invalid_argument& e) {
        const std::string message = e.what();
        for (const char* part : {"--csr-sweep", "CPU backend", "ignores coop, repeat and block"})
            EXPECT_NE(message.find(part), std::string::npos) << message;
    }
    EXPECT_THROW(require_csr_sweep_backend(*Executor::create_cpu()), std::invalid_argument);

    // The sweep function itself refuses a matrix in host memory.
    const ExecPtr cpu = Executor::create_cpu();
    Csr<double> one{1, 1, Array<index_type>::from_host(cpu, {0, 1}), Array<index_type>::from_host(cpu, {0}),
                    Array<double>::from_host(cpu, {2.0})};
    EXPECT_THROW(run_csr_sweep(one, options), std::invalid_argument);
}

TEST(BdiaChannel, ShippedCaseIsAcceptedByBdiaWithItsBandFlops)
{
    // cases/benchmarks/bdia_channel.yaml at a CPU size (2 elements across, P2): bdia takes its matrix,
    // agrees with csr, and reports band GFLOP/s (2 n d, band zeros included) above its 2 nnz
    // figure.
    std::random_device device;
    const fs::path dir = fs::temp_directory_path() / ("gpufem_bdia_channel_" + std::to_string(device()));
    CaseSpec spec = parse_case_file(fs::path(GPUFEM_SOURCE_DIR) / "cases/benchmarks/bdia_channel.yaml",
                                    {"mesh.size=0.5", "degree=2"});
    set_backend(spec, BackendChoice::cpu);
    EXPECT_EQ(spec.format, "bdia");
    const std::vector<SpmvBenchRow> rows = run_spmv_bench(
        spec, {.formats = {"csr", "bdia", "ellr"}, .repeats = 50, .warmup = 1, .cg_iterations = 0, .output_dir = dir});
    ASSERT_EQ(rows.size(), 3u);
    for (const SpmvBenchRow& r : rows) {
        ASSERT_TRUE(r.error.empty()) << r.format << ": " << r.error;
        EXPECT_LT(r.max_rel_error, 1e-12) << r.format;
        if (r.format == "bdia") {
            EXPECT_GT(r.band_gflops, r.gflops);
            EXPECT_NE(r.parameters.find("order=rcm"), std::string::npos) << r.parameters;
        } else {
            EXPECT_EQ(r.band_gflops, 0.0) << r.format;
        }
    }
    EXPECT_TRUE(fs::exists(dir / "bench_spmv.csv"));
    fs::remove_all(dir);
}
