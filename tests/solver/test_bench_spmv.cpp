// `gpufem bench spmv` with the matrix-free formats: the lma names and their expansion, and a
// small degree sweep on the CPU (every lma variant agrees with csr, the summary is written).
#include <filesystem>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "solver/bench_lma_formats.hpp"
#include "solver/bench_spmv.hpp"
#include "solver/case_file.hpp"

using namespace gpufem;
namespace fs = std::filesystem;

TEST(BenchLmaFormats, NamesExpandAgainstTheCaseOptions)
{
    FormatOptions base;
    base.lma_colour = true;
    base.lma_kernel = "tile";
    EXPECT_TRUE(is_lma_format("lma"));
    EXPECT_TRUE(is_lma_format("lma-atomic-sym:twin"));
    EXPECT_FALSE(is_lma_format("csr"));
    EXPECT_FALSE(is_lma_format("lmax"));

    auto one = expand_lma_format("lma", base);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].label, "lma-colour:tile");
    EXPECT_TRUE(one[0].options.lma_colour);

    auto atomic_sym = expand_lma_format("lma-atomic-sym:twin", base);
    ASSERT_EQ(atomic_sym.size(), 1u);
    EXPECT_EQ(atomic_sym[0].label, "lma-atomic-sym:twin");
    EXPECT_FALSE(atomic_sym[0].options.lma_colour);
    EXPECT_TRUE(atomic_sym[0].options.lma_symmetric);
    EXPECT_EQ(atomic_sym[0].options.lma_kernel, "twin");

    EXPECT_EQ(expand_lma_format("lma-all", base).size(), 4u);
    EXPECT_EQ(expand_lma_format("lma-all-sym", base).size(), 2u);
    const auto every = expand_lma_format("lma-all-full:all", base);
    ASSERT_EQ(every.size(), 10u);  // 2 scatters x 5 kernels
    for (const auto& f : every) EXPECT_FALSE(f.options.lma_symmetric) << f.label;
    EXPECT_EQ(every.front().label, "lma-atomic:cell");
    EXPECT_EQ(every.back().label, "lma-colour:reg");

    EXPECT_THROW(expand_lma_format("lma-fast", base), std::invalid_argument);
    EXPECT_THROW(expand_lma_format("lma:warp", base), std::invalid_argument);
    EXPECT_THROW(expand_lma_format("csr", base), std::invalid_argument);
}

TEST(BenchSpmv, LmaDegreeSweepOnTheCpu)
{
    std::random_device device;
    const fs::path dir = fs::temp_directory_path() / ("gpufem_bench_test_" + std::to_string(device()));
    const CaseSpec spec = parse_case_text(R"(
mesh:
  shape: unit_square
  elements: quadrilateral
  size: 0.25
  size_scales_with_degree: true
degree: [1, 2]
problem:
  f: 1
  dirichlet:
    boundary: 0
backend: cpu
)",
                                          "lma_sweep.yaml", "");
    SpmvBenchOptions options;
    options.formats = {"csr", "ellr", "lma-all"};
    options.repeats = 50;
    options.warmup = 1;
    options.cg_iterations = 5;
    options.output_dir = dir;
    const std::vector<SpmvBenchRow> rows = run_spmv_bench(spec, options);
    ASSERT_EQ(rows.size(), 12u);  // 2 degrees x (csr, ellr, 4 lma variants)
    for (const SpmvBenchRow& r : rows) {
        EXPECT_TRUE(r.error.empty()) << r.format << ": " << r.error;
        EXPECT_LT(r.max_rel_error, 1e-12) << r.format;
        EXPECT_GT(r.bytes_stored, 0u) << r.format;
        EXPECT_GT(r.median_seconds, 0.0) << r.format;
        EXPECT_GT(r.cg_iterations_per_second, 0.0) << r.format;
        EXPECT_EQ(r.matrix_free, r.format.rfind("lma", 0) == 0) << r.format;
    }
    EXPECT_EQ(rows.front().degree, 1);
    EXPECT_EQ(rows.back().degree, 2);
    EXPECT_EQ(rows.front().unknowns, rows.back().unknowns);  // the size scales with the degree
    const std::string summary = spmv_sweep_table(rows);
    EXPECT_NE(summary.find("lma-colour-sym"), std::string::npos);
    EXPECT_NE(summary.find("<- best assembled"), std::string::npos);
    EXPECT_TRUE(fs::exists(dir / "bench_sweep.csv"));
    EXPECT_TRUE(fs::exists(dir / "bench_sweep.txt"));
    EXPECT_TRUE(fs::exists(dir / "d2_r0" / "bench_spmv.json"));
    fs::remove_all(dir);
}
