// Every format's SpMV equals CSR's on the battery (CPU reference implementations).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "format_battery.hpp"
#include "linalg/csr_tuning.hpp"
#include "random_values.hpp"
#include "value_types.hpp"

using namespace gpufem;

GPUFEM_VALUE_TYPED_SUITE(FormatsCpu);

TYPED_TEST(FormatsCpu, EveryFormatMatchesTheLongDoubleReference)
{
    using V = TypeParam;
    const double tol = test::tolerance<V>();
    std::mt19937 rng(test::random_seed());
    const auto exec = Executor::create_cpu();
    for (const auto& m : test::format_battery<V>(rng)) {
        const auto x = test::random_vector<V>(m.csr.cols, rng), y = test::random_vector<V>(m.csr.rows, rng);
        const auto expect = test::dense_reference(m.csr, V(1.5), x, V(-0.5), y);
        const auto expect0 = test::dense_reference(m.csr, V(1), x, V(0), y);
        for (const std::string& name : assembled_formats().names_on(Backend::cpu)) {
            SCOPED_TRACE(name + " on " + m.name);
            const FormatBuild<V> f = build_format<V>(name, test::to_csr(m.csr, exec), {});
            EXPECT_EQ(f.op->format(), name);
            if (!m.csr.col.empty()) EXPECT_GT(f.op->bytes_stored(), 0u);
            EXPECT_GE(f.op->spmv_min_bytes(), sizeof(V) * (m.csr.rows + m.csr.cols));
            EXPECT_LT(test::relative_max_error(test::apply_format(f, V(1.5), x, V(-0.5), y), expect), tol);
            // beta = 0 must ignore y, even NaN.
            const std::vector<V> nan_y(m.csr.rows, std::numeric_limits<V>::quiet_NaN());
            EXPECT_LT(test::relative_max_error(test::apply_format(f, V(1), x, V(0), nan_y), expect0), tol);
        }
    }
}

TEST(Formats, UnknownFormatIsNamed)
{
    std::mt19937 rng(1);
    const auto exec = Executor::create_cpu();
    try {
        build_format<double>("ellpackk", test::to_csr(test::random_csr<double>(5, 5, 2, rng), exec), {});
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("ellpackk"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("sellp"), std::string::npos);
    }
}

TEST(CsrFixedRule, CoopFromMeanRowLengthRepeatOne)
{
    // mean row length 27 -> sqrt = 5.2 -> coop 8; 9 -> 3 -> coop 4; 1 -> 1; 5 -> 2.2 -> 4.
    EXPECT_EQ(csr_fixed_rule(1000000, 27000000), (CsrParams{8, 1, 128}));
    EXPECT_EQ(csr_fixed_rule(1000000, 9000000), (CsrParams{4, 1, 128}));
    EXPECT_EQ(csr_fixed_rule(1000, 1000), (CsrParams{1, 1, 128}));
    EXPECT_EQ(csr_fixed_rule(1000, 1000 * 3000), (CsrParams{32, 1, 128}));
    EXPECT_EQ(csr_fixed_rule(1000000, 5000000), (CsrParams{4, 1, 128}));
}

TEST(CsrPaperRule, CoopAsTheFixedRuleRepeatKeepsEnoughBlocks)
{
    for (const std::size_t per_row : {1u, 5u, 27u, 3000u})
        EXPECT_EQ(csr_paper_rule(1000000, per_row * 1000000, 2112).coop, csr_fixed_rule(1000000, per_row * 1000000).coop);
    for (index_type rows : {1, 1000, 1000000, 50000000}) {
        const CsrParams p = csr_paper_rule(rows, 27ull * rows, 2112);
        EXPECT_EQ(p.block, 128);
        // As many rows per group as possible while at least 2112 blocks remain (if it can).
        CsrParams more = p;
        more.repeat *= 2;
        EXPECT_TRUE(p.repeat == 1 || csr_grid_size(rows, p) >= 2112) << rows;
        EXPECT_TRUE(p.repeat == 64 || csr_grid_size(rows, more) < 2112) << rows;
    }
}

namespace {

/// Runs the tuner against a time model until it stops; returns the number of SpMVs it took.
template <typename Model>
int run_tuner(CsrTuner& tuner, Model model)
{
    int steps = 0;
    while (!tuner.done() && steps < 100) {
        tuner.report(model(tuner.next()));
        ++steps;
    }
    return steps;
}

}  // namespace

