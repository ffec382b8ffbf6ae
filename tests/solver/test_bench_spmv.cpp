// `gpufem bench spmv` with the matrix-free formats: the lma names and their expansion, and a
// small degree sweep on the CPU (every lma variant agrees with csr, the summary is written).
#include <filesystem>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "assembly/lma_operator.hpp"
#include "solver/bench/bench_formats.hpp"
#include "solver/bench/bench_spmv.hpp"
#include "solver/case/case_file.hpp"

using namespace gpufem;
namespace fs = std::filesystem;

TEST(BenchFormats, NamesExpandAgainstTheCaseOptions)
{
    FormatOptions base;
    base.set("lma", LmaOptions{LmaScatter::colour, false, LmaKernel::tile});

    auto one = bench_formats({"lma"}, base, Backend::cpu);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].label, "lma-colour:tile");
    EXPECT_EQ(one[0].options.get<LmaOptions>("lma").scatter, LmaScatter::colour);

    auto atomic_sym = bench_formats({"lma-atomic-sym:twin"}, base, Backend::cpu);
    ASSERT_EQ(atomic_sym.size(), 1u);
    EXPECT_EQ(atomic_sym[0].label, "lma-atomic-sym:twin");
    const auto o = atomic_sym[0].options.get<LmaOptions>("lma");
    EXPECT_EQ(o.scatter, LmaScatter::atomic);
    EXPECT_TRUE(o.symmetric);
    EXPECT_EQ(o.kernel, LmaKernel::twin);

    EXPECT_EQ(bench_formats({"lma-all"}, base, Backend::cpu).size(), 4u);
    EXPECT_EQ(bench_formats({"lma-all-sym"}, base, Backend::cpu).size(), 2u);
    const auto every = bench_formats({"lma-all-full:all"}, base, Backend::cpu);
    ASSERT_EQ(every.size(), 6u);  // 2 scatters x 3 kernels
    for (const auto& f : every) EXPECT_FALSE(f.options.get<LmaOptions>("lma").symmetric) << f.label;
    EXPECT_EQ(every.front().label, "lma-atomic:cell");
    EXPECT_EQ(every.back().label, "lma-colour:twin");

    // Formats without variants are taken by name; names that are neither are refused.
    const auto plain = bench_formats({"csr-scalar", "sellp"}, base, Backend::cpu);
    ASSERT_EQ(plain.size(), 2u);
    EXPECT_EQ(plain[0].label, "csr-scalar");
    EXPECT_EQ(plain[1].choice.name(), "sellp");
    EXPECT_THROW(bench_formats({"lmax"}, base, Backend::cpu), std::invalid_argument);
    EXPECT_THROW(bench_formats({"sellp-all"}, base, Backend::cpu), std::invalid_argument);
    EXPECT_THROW(bench_formats({"lma-diagonal"}, base, Backend::cpu), std::invalid_argument);

    // The default list: every format of the backend, lma as its four variants, and pa.
    const auto defaults = bench_formats({}, base, Backend::cpu);
    std::size_t lma = 0, pa = 0;
    for (const auto& f : defaults) {
        EXPECT_TRUE(f.choice.entry().on_cpu) << f.label;
        lma += f.choice.matrix_free() && f.choice.name() == "lma";
        pa += f.choice.matrix_free() && f.choice.name() == "pa";
    }
    EXPECT_EQ(lma, 4u);
    EXPECT_EQ(pa, 1u);
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
    options.formats = {"csr", "ellr", "lma-all", "pa"};
    options.repeats = 50;
    options.warmup = 1;
    options.cg_iterations = 5;
    options.output_dir = dir;
    const std::vector<SpmvBenchRow> rows = run_spmv_bench(spec, options);
    ASSERT_EQ(rows.size(), 14u);  // 2 degrees x (csr, ellr, 4 lma variants, pa)
    for (const SpmvBenchRow& r : rows) {
        EXPECT_TRUE(r.error.empty()) << r.format << ": " << r.error;
        EXPECT_LT(r.max_rel_error, 1e-12) << r.format;
        EXPECT_GT(r.bytes_stored, 0u) << r.format;
        EXPECT_GT(r.median_seconds, 0.0) << r.format;
        EXPECT_GT(r.cg_iterations_per_second, 0.0) << r.format;
        EXPECT_EQ(r.matrix_free, r.format.rfind("lma", 0) == 0 || r.format == "pa") << r.format;
        EXPECT_NEAR(r.gdofs, r.unknowns / r.median_seconds * 1e-9, 1e-9 * r.gdofs) << r.format;
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

TEST(BenchSpmv, MatrixFreeFormatsAloneAssembleNoMatrix)
{
    // pa and lma at degree 6 without csr: no matrix, no break-even counts, lma checked against
    // pa (the first row), every degree's unknowns.
    std::random_device device;
    const fs::path dir = fs::temp_directory_path() / ("gpufem_bench_test_" + std::to_string(device()));
    const CaseSpec spec = parse_case_text(R"(
mesh: {shape: unit_cube, elements: hexahedron, size: 0.5}
degree: [6, 8]
problem: {f: 1, dirichlet: {boundary: 0}}
backend: cpu
)",
                                          "high_degrees.yaml", "");
    SpmvBenchOptions options;
    options.formats = {"pa", "lma-atomic-sym"};
    options.repeats = 50;
    options.warmup = 1;
    options.cg_iterations = 5;
    options.output_dir = dir;
    const std::vector<SpmvBenchRow> rows = run_spmv_bench(spec, options);
    ASSERT_EQ(rows.size(), 4u);
    for (const SpmvBenchRow& r : rows) {
        EXPECT_TRUE(r.error.empty()) << r.format << ": " << r.error;
        EXPECT_TRUE(r.matrix_free) << r.format;
        EXPECT_EQ(r.unknowns, r.degree == 6 ? 13 * 13 * 13 : 17 * 17 * 17) << r.format;
        EXPECT_EQ(r.gflops, 0.0) << r.format;  // no non-zeros
        EXPECT_GT(r.cg_iterations_per_second, 0.0) << r.format;
        EXPECT_LT(r.break_even_spmvs, 0.0) << r.format;  // none: no csr
    }
    EXPECT_EQ(rows[0].format, "pa");
    EXPECT_LT(rows[1].max_rel_error, 1e-12);  // lma against pa
    fs::remove_all(dir);
}
