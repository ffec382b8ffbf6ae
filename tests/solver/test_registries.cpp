// The registries everything a user chooses is found in: formats, operator levels and
// preconditioners — what the pipeline reads from them instead of comparing names.
#include <gtest/gtest.h>

#include <set>

#include "assembly/lma_operator.hpp"
#include "assembly/operator_levels.hpp"
#include "solver/case/case_file.hpp"
#include "solver/preconditioners/preconditioner_registry.hpp"

using namespace gpufem;

TEST(Registries, AFormatOrALevelIsFoundByTheNameACaseGives)
{
    const OperatorChoice csr = find_operator("csr");
    ASSERT_NE(csr.format, nullptr);
    EXPECT_EQ(csr.level, nullptr);
    EXPECT_TRUE(csr.format->baseline);
    EXPECT_EQ(&baseline_format(), csr.format);
    const OperatorChoice lma = find_operator("lma");
    ASSERT_NE(lma.level, nullptr);
    EXPECT_TRUE(lma.matrix_free());
    EXPECT_EQ(lma.name(), "lma");
    EXPECT_FALSE(lookup_operator("nonsense").format || lookup_operator("nonsense").level);
    try {
        find_operator("nonsense");
        FAIL() << "an unknown name is refused";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("csr"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("lma"), std::string::npos) << e.what();
    }
    // Every name once, formats first, then the levels.
    const std::vector<std::string> names = operator_names();
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
    EXPECT_EQ(names.size(), assembled_formats().entries().size() + operator_levels().entries().size());
    EXPECT_EQ(names.back(), operator_levels().entries().back().name);
}

TEST(Registries, OneBaselineAndTheFlagsFormatAutoReads)
{
    int baselines = 0, vendor_baselines = 0;
    for (const FormatEntry& f : assembled_formats().entries()) {
        baselines += f.baseline;
        vendor_baselines += f.vendor_baseline;
        EXPECT_TRUE(f.build_float && f.build_double) << f.name;
    }
    EXPECT_EQ(baselines, 1);
    // The SpMV benchmark's speedups are against one vendor SpMV: cuSPARSE's CSR.
    EXPECT_EQ(vendor_baselines, 1);
    EXPECT_TRUE(assembled_formats().at("cusparse").vendor_baseline);
    EXPECT_FALSE(assembled_formats().at("csr-scalar").auto_candidate);
    // bdia can be told to refuse a band past a byte limit, unless the case set its own.
    const FormatEntry& bdia = assembled_formats().at("bdia");
    ASSERT_TRUE(static_cast<bool>(bdia.limit_bytes));
    FormatOptions options;
    bdia.limit_bytes(options, 1234);
    EXPECT_TRUE(options.has("bdia"));
    // lma keeps its element matrices in cell order with atomics, not with colours.
    const OperatorLevelEntry& lma = operator_levels().at("lma");
    FormatOptions colour;
    LmaOptions o;
    o.scatter = LmaScatter::colour;
    colour.set("lma", o);
    EXPECT_TRUE(lma.keeps_element_matrices_with(FormatOptions{}));
    EXPECT_FALSE(lma.keeps_element_matrices_with(colour));
}

TEST(Registries, EveryPreconditionerIsCompleteAndTheCaseReaderTakesItsName)
{
    const PreconditionerRegistry& registry = preconditioner_registry();
    EXPECT_TRUE(default_preconditioner().identity);
    for (const PreconditionerEntry& p : registry.entries()) {
        SCOPED_TRACE(p.name);
        EXPECT_TRUE(p.identity || (p.build_float && p.build_double && p.memory));
        // A preconditioner that keeps an assembled matrix does so unless its coarse operators
        // come from the elements.
        EXPECT_EQ(p.keeps_matrix(false), p.needs.assembled_matrix);
        EXPECT_FALSE(p.keeps_matrix(true) && p.needs.element_operators);
        const CaseSpec spec = parse_case_text(
            "mesh: {shape: unit_square, size: 0.5}\ndegree: 2\nproblem: {f: 1, dirichlet: {boundary: 0}}\n"
            "solver: {preconditioner: " + p.name + "}\n", "p", "");
        EXPECT_EQ(spec.solver.preconditioner, &p);
        EXPECT_EQ(spec.resolved["solver"]["preconditioner"], p.name);
    }
    EXPECT_THROW(parse_case_text("mesh: {shape: unit_square}\nsolver: {preconditioner: ilu}\n", "p", ""), CaseError);
    // What the memory estimate and format auto read: a diagonal Jacobi, multigrid's cost.
    EXPECT_TRUE(registry.at("jacobi").diagonal);
    SolverSpec solver;
    solver.amg.degree = 3;
    for (const char* multigrid : {"amg", "pmg"}) {
        const PreconditionerEntry& m = registry.at(multigrid);
        EXPECT_TRUE(m.multigrid);
        ASSERT_NE(m.fine_applies, nullptr);
        EXPECT_EQ(m.fine_applies(solver), 7);
        MatrixShape shape;
        shape.rows = 1000;
        shape.nnz = 27000;
        EXPECT_GT(m.memory(shape, false).kept, 0.0);
    }
    EXPECT_TRUE(registry.at("pmg").needs.space_hierarchy && registry.at("pmg").needs.element_operators);
}