TEST(CsrTuner, CoopPathWhenRepeatHardlyMatters)
{
    // Halving repeat changes the time by < 5%: the tuner turns to coop (with block 192), then
    // to the block size. Optimum: coop 8, block 256 (repeat flat).
    auto model = [](const CsrParams& p) {
        const double c = std::log2(p.coop) - 3, r = std::log2(p.repeat) - 1, b = (p.block - 256) / 32.0;
        return 1.0 + 0.10 * c * c + 0.001 * r * r + 0.05 * b * b;
    };
    CsrTuner tuner(1000000, CsrParams{4, 8, 128}, 64);
    const int steps = run_tuner(tuner, model);
    ASSERT_TRUE(tuner.done());
    EXPECT_LT(steps, 20);
    EXPECT_EQ(tuner.best().coop, 8);
    EXPECT_EQ(tuner.best().block, 256);
    EXPECT_EQ(tuner.next(), tuner.best());
}

TEST(CsrTuner, RepeatPathWhenMoreBlocksHelp)
{
    // Halving repeat helps by > 5%: the tuner keeps halving it to the optimum (repeat 1),
    // then tunes the block size (optimum 160); coop stays.
    auto model = [](const CsrParams& p) {
        const double r = std::log2(p.repeat), b = (p.block - 160) / 32.0;
        return 1.0 + 0.2 * r + 0.05 * b * b + (p.coop == 4 ? 0.0 : 0.5);
    };
    CsrTuner tuner(1000000, CsrParams{4, 16, 128}, 64);
    run_tuner(tuner, model);
    ASSERT_TRUE(tuner.done());
    EXPECT_EQ(tuner.best(), (CsrParams{4, 1, 160}));
}

TEST(CsrTuner, SearchesCoopAfterTheRepeatPath)
{
    // Short rows (finite volumes: 5 entries): halving repeat helps, and one thread a row beats
    // the fixed rule's coop 4. The tuner walks repeat down, then coop down to 1.
    auto model = [](const CsrParams& p) {
        return 1.0 + 0.1 * std::log2(p.repeat) + 0.2 * std::log2(p.coop) + 0.001 * std::abs(p.block - 128) / 32.0;
    };
    CsrTuner tuner(1000000, CsrParams{4, 32, 128}, 64);
    const int steps = run_tuner(tuner, model);
    ASSERT_TRUE(tuner.done());
    EXPECT_LT(steps, 30);
    EXPECT_EQ(tuner.best(), (CsrParams{1, 1, 128}));
}

TEST(CsrTuner, KeepsTheFixedRuleWhenNothingIsBetter)
{
    CsrTuner tuner(1000000, CsrParams{4, 4, 128}, 64);
    int steps = 0;
    while (!tuner.done() && steps < 100) {
        const CsrParams& p = tuner.next();
        tuner.report(p == CsrParams{4, 4, 128} ? 1.0 : 1.5);
        ++steps;
    }
    EXPECT_TRUE(tuner.done());
    EXPECT_EQ(tuner.best(), (CsrParams{4, 4, 128}));
}

namespace {

/// An operator that claims dot partials but never implements the fused product.
class PartialsWithoutProduct final : public LinearOperator<double> {
public:
    explicit PartialsWithoutProduct(ExecPtr exec) : exec_(std::move(exec)) {}
    index_type rows() const override { return 4; }
    index_type cols() const override { return 4; }
    const ExecPtr& executor() const override { return exec_; }
    std::string format() const override { return "claims-partials"; }
    std::size_t bytes_stored() const override { return 0; }
    std::size_t spmv_min_bytes() const override { return 0; }
    std::size_t dot_partials() const override { return 1; }

protected:
    void apply_impl(double, const Array<double>&, double, Array<double>&) const override {}

private:
    ExecPtr exec_;
};

}  // namespace

TEST(LinearOperatorContract, AFormatClaimingDotPartialsWithoutTheFusedProductIsRefused)
{
    const auto exec = Executor::create_cpu();
    const PartialsWithoutProduct op(exec);
    const auto x = Array<double>::from_host(exec, std::vector<double>{1.0, 2.0, 3.0, 4.0});
    Array<double> y(exec, 4);
    double partial = -1.0;
    try {
        op.apply_with_dot(x, y, &partial);
        FAIL() << "apply_with_dot did not throw";
    } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("claims-partials"), std::string::npos) << e.what();
    }
    EXPECT_EQ(partial, -1.0);
}
