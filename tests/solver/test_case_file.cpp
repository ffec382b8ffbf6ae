// The case file: a full case, defaults, paths, --set overrides and every kind of error message.
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <chrono>

#include "assembly/lma_operator.hpp"
#include "linalg/bdia.hpp"
#include "mesh/mesh_source.hpp"
#include "linalg/csr_tuned_operator.hpp"
#include "linalg/sellp.hpp"
#include "linalg/staircase.hpp"
#include "solver/case/case_file.hpp"

namespace {

namespace fs = std::filesystem;
using gpufem::CaseError;
using gpufem::CaseSpec;
using gpufem::MeshSpec;
using gpufem::parse_case_file;
using gpufem::parse_case_text;
using namespace gpufem;

/// A fresh folder under the system temp folder, removed at the end of the test.
class CaseFileTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        std::random_device device;
        dir_ = fs::temp_directory_path() / ("gpufem_case_test_" + std::to_string(device()));
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    /// Writes text to dir_/relative (creating folders) and returns the path.
    fs::path write(const std::string& relative, const std::string& text) const
    {
        const fs::path path = dir_ / relative;
        fs::create_directories(path.parent_path());
        std::ofstream(path) << text;
        return path;
    }

    fs::path dir_;
};

/// The CaseError message of parsing text as "case.yaml" ("" if it parses).
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {})
{
    try {
        parse_case_text(text, "case.yaml", "", overrides);
    } catch (const CaseError& error) {
        return error.what();
    }
    return "";
}

/// Expects message to contain every one of parts.
void expect_contains(const std::string& message, std::initializer_list<std::string> parts)
{
    EXPECT_FALSE(message.empty()) << "no error was thrown";
    for (const std::string& part : parts) {
        EXPECT_NE(message.find(part), std::string::npos)
            << "message: " << message << "\nlacks: " << part;
    }
}

const std::string minimal = "mesh: {shape: unit_square}\n";

TEST_F(CaseFileTest, FullCaseParses)
{
    write("meshes/square.msh", "dummy\n");
    const fs::path path = write("case.yaml", R"YAML(# a full case
mesh:
  file: meshes/square.msh
  refine: 2
degree: 1
problem:
  kappa: 2.5
  f: "2*pi^2*sin(pi*x)*sin(pi*y)"
  exact: "sin(pi*x)*sin(pi*y)"
  dirichlet:
    left: 0
    boundary: "x + y"
  neumann:
    right: 1
format: csr-scalar
solver:
  method: cg
  tolerance: 1e-10
  max_iterations: 500
precision: float
backend: cpu
)YAML");
    const CaseSpec spec = parse_case_file(path);
    EXPECT_EQ(spec.case_path, path);
    EXPECT_EQ(spec.name, "case");
    EXPECT_EQ(spec.mesh.kind, MeshSpec::Kind::file);
    EXPECT_EQ(spec.mesh.path, (dir_ / "meshes/square.msh").string());
    EXPECT_EQ(spec.mesh.refine, 2);
    EXPECT_EQ(spec.mesh.degree, 1);
    EXPECT_EQ(spec.problem.kappa, "2.5");
    EXPECT_EQ(spec.problem.f, "2*pi^2*sin(pi*x)*sin(pi*y)");
    EXPECT_EQ(spec.problem.exact, "sin(pi*x)*sin(pi*y)");
    ASSERT_EQ(spec.problem.dirichlet.size(), 2u);
    EXPECT_EQ(spec.problem.dirichlet[0].group, "left");
    EXPECT_EQ(spec.problem.dirichlet[0].expression, "0");
    EXPECT_EQ(spec.problem.dirichlet[1].group, "boundary");
    EXPECT_EQ(spec.problem.dirichlet[1].expression, "x + y");
    ASSERT_EQ(spec.problem.neumann.size(), 1u);
    EXPECT_EQ(spec.problem.neumann[0].group, "right");
    EXPECT_EQ(spec.problem.neumann[0].expression, "1");
    EXPECT_EQ(spec.format, "csr-scalar");
    EXPECT_EQ(spec.solver.method, KrylovMethod::cg);
    EXPECT_DOUBLE_EQ(spec.solver.tolerance, 1e-10);
    EXPECT_EQ(spec.solver.max_iterations, 500);
    EXPECT_EQ(spec.precision, Precision::float32);
    EXPECT_EQ(spec.backend, BackendChoice::cpu);

    const nlohmann::json& resolved = spec.resolved;
    EXPECT_EQ(resolved["mesh"]["file"], (dir_ / "meshes/square.msh").string());
    EXPECT_EQ(resolved["mesh"]["refine"], 2);
    EXPECT_FALSE(resolved["mesh"].contains("size"));
    EXPECT_EQ(resolved["problem"]["kappa"], "2.5");
    EXPECT_EQ(resolved["problem"]["dirichlet"][1]["group"], "boundary");
    EXPECT_EQ(resolved["problem"]["dirichlet"][1]["expression"], "x + y");
    EXPECT_EQ(resolved["problem"]["neumann"][0]["group"], "right");
    EXPECT_EQ(resolved["solver"]["tolerance"], 1e-10);
    EXPECT_EQ(resolved["precision"], "float");
}

TEST(CaseFile, TheFusedDotCanBeTurnedOff)
{
    EXPECT_TRUE(parse_case_text(minimal, "case.yaml", "").solver.fused_dot);
    const CaseSpec off = parse_case_text(minimal + "solver: {fused_dot: false}\n", "case.yaml", "");
    EXPECT_FALSE(off.solver.fused_dot);
    EXPECT_EQ(off.resolved["solver"]["fused_dot"], false);
    EXPECT_FALSE(parse_case_text(minimal, "case.yaml", "", {"solver.fused_dot=false"}).solver.fused_dot);
    expect_contains(error_of(minimal + "solver: {fused_dot: sometimes}\n"), {"case.yaml:2", "fused_dot"});
}

TEST(CaseFile, DefaultsAreFilledIn)
{
    const CaseSpec spec = parse_case_text(minimal, "square.yaml", "");
    EXPECT_EQ(spec.name, "square");
    EXPECT_EQ(spec.mesh.kind, MeshSpec::Kind::shape);
    EXPECT_EQ(spec.mesh.shape, "unit_square");
    EXPECT_EQ(spec.mesh.elements, "quadrilateral");
    EXPECT_DOUBLE_EQ(spec.mesh.size, 0.1);
    EXPECT_EQ(spec.mesh.refine, 0);
    EXPECT_EQ(spec.mesh.degree, 1);
    EXPECT_EQ(spec.problem.kappa, "1");
    EXPECT_EQ(spec.problem.f, "0");
    EXPECT_EQ(spec.problem.exact, "");
    EXPECT_TRUE(spec.problem.dirichlet.empty());
    EXPECT_TRUE(spec.problem.neumann.empty());
    EXPECT_EQ(spec.format, "csr");
    EXPECT_EQ(spec.solver.method, KrylovMethod::cg);
    EXPECT_DOUBLE_EQ(spec.solver.tolerance, 1e-8);
    EXPECT_EQ(spec.solver.max_iterations, 10000);
    EXPECT_EQ(spec.precision, Precision::float64);
    EXPECT_EQ(spec.backend, BackendChoice::automatic);

    const nlohmann::json expected = nlohmann::json::parse(R"({
        "mesh": {"shape": "unit_square", "elements": "quadrilateral", "size": 0.1, "refine": 0,
                 "size_scales_with_degree": false},
        "degree": 1,
        "discretisation": "fe",
        "problem": {"kappa": "1", "f": "0", "c": "0", "exact": null, "convection": null, "dirichlet": [],
                    "neumann": [], "robin": []},
        "format": "csr",
        "format_options": {"csr": {"coop": 0, "repeat": 0, "block": 0, "tune": true, "offsets": "auto"},
                           "sellp": {"slice": 32, "threads_per_row": 0, "sigma": 1},
                           "bdia": {"max_bytes": 0, "gap": 2, "shared_bytes": 49152, "l2_window": false},
                           "staircase": {"alpha": 0.01, "slice_height": 32, "streams": true,
                                         "order": "cm", "block": 256},
                           "cusparse-sell": {"slice": 32},
                           "lma": {"scatter": "atomic", "symmetric": false, "kernel": "auto"}},
        "solver": {"method": "cg", "variant": "merged", "preconditioner": "none",
                   "tolerance": 1e-8, "max_iterations": 10000, "check_every": 10,
                   "cuda_graph": "auto", "time_spmv": true, "fused_dot": true,
                   "fused_direction": false, "resident_cg": "off",
                   "amg": {"strength_threshold": 0.02, "smoother": "chebyshev", "degree": 2,
                           "coarse_size": 500, "max_levels": 25, "cycle": "v",
                           "aggregation": "distance2", "gather_rows": 200000, "precision": "double",
                           "prolongator": "full", "pa_coarse": "factors", "eigen_steps": 10,
                           "coarsening": "aggregation", "classical_threshold": 0.25,
                           "interpolation_entries": 4, "through_degree_two": false}},
        "precision": "double",
        "reorder": "none",
        "backend": "auto",
        "output": {"compression": "lz4", "write": true, "fluxes": true, "flux_precision": "float"}})");
    EXPECT_EQ(spec.resolved, expected) << spec.resolved.dump(2);
}

TEST(CaseFile, EmptySectionsMeanDefaults)
{
    const CaseSpec spec = parse_case_text(minimal + "problem:\nsolver:\n", "case.yaml", "");
    EXPECT_EQ(spec.problem.kappa, "1");
    EXPECT_EQ(spec.solver.max_iterations, 10000);
}

TEST(CaseFile, ShapeElementsAndAliases)
{
    EXPECT_EQ(parse_case_text("mesh: {shape: unit_cube}", "c", "").mesh.elements, "hexahedron");
    EXPECT_EQ(parse_case_text("mesh: {shape: disk, elements: tri}", "c", "").mesh.elements, "triangle");
    EXPECT_EQ(parse_case_text("mesh: {shape: l_shape, elements: quad}", "c", "").mesh.elements,
              "quadrilateral");
    EXPECT_EQ(parse_case_text("mesh: {shape: unit_cube, elements: tet}", "c", "").mesh.elements,
              "tetrahedron");
    const CaseSpec hex = parse_case_text("mesh: {shape: unit_cube, elements: hex, size: 0.25}", "c", "");
    EXPECT_EQ(hex.mesh.elements, "hexahedron");
    EXPECT_DOUBLE_EQ(hex.mesh.size, 0.25);
    EXPECT_EQ(hex.resolved["mesh"]["elements"], "hexahedron");
}

TEST_F(CaseFileTest, MeshPathsResolveAgainstTheCaseFolder)
{
    write("meshes/a.msh", "dummy\n");
    write("meshes/b.geo", "// dummy\n");
    const fs::path path = write("cases/sub/case.yaml", "mesh:\n  file: ../../meshes/a.msh\n");
    const CaseSpec spec = parse_case_file(path);
    EXPECT_EQ(spec.mesh.path, (dir_ / "meshes/a.msh").string());

    const CaseSpec text = parse_case_text("mesh: {geo: meshes/b.geo, size: 0.2}", "t.yaml", dir_);
    EXPECT_EQ(text.mesh.kind, MeshSpec::Kind::geo);
    EXPECT_EQ(text.mesh.path, (dir_ / "meshes/b.geo").string());
    EXPECT_DOUBLE_EQ(text.mesh.size, 0.2);
    EXPECT_EQ(text.resolved["mesh"]["geo"], (dir_ / "meshes/b.geo").string());

    const std::string absolute = (dir_ / "meshes/a.msh").string();
    const CaseSpec abs = parse_case_text("mesh: {file: '" + absolute + "'}", "t.yaml", "/elsewhere");
    EXPECT_EQ(abs.mesh.path, absolute);

    const CaseSpec geo = parse_case_text("mesh: {geo: meshes/b.geo}", "t.yaml", dir_);
    EXPECT_DOUBLE_EQ(geo.mesh.size, 0.0);  // the .geo file's own sizes
    EXPECT_TRUE(geo.resolved["mesh"]["size"].is_null());
}

TEST(CaseFile, OverridesSetNumbersAndCreateMaps)
{
    const CaseSpec spec = parse_case_text(
        minimal, "case.yaml", "",
        {"mesh.refine=3", "solver.tolerance=1e-10", "solver.max_iterations=50", "problem.f=sin(pi*x)",
         "format=cusparse", "mesh.elements=tri"});
    EXPECT_EQ(spec.mesh.refine, 3);
    EXPECT_DOUBLE_EQ(spec.solver.tolerance, 1e-10);
    EXPECT_EQ(spec.solver.max_iterations, 50);
    EXPECT_EQ(spec.problem.f, "sin(pi*x)");
    EXPECT_EQ(spec.format, "cusparse");
    EXPECT_EQ(spec.mesh.elements, "triangle");
    EXPECT_EQ(spec.resolved["mesh"]["refine"], 3);
    EXPECT_EQ(spec.resolved["solver"]["max_iterations"], 50);
}

TEST(CaseFile, OverridesAddAndReplaceBoundaryConditions)
{
    const std::string text = minimal + "problem:\n  dirichlet:\n    left: 0\n    right: 1\n";
    const CaseSpec spec = parse_case_text(text, "case.yaml", "",
                                          {"problem.dirichlet.left=2", "problem.dirichlet.top=x*y",
                                           "problem.neumann.bottom=3"});
    ASSERT_EQ(spec.problem.dirichlet.size(), 3u);
    EXPECT_EQ(spec.problem.dirichlet[0].group, "left");  // replaced in place
    EXPECT_EQ(spec.problem.dirichlet[0].expression, "2");
    EXPECT_EQ(spec.problem.dirichlet[1].group, "right");
    EXPECT_EQ(spec.problem.dirichlet[2].group, "top");  // added last
    EXPECT_EQ(spec.problem.dirichlet[2].expression, "x*y");
    ASSERT_EQ(spec.problem.neumann.size(), 1u);
    EXPECT_EQ(spec.problem.neumann[0].group, "bottom");
}

TEST(CaseFile, OverrideCanReplaceAWholeMap)
{
    const CaseSpec spec = parse_case_text(minimal, "case.yaml", "", {"mesh={shape: unit_cube, refine: 1}"});
    EXPECT_EQ(spec.mesh.shape, "unit_cube");
    EXPECT_EQ(spec.mesh.refine, 1);
}

TEST(CaseFile, BadOverridesNameTheOverride)
{
    expect_contains(error_of(minimal, {"mesh.refine"}),
                    {"--set mesh.refine", "malformed override", "key=value"});
    expect_contains(error_of(minimal, {"=3"}), {"--set =3", "empty"});
    expect_contains(error_of(minimal, {"mesh..refine=3"}), {"--set mesh..refine=3", "empty segment"});
    expect_contains(error_of(minimal, {"mesh.shape.x=1"}),
                    {"--set mesh.shape.x=1", "'mesh.shape'", "not a map"});
    expect_contains(error_of(minimal, {"problem.f=[1,"}), {"--set problem.f=[1,", "not valid YAML"});
}

TEST(CaseFile, ErrorsInOverriddenValuesNameTheOverride)
{
    const std::string refine = error_of(minimal, {"mesh.refine=abc"});
    expect_contains(refine, {"--set mesh.refine=abc: mesh.refine: expected an integer >= 0, got 'abc'"});
    EXPECT_EQ(refine.find("case.yaml"), std::string::npos) << refine;

    expect_contains(error_of(minimal, {"solver.tol=1"}),
                    {"--set solver.tol=1: solver.tol: unknown key 'tol'", "tolerance"});
    expect_contains(error_of(minimal, {"problem.dirichlet.left=sin("}),
                    {"--set problem.dirichlet.left=sin(: problem.dirichlet.left: invalid expression 'sin('"});
    expect_contains(error_of(minimal, {"degree=9"}), {"--set degree=9: degree:", "from 1 to 8"});
}

TEST(CaseFile, MalformedYamlGivesTheLine)
{
    expect_contains(error_of("mesh:\n  shape: unit_square\n  refine: [1,\nformat: csr\n"),
                    {"case.yaml:", "invalid YAML"});
    expect_contains(error_of("mesh: {shape: unit_square}\n refine: 2\n"),
                    {"case.yaml:2: invalid YAML"});
}

// Found by fuzzing (libFuzzer, tests/fuzz/fuzz_case_file): a ',' that starts no node made
// yaml-cpp 0.7's LoadAll loop forever, eating memory. It is an error naming the line now.
TEST(CaseFile, AStrayCommaIsAnErrorNotAHang)
{
    expect_contains(error_of("# The L-shaped domain\n, tolerance: 1e-10\n"),
                    {"case.yaml:2: invalid YAML", "starts no key or value"});
    expect_contains(error_of(","), {"case.yaml:1: invalid YAML"});
    expect_contains(error_of(minimal + ", solver: {}\n"), {"case.yaml:", "invalid YAML"});
}

TEST(CaseFile, EmptyAndNonMapFilesAreRejected)
{
    expect_contains(error_of(""), {"case.yaml", "empty"});
    expect_contains(error_of("# only a comment\n"), {"case.yaml", "empty"});
    expect_contains(error_of("- a\n- b\n"), {"case.yaml:1", "expected a map", "got a list"});
    expect_contains(error_of("hello\n"), {"case.yaml:1", "expected a map", "got a scalar"});
    expect_contains(error_of(minimal + "---\n" + minimal), {"case.yaml:", "one YAML document"});
}

TEST(CaseFile, MissingCaseFile)
{
    try {
        parse_case_file("/nonexistent/folder/case.yaml");
        FAIL() << "no error";
    } catch (const CaseError& error) {
        EXPECT_STREQ(error.what(), "case file '/nonexistent/folder/case.yaml' not found");
    }
}

TEST(CaseFile, UnknownKeysNameKeyLineAndValidKeys)
{
    expect_contains(error_of(minimal + "formt: csr\n"),
                    {"case.yaml:2: formt: unknown key 'formt'",
                     "valid keys: mesh, matrix, degree, problem, discretisation, fv, format, reorder, auto_iterations, format_options, solver, precision, backend, output",
                     "did you mean 'format'?"});
    expect_contains(error_of("mesh:\n  shape: unit_square\n  sise: 0.1\n"),
                    {"case.yaml:3: mesh.sise: unknown key 'sise'", "file, geo, shape, elements, size, refine",
                     "did you mean 'size'?"});
    expect_contains(error_of(minimal + "solver:\n  method: cg\n  precondition: jacobi\n"),
                    {"case.yaml:4: solver.precondition: unknown key", "did you mean 'preconditioner'",
                     "method, variant, preconditioner, tolerance"});
    expect_contains(error_of(minimal + "problem:\n  g: 1\n"), {"case.yaml:3: problem.g: unknown key 'g'"});
}

TEST(CaseFile, DuplicateKeysAreRejected)
{
    expect_contains(error_of(minimal + "format: csr\nformat: cusparse\n"),
                    {"case.yaml:3: format: duplicate key (first given at line 2)"});
}

TEST(CaseFile, WrongTypesNameKeyLineAndExpectation)
{
    expect_contains(error_of("mesh:\n  shape: unit_square\n  refine: abc\n"),
                    {"case.yaml:3: mesh.refine: expected an integer >= 0, got 'abc'"});
    expect_contains(error_of("mesh:\n  shape: unit_square\n  refine: -1\n"),
                    {"case.yaml:3: mesh.refine: expected an integer >= 0, got '-1'"});
    expect_contains(error_of("mesh:\n  shape: unit_square\n  refine: 1.5\n"),
                    {"mesh.refine: expected an integer >= 0, got '1.5'"});
    expect_contains(error_of(minimal + "solver:\n  tolerance: [1]\n"),
                    {"case.yaml:3: solver.tolerance: expected a number > 0 and < 1, got a list"});
    expect_contains(error_of(minimal + "solver:\n  tolerance: 2\n"),
                    {"case.yaml:3: solver.tolerance: expected a number > 0 and < 1, got '2'"});
    expect_contains(error_of(minimal + "solver:\n  max_iterations: 0\n"),
                    {"case.yaml:3: solver.max_iterations: expected an integer > 0, got '0'"});
    expect_contains(error_of(minimal + "solver: cg\n"),
                    {"case.yaml:2: solver: expected a map with keys method, variant, preconditioner, tolerance, "
                     "max_iterations, check_every, cuda_graph, time_spmv, fused_dot, fused_direction, resident_cg, amg, "
                     "got 'cg'"});
    expect_contains(error_of("mesh:\n  shape: unit_square\n  size: -0.1\n"),
                    {"case.yaml:3: mesh.size: expected a number > 0, got '-0.1'"});
    expect_contains(error_of(minimal + "problem:\n  f: [1, 2]\n"),
                    {"case.yaml:3: problem.f: expected a number or an expression of x, y, z, got a list"});
    expect_contains(error_of(minimal + "problem:\n  f: {a: [1]}\n"),
                    {"case.yaml:3: problem.f.a: expected a number or an expression of x, y, z, got a list"});
}

TEST(CaseFile, BadChoicesListTheValidOnes)
{
    expect_contains(error_of(minimal + "format: ellpack\n"),
                    {"case.yaml:2: format: expected one of csr, csr-scalar, ell, ellr, sellp, bdia, "
                     "staircase, cusparse, cusparse-sell, lma, pa, auto, got 'ellpack'"});
    expect_contains(error_of(minimal + "precision: half\n"),
                    {"case.yaml:2: precision: expected one of double, float, got 'half'"});
    expect_contains(error_of(minimal + "backend: gpu\n"),
                    {"case.yaml:2: backend: expected one of auto, cpu, cuda, got 'gpu'"});
    expect_contains(error_of(minimal + "solver: {method: gmres}\n"),
                    {"case.yaml:2: solver.method: expected one of cg, bicgstab, got 'gmres'"});
    expect_contains(error_of(minimal + "solver: {resident_cg: always}\n"),
                    {"case.yaml:2: solver.resident_cg: expected one of auto, on, off, got 'always'"});
    expect_contains(error_of(minimal + "solver: {method: bicgstab, variant: single_reduction}\n"),
                    {"case.yaml:2: solver.variant: single_reduction is a variant of CG; with "
                     "solver.method: bicgstab use merged or reference"});
    expect_contains(error_of("mesh:\n  shape: sphere\n"),
                    {"case.yaml:2: mesh.shape: expected one of unit_square, unit_cube, l_shape, disk, got 'sphere'"});
    expect_contains(error_of("mesh:\n  shape: unit_square\n  elements: prism\n"),
                    {"case.yaml:3: mesh.elements: expected one of triangle, quadrilateral, tetrahedron, "
                     "hexahedron, got 'prism'"});
    expect_contains(error_of("mesh:\n  shape: unit_square\n  elements: hex\n"),
                    {"case.yaml:3: mesh.elements: 'hexahedron' does not fit the 2D shape 'unit_square'"});
}

TEST(CaseFile, AmgOptionsAreReadAndCheckedWithTheirLine)
{
    const CaseSpec spec = parse_case_text(
        minimal + "solver:\n  preconditioner: amg\n  amg: {strength_threshold: 0.1, smoother: jacobi, "
                  "degree: 3, coarse_size: 100, max_levels: 4, aggregation: distance1, gather_rows: 5000, "
                  "precision: float, prolongator: filtered, pa_coarse: assembled, eigen_steps: 12}\n",
        "case.yaml", "");
    EXPECT_EQ(spec.solver.preconditioner, &preconditioner_registry().at("amg"));
    EXPECT_DOUBLE_EQ(spec.solver.amg.strength_threshold, 0.1);
    EXPECT_EQ(spec.solver.amg.smoother, gpufem::AmgSmoother::jacobi);
    EXPECT_EQ(spec.solver.amg.degree, 3);
    EXPECT_EQ(spec.solver.amg.coarse_size, 100);
    EXPECT_EQ(spec.solver.amg.max_levels, 4);
    EXPECT_EQ(spec.solver.amg.aggregation, gpufem::AmgAggregation::distance1);
    EXPECT_EQ(spec.solver.amg.gather_rows, 5000);
    EXPECT_EQ(spec.solver.amg.precision, gpufem::AmgPrecision::single);
    EXPECT_EQ(spec.resolved["solver"]["amg"]["precision"], "float");
    expect_contains(error_of(minimal + "solver:\n  amg:\n    precision: half\n"),
                    {"case.yaml:4: solver.amg.precision: expected one of double, float, got 'half'"});
    EXPECT_EQ(spec.resolved["solver"]["amg"]["smoother"], "jacobi");
    EXPECT_EQ(spec.resolved["solver"]["amg"]["aggregation"], "distance1");
    EXPECT_EQ(spec.solver.amg.prolongator, gpufem::AmgProlongator::filtered);
    EXPECT_EQ(spec.resolved["solver"]["amg"]["prolongator"], "filtered");
    EXPECT_EQ(spec.solver.amg.pa_coarse, gpufem::AmgPaCoarse::assembled);
    EXPECT_EQ(spec.resolved["solver"]["amg"]["pa_coarse"], "assembled");
    expect_contains(error_of(minimal + "solver:\n  amg:\n    pa_coarse: stored\n"),
                    {"case.yaml:4: solver.amg.pa_coarse: expected one of factors, assembled, got 'stored'"});
    expect_contains(error_of(minimal + "solver:\n  amg:\n    prolongator: smoothed\n"),
                    {"case.yaml:4: solver.amg.prolongator: expected one of full, filtered, got 'smoothed'"});
    expect_contains(error_of(minimal + "solver:\n  amg:\n    aggregation: distance3\n"),
                    {"case.yaml:4: solver.amg.aggregation: expected one of distance2, distance1, got 'distance3'"});
    expect_contains(error_of(minimal + "solver:\n  amg:\n    smoother: sor\n"),
                    {"case.yaml:4: solver.amg.smoother: expected one of chebyshev, jacobi, got 'sor'"});
    expect_contains(error_of(minimal + "solver:\n  amg:\n    strength_threshold: 1.5\n"),
                    {"case.yaml:4: solver.amg.strength_threshold: expected a number >= 0 and < 1"});
    expect_contains(error_of(minimal + "solver:\n  amg:\n    coarse_size: 5000\n"),
                    {"case.yaml:4: solver.amg.coarse_size: expected an integer from 1 to 2048"});
    EXPECT_EQ(spec.solver.amg.eigen_steps, 12);
    EXPECT_EQ(spec.resolved["solver"]["amg"]["eigen_steps"], 12);
    expect_contains(error_of(minimal + "solver:\n  amg:\n    eigen_steps: 2\n"),
                    {"case.yaml:4: solver.amg.eigen_steps: expected an integer from 3 to 50"});
    EXPECT_FALSE(spec.solver.amg.through_degree_two);
    const CaseSpec two = parse_case_text(minimal + "solver:\n  amg: {through_degree_two: true}\n", "case.yaml", "");
    EXPECT_TRUE(two.solver.amg.through_degree_two);
    EXPECT_EQ(two.resolved["solver"]["amg"]["through_degree_two"], true);
    expect_contains(error_of(minimal + "solver:\n  amg:\n    through_degree_two: 2\n"),
                    {"case.yaml:4: solver.amg.through_degree_two: expected one of true, false, got '2'"});
    const CaseSpec classical = parse_case_text(
        minimal + "solver:\n  amg: {coarsening: classical, classical_threshold: 0.4, interpolation_entries: 0}\n",
        "case.yaml", "");
    EXPECT_EQ(classical.solver.amg.coarsening, gpufem::AmgCoarsening::classical);
    EXPECT_DOUBLE_EQ(classical.solver.amg.classical_threshold, 0.4);
    EXPECT_EQ(classical.solver.amg.interpolation_entries, 0);
    EXPECT_EQ(classical.resolved["solver"]["amg"]["coarsening"], "classical");
    expect_contains(error_of(minimal + "solver:\n  amg:\n    coarsening: ruge\n"),
                    {"case.yaml:4: solver.amg.coarsening: expected one of aggregation, classical, got 'ruge'"});
    expect_contains(error_of(minimal + "solver:\n  amg:\n    classical_threshold: 0\n"),
                    {"case.yaml:4: solver.amg.classical_threshold: expected a number > 0 and < 1"});
    expect_contains(error_of(minimal + "solver:\n  amg:\n    interpolation_entries: -1\n"),
                    {"case.yaml:4: solver.amg.interpolation_entries"});
    expect_contains(error_of(minimal + "solver:\n  amg:\n    gather_rows: 0\n"),
                    {"case.yaml:4: solver.amg.gather_rows"});
    expect_contains(error_of(minimal + "solver:\n  amg:\n    levels: 3\n"),
                    {"case.yaml:4: solver.amg.levels", "strength_threshold, smoother, degree, "
                                                       "coarse_size, max_levels"});
}

TEST(CaseFile, MeshSourceErrors)
{
    expect_contains(error_of("degree: 1\n"), {"case.yaml:1: mesh: required key missing"});
    expect_contains(error_of("mesh:\n  refine: 1\n"),
                    {"case.yaml:1: mesh: expected exactly one of file, geo, shape"});
    expect_contains(error_of("mesh:\n  shape: unit_square\n  geo: a.geo\n"),
                    {"case.yaml:3: mesh.geo: 'shape' and 'geo' are both given",
                     "expected exactly one of file, geo, shape"});
    expect_contains(error_of("mesh:\n  file: missing/square.msh\n"),
                    {"case.yaml:2: mesh.file: file 'missing/square.msh' not found"});
    expect_contains(error_of("mesh:\n  geo: nothing.geo\n"),
                    {"case.yaml:2: mesh.geo: file 'nothing.geo' not found"});
}

TEST(CaseFile, MeshTimeLimit)
{
    EXPECT_EQ(parse_case_text(minimal, "case.yaml", "").mesh.time_limit, 1800.0);
    EXPECT_EQ(parse_case_text("mesh: {shape: disk, time_limit: 2.5}\n", "case.yaml", "").mesh.time_limit,
              2.5);
    expect_contains(error_of("mesh:\n  shape: disk\n  time_limit: 0\n"),
                    {"case.yaml:3: mesh.time_limit", "expected seconds > 0, got '0'"});
    expect_contains(error_of("mesh:\n  shape: disk\n  time_limit: soon\n"),
                    {"case.yaml:3: mesh.time_limit"});
}

TEST(CaseFile, MeshScriptTimeLimit)
{
    const std::string geo = "mesh:\n  geo: " + std::string(GPUFEM_SOURCE_DIR) + "/cases/meshes/cube.geo\n";
    EXPECT_EQ(parse_case_text(geo, "case.yaml", "").mesh.script_time_limit, 60.0);
    EXPECT_EQ(parse_case_text(geo + "  script_time_limit: 5\n", "case.yaml", "").mesh.script_time_limit, 5.0);
    expect_contains(error_of(geo + "  script_time_limit: -1\n"),
                    {"case.yaml:3: mesh.script_time_limit", "expected seconds > 0, got '-1'"});
    expect_contains(error_of("mesh:\n  shape: disk\n  script_time_limit: 5\n"),
                    {"case.yaml:3: mesh.script_time_limit", "only valid with mesh.geo"});
}

TEST(CaseFile, MeshQualityBounds)
{
    const std::string geo = "mesh:\n  geo: " + std::string(GPUFEM_SOURCE_DIR) + "/cases/meshes/cube.geo\n";
    const CaseSpec defaults = parse_case_text(geo, "case.yaml", "");
    EXPECT_EQ(defaults.mesh.min_quality, 1e-8);
    EXPECT_EQ(defaults.mesh.warn_quality, 1e-3);
    const CaseSpec set = parse_case_text(geo + "  min_quality: 0\n  warn_quality: 0.01\n", "case.yaml", "");
    EXPECT_EQ(set.mesh.min_quality, 0.0);
    EXPECT_EQ(set.mesh.warn_quality, 0.01);
    expect_contains(error_of(geo + "  min_quality: 1.5\n"),
                    {"case.yaml:3: mesh.min_quality", "expected a quality from 0 to 1", "got '1.5'"});
    expect_contains(error_of(geo + "  min_quality: 0.1\n  warn_quality: 0.01\n"),
                    {"case.yaml:3: mesh.min_quality", "(0.1) must not exceed mesh.warn_quality (0.01)"});
    expect_contains(error_of("mesh:\n  shape: unit_cube\n  warn_quality: 0.1\n"),
                    {"case.yaml:3: mesh.warn_quality", "only valid with mesh.file and mesh.geo"});
}

TEST(CaseFile, MeshGeometryOrder)
{
    EXPECT_EQ(parse_case_text(minimal, "case.yaml", "").mesh.geometry_order, 0);  // the default rule
    EXPECT_EQ(parse_case_text("mesh: {shape: disk, geometry_order: 3}\n", "case.yaml", "").mesh.geometry_order, 3);
    expect_contains(error_of("mesh:\n  shape: unit_cube\n  geometry_order: 2\n"),
                    {"case.yaml:3: mesh.geometry_order", "only valid with meshes from Gmsh",
                     "'unit_cube' straight-sided"});
    expect_contains(error_of("mesh:\n  shape: disk\n  geometry_order: 5\n"),
                    {"case.yaml:3: mesh.geometry_order", "from 1 to 4"});
    expect_contains(error_of("mesh:\n  shape: disk\n  geometry_order: 0\n"),
                    {"case.yaml:3: mesh.geometry_order"});
}

TEST(CaseFile, MeshGmshThreads)
{
    // Meshes from Gmsh: all of the host's threads by default (the mesh cache repeats a mesh).
    EXPECT_EQ(parse_case_text("mesh: {shape: disk}\n", "case.yaml", "").mesh.gmsh_threads, 0);
    EXPECT_EQ(parse_case_text("mesh: {shape: disk, gmsh_threads: 1}\n", "case.yaml", "").mesh.gmsh_threads, 1);
    EXPECT_EQ(parse_case_text("mesh: {shape: disk, gmsh_threads: 0}\n", "case.yaml", "").mesh.gmsh_threads, 0);
    expect_contains(error_of("mesh:\n  shape: unit_cube\n  gmsh_threads: 4\n"),
                    {"case.yaml:3: mesh.gmsh_threads", "only valid with meshes from Gmsh"});
    expect_contains(error_of("mesh:\n  shape: disk\n  gmsh_threads: -1\n"), {"case.yaml:3: mesh.gmsh_threads"});
}

TEST_F(CaseFileTest, MeshCacheIsOnForMeshFilesUnlessTurnedOff)
{
    write("part.geo", "Point(1) = {0, 0, 0};\n");
    const std::string geo = "mesh:\n  geo: part.geo\n";
    EXPECT_TRUE(parse_case_text(geo, "case.yaml", dir_).mesh.cache);
    EXPECT_FALSE(parse_case_text(geo + "  cache: false\n", "case.yaml", dir_).mesh.cache);
    EXPECT_TRUE(parse_case_text(geo + "  cache: true\n", "case.yaml", dir_).mesh.cache);
    EXPECT_FALSE(parse_case_text(geo, "case.yaml", dir_, {"mesh.cache=false"}).mesh.cache);  // --no-mesh-cache
    // Built-in shapes are never cached; the key is accepted there so that --no-mesh-cache fits
    // every case.
    EXPECT_FALSE(parse_case_text("mesh: {shape: disk}\n", "case.yaml", "").mesh.cache);
    EXPECT_FALSE(parse_case_text("mesh: {shape: disk, cache: true}\n", "case.yaml", "").mesh.cache);
    EXPECT_FALSE(parse_case_text(minimal, "case.yaml", "", {"mesh.cache=false"}).mesh.cache);
    expect_contains(error_of("mesh:\n  shape: disk\n  cache: maybe\n"), {"case.yaml:3: mesh.cache"});
}

TEST_F(CaseFileTest, MissingMeshFileNamesTheResolvedPath)
{
    const fs::path path = write("case.yaml", "mesh:\n  file: gone.msh\n");
    try {
        parse_case_file(path);
        FAIL() << "no error";
    } catch (const CaseError& error) {
        expect_contains(error.what(), {path.string() + ":2: mesh.file: file 'gone.msh' not found",
                                       (dir_ / "gone.msh").string()});
    }
}

TEST_F(CaseFileTest, OptionsThatDoNotFitTheMeshSource)
{
    write("a.msh", "dummy\n");
    const auto error = [this](const std::string& text) {
        try {
            parse_case_text(text, "case.yaml", dir_);
        } catch (const CaseError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    expect_contains(error("mesh:\n  file: a.msh\n  elements: tri\n"),
                    {"case.yaml:3: mesh.elements: only valid with mesh.shape"});
    expect_contains(error("mesh:\n  file: a.msh\n  size: 0.1\n"),
                    {"case.yaml:3: mesh.size: only valid with mesh.geo or mesh.shape"});
}

TEST(CaseFile, BadExpressionsNameKeyAndLine)
{
    expect_contains(error_of(minimal + "problem:\n  kappa: 1\n  f: \"sin(\"\n"),
                    {"case.yaml:4: problem.f: invalid expression 'sin(':", "position"});
    expect_contains(error_of(minimal + "problem:\n  exact: t*x\n"),
                    {"case.yaml:3: problem.exact: invalid expression 't*x':", "\"t\""});
    expect_contains(error_of(minimal + "problem:\n  dirichlet:\n    left: 0\n    right: u + 1\n"),
                    {"case.yaml:5: problem.dirichlet.right: invalid expression 'u + 1'"});
    expect_contains(error_of(minimal + "problem:\n  neumann:\n    top: foo(x)\n"),
                    {"case.yaml:4: problem.neumann.top: invalid expression 'foo(x)'"});
    expect_contains(error_of(minimal + "problem:\n  kappa:\n"),
                    {"case.yaml:3: problem.kappa: expected a number or an expression of x, y, z, got nothing"});
}

TEST(CaseFile, ProblemValueChecks)
{
    expect_contains(error_of(minimal + "problem:\n  kappa: 0\n"),
                    {"case.yaml:3: problem.kappa: expected kappa > 0, got '0'"});
    expect_contains(error_of(minimal + "problem:\n  dirichlet: {left: 0}\n  neumann: {left: 1}\n"),
                    {"case.yaml:4: problem.neumann.left: group 'left' also has a Dirichlet condition"});
    // A non-constant kappa is checked when the case runs, not here.
    EXPECT_EQ(parse_case_text(minimal + "problem: {kappa: 1 + x^2}\n", "c", "").problem.kappa, "1 + x^2");
}

TEST(CaseFile, DegreesAndRefinementsMaySweep)
{
    const CaseSpec one = parse_case_text(minimal + "degree: 3\n", "case.yaml", ".");
    EXPECT_EQ(one.mesh.degree, 3);
    EXPECT_FALSE(gpufem::is_sweep(one));
    const CaseSpec sweep = parse_case_text(
        "mesh: {shape: unit_square, refine: [0, 2]}\ndegree: [1, 2, 4]\n", "case.yaml", ".");
    EXPECT_TRUE(gpufem::is_sweep(sweep));
    EXPECT_EQ(sweep.resolved["degree"], nlohmann::json::parse("[1, 2, 4]"));
    const auto runs = gpufem::expand_sweep(sweep);
    ASSERT_EQ(runs.size(), 6u);
    EXPECT_EQ(runs[3].mesh.degree, 2);
    EXPECT_EQ(runs[3].mesh.refine, 2);
    EXPECT_EQ(runs[3].resolved["mesh"]["refine"], 2);
    EXPECT_EQ(runs[3].resolved["degree"], 2);
    expect_contains(error_of(minimal + "degree: 9\n"),
                    {"case.yaml:2: degree: expected an integer from 1 to 8, got 9"});
    expect_contains(error_of(minimal + "degree: [1, x]\n"), {"degree[1]", "expected an integer > 0, got 'x'"});
    expect_contains(error_of(minimal + "degree: []\n"), {"degree", "non-empty list"});
    expect_contains(error_of("mesh: {shape: unit_square, refine: [0, -1]}\n"), {"mesh.refine[1]"});
    expect_contains(error_of(minimal + "degree: two\n"),
                    {"case.yaml:2: degree: expected an integer > 0, got 'two'"});
}

TEST(CaseFile, KappaListsAreACoefficientSweep)
{
    const CaseSpec sweep = parse_case_text(
        "mesh: {shape: unit_square, refine: [0, 1]}\nproblem: {kappa: [1, \" 1 + x*y \", exp(y)]}\n", "case.yaml", ".");
    EXPECT_TRUE(gpufem::is_sweep(sweep));
    EXPECT_EQ(sweep.kappas, (std::vector<std::string>{"1", "1 + x*y", "exp(y)"}));
    EXPECT_EQ(sweep.problem.kappa, "1");
    EXPECT_EQ(sweep.resolved["problem"]["kappa"], nlohmann::json::parse(R"j(["1", "1 + x*y", "exp(y)"])j"));
    // kappa innermost: the points of one mesh follow each other.
    const auto runs = gpufem::expand_sweep(sweep);
    ASSERT_EQ(runs.size(), 6u);
    for (std::size_t k = 0; k < runs.size(); ++k) {
        EXPECT_EQ(runs[k].mesh.refine, static_cast<int>(k / 3)) << k;
        EXPECT_EQ(runs[k].kappa_index, static_cast<int>(k % 3)) << k;
        EXPECT_EQ(runs[k].problem.kappa, sweep.kappas[k % 3]) << k;
        EXPECT_EQ(runs[k].kappas.size(), 1u) << k;
        EXPECT_EQ(runs[k].resolved["problem"]["kappa"], sweep.kappas[k % 3]) << k;
        EXPECT_FALSE(gpufem::is_sweep(runs[k])) << k;
    }
    const CaseSpec one = parse_case_text(minimal + "problem: {kappa: [2]}\n", "case.yaml", ".");
    EXPECT_FALSE(gpufem::is_sweep(one));
    EXPECT_EQ(one.problem.kappa, "2");
    expect_contains(error_of(minimal + "problem: {kappa: []}\n"), {"problem.kappa", "non-empty list"});
    expect_contains(error_of(minimal + "problem:\n  kappa: [1, -2]\n"),
                    {"case.yaml:3: problem.kappa: expected kappa > 0, got '-2' (entry 1)"});
    expect_contains(error_of(minimal + "problem:\n  kappa: [x, 1, x]\n"), {"problem.kappa[2]", "'x' is listed twice"});
    expect_contains(error_of(minimal + "problem:\n  kappa: [1, t*x]\n"), {"problem.kappa[1]", "invalid expression 't*x'"});
    std::string many = "problem:\n  kappa: [";
    for (int k = 1; k <= 65; ++k) many += (k > 1 ? ", " : "") + std::to_string(k);
    expect_contains(error_of(minimal + many + "]\n"), {"problem.kappa", "a list of 65 entries; at most 64"});
}

TEST(CaseFile, ReferenceDocumentsEveryKey)
{
    const std::string reference = gpufem::case_file_reference();
    for (const char* key : {"mesh:", "file:", "geo:", "shape:", "elements:", "size:", "refine:", "degree:",
                            "problem:", "kappa:", "f:", "exact:", "dirichlet:", "neumann:", "format:",
                            "solver:", "method:", "tolerance:", "max_iterations:", "precision:",
                            "backend:", "--set"}) {
        EXPECT_NE(reference.find(key), std::string::npos) << key;
    }
}

TEST(CaseFile, ReferenceExampleParses)
{
    const std::string reference = gpufem::case_file_reference();
    const std::size_t start = reference.find("Example:\n");
    ASSERT_NE(start, std::string::npos);
    std::string example;
    std::istringstream lines(reference.substr(start + 9));
    for (std::string line; std::getline(lines, line);) {
        example += (line.size() >= 2 ? line.substr(2) : line) + "\n";  // drop the indent
    }
    const CaseSpec spec = parse_case_text(example, "example.yaml", "");
    EXPECT_EQ(spec.mesh.shape, "unit_square");
    EXPECT_EQ(spec.problem.exact, "sin(pi*x)*sin(pi*y)");
    ASSERT_EQ(spec.problem.dirichlet.size(), 1u);
    EXPECT_DOUBLE_EQ(spec.solver.tolerance, 1e-10);
}

TEST(CaseFile, DocsHoldTheReference)
{
    // docs/case-reference.md holds the text `gpufem run --help` prints: the case-file keys (the
    // formats and their options come from the registry) and the built-in shapes. When this
    // fails, regenerate the page with scripts/case_reference.sh.
    std::ifstream in(std::string(GPUFEM_SOURCE_DIR) + "/docs/case-reference.md");
    std::stringstream page;
    page << in.rdbuf();
    EXPECT_NE(page.str().find("```\n" + gpufem::case_file_reference() + "```\n"), std::string::npos)
        << "docs/case-reference.md's case reference differs from case_file_reference(): run "
           "scripts/case_reference.sh";
    EXPECT_NE(page.str().find("```\n" + gpufem::describe_shapes() + "```\n"), std::string::npos)
        << "docs/case-reference.md's built-in shapes differ from describe_shapes(): run "
           "scripts/case_reference.sh";
}

TEST(CaseFile, ExpressionTextIsTrimmed)
{
    const CaseSpec spec = parse_case_text(minimal + "problem:\n  f: >\n    sin(x)\n", "c.yaml", "");
    EXPECT_EQ(spec.problem.f, "sin(x)");
}

}  // namespace

TEST(CaseFile, FormatOptionsAreReadAndChecked)
{
    const std::string minimal = "mesh: {shape: unit_square}\n";
    const CaseSpec spec = parse_case_text(
        minimal + "format: sellp\nformat_options:\n  csr: {coop: 8, repeat: 2, block: 256, tune: false}\n"
                  "  sellp: {slice: 64, threads_per_row: 4, sigma: 128}\n  bdia: {max_bytes: 1e9}\n"
                  "  staircase: {alpha: 0.05, slice_height: 16, streams: false}\n"
                  "  lma: {scatter: colour, symmetric: true, kernel: twin}\n",
        "case.yaml", ".");
    const gpufem::FormatOptions& o = spec.format_options;
    const auto csr = o.get<CsrOptions>("csr");
    EXPECT_EQ(csr.coop, 8);
    EXPECT_EQ(csr.repeat, 2);
    EXPECT_EQ(csr.block, 256);
    EXPECT_FALSE(csr.tune);
    const auto sellp = o.get<SellpOptions>("sellp");
    EXPECT_EQ(sellp.slice, 64);
    EXPECT_EQ(sellp.threads_per_row, 4);
    EXPECT_EQ(sellp.sigma, 128);
    EXPECT_EQ(o.get<BdiaOptions>("bdia").max_bytes, 1000000000u);
    const auto staircase = o.get<StaircaseOptions>("staircase");
    EXPECT_DOUBLE_EQ(staircase.alpha, 0.05);
    EXPECT_EQ(staircase.slice_height, 16);
    EXPECT_FALSE(staircase.streams);
    const auto lma = o.get<LmaOptions>("lma");
    EXPECT_EQ(lma.scatter, LmaScatter::colour);
    EXPECT_TRUE(lma.symmetric);
    EXPECT_EQ(lma.kernel, LmaKernel::twin);
    EXPECT_EQ(spec.resolved["format_options"]["sellp"]["sigma"], 128);
    EXPECT_EQ(spec.resolved["format_options"]["lma"]["kernel"], "twin");
    expect_contains(error_of(minimal + "format_options:\n  csr:\n    coop: 3\n"),
                    {"case.yaml:4: format_options.csr.coop: expected a power of two from 1 to 32, got 3"});
    expect_contains(error_of(minimal + "format_options:\n  csr: {block: 100}\n"),
                    {"format_options.csr.block", "multiple of 32"});
    expect_contains(error_of(minimal + "format_options:\n  staircase: {streams: maybe}\n"),
                    {"format_options.staircase.streams", "true, false"});
    expect_contains(error_of(minimal + "format_options:\n  staircase: {alpha: 2}\n"),
                    {"format_options.staircase.alpha", "[0, 1)"});
    expect_contains(error_of(minimal + "format_options:\n  sellp: {slices: 3}\n"),
                    {"unknown key 'slices'", "did you mean 'slice'"});
    expect_contains(error_of(minimal + "format_options:\n  lma: {kernel: warp}\n"),
                    {"format_options.lma.kernel", "auto, cell, tile, twin"});
    expect_contains(error_of(minimal + "format_options:\n  ell: {x: 1}\n"), {"unknown key 'ell'"});
}

TEST(CaseFile, FlatFormatOptionsAreStillReadWithAWarning)
{
    // The keys of earlier versions, directly under format_options, go to every format that
    // has them (slice: sellp and cusparse-sell).
    const std::string minimal = "mesh: {shape: unit_square}\n";
    const CaseSpec spec = parse_case_text(
        minimal + "format_options:\n  coop: 8\n  slice: 64\n  alpha: 0.05\n  symmetric: true\n",
        "case.yaml", ".");
    EXPECT_EQ(spec.format_options.get<CsrOptions>("csr").coop, 8);
    EXPECT_EQ(spec.format_options.get<SellpOptions>("sellp").slice, 64);
    EXPECT_EQ(spec.format_options.get<CusparseSellOptions>("cusparse-sell").slice, 64);
    EXPECT_DOUBLE_EQ(spec.format_options.get<StaircaseOptions>("staircase").alpha, 0.05);
    EXPECT_TRUE(spec.format_options.get<LmaOptions>("lma").symmetric);
    expect_contains(error_of(minimal + "format_options:\n  coop: 3\n"),
                    {"case.yaml:3: format_options.coop: expected a power of two from 1 to 32, got 3"});
    expect_contains(error_of(minimal + "format_options:\n  slices: 3\n"),
                    {"unknown key 'slices'", "did you mean 'slice'"});
    expect_contains(error_of(minimal + "format_options:\n  coop: 4\n  csr: {repeat: 2}\n"),
                    {"format_options.csr is given too"});
}

TEST(CaseFile, OutputSectionIsReadAndChecked)
{
    const std::string minimal = "mesh: {shape: unit_square}\n";
    const CaseSpec defaults = parse_case_text(minimal, "case.yaml", ".");
    EXPECT_EQ(defaults.output.compression, VtuCompression::lz4);
    EXPECT_TRUE(defaults.output.write_solution);
    const CaseSpec spec =
        parse_case_text(minimal + "output: {compression: zlib, write: false}\n", "case.yaml", ".");
    EXPECT_EQ(spec.output.compression, VtuCompression::zlib);
    EXPECT_FALSE(spec.output.write_solution);
    EXPECT_EQ(spec.resolved["output"]["compression"], "zlib");
    expect_contains(error_of(minimal + "output: {compression: gzip}\n"),
                    {"case.yaml:2: output.compression", "lz4, zlib, none"});
    expect_contains(error_of(minimal + "output: {writes: false}\n"), {"unknown key 'writes'"});
    EXPECT_EQ(defaults.output.flux_precision, Precision::float32);
    const CaseSpec full = parse_case_text(minimal + "output: {flux_precision: double}\n", "case.yaml", ".");
    EXPECT_EQ(full.output.flux_precision, Precision::float64);
    EXPECT_EQ(full.resolved["output"]["flux_precision"], "double");
    expect_contains(error_of(minimal + "output: {flux_precision: half}\n"),
                    {"case.yaml:2: output.flux_precision", "double, float"});
}

TEST(CaseFile, OutputFluxesFollowWriteUnlessChosen)
{
    const std::string minimal = "mesh: {shape: unit_square}\n";
    EXPECT_TRUE(parse_case_text(minimal, "case.yaml", ".").output.fluxes);
    EXPECT_FALSE(parse_case_text(minimal + "output: {write: false}\n", "case.yaml", ".").output.fluxes);
    const CaseSpec chosen = parse_case_text(minimal + "output: {write: false, fluxes: true}\n", "case.yaml", ".");
    EXPECT_TRUE(chosen.output.fluxes);
    EXPECT_EQ(chosen.resolved["output"]["fluxes"], true);
    EXPECT_FALSE(parse_case_text(minimal + "output: {fluxes: false}\n", "case.yaml", ".").output.fluxes);
    expect_contains(error_of(minimal + "output: {fluxes: sometimes}\n"),
                    {"case.yaml:2: output.fluxes", "auto, true, false"});
}

TEST(CaseFile, BackendOverrideKeepsTheFileValidated)
{
    // --backend replaces the case's backend after the file was checked: a bad value in the
    // file is still an error.
    const std::string minimal = "mesh: {shape: unit_square}\n";
    expect_contains(error_of(minimal + "backend: gpu\n"), {"backend", "auto, cpu, cuda"});
    CaseSpec spec = parse_case_text(minimal + "backend: cuda\n", "case.yaml", ".");
    set_backend(spec, BackendChoice::cpu);
    EXPECT_EQ(spec.backend, BackendChoice::cpu);
    EXPECT_EQ(spec.resolved["backend"], "cpu");
}

TEST(CaseFile, HugeAndRepeatingListsAreRefused)
{
    // A 10 MB list used to hang (the sweep expansion); now its length is checked first.
    std::string huge = "mesh: {shape: unit_square}\ndegree: [";
    for (int i = 0; i < 2000000; ++i) huge += i ? ", 1" : "1";
    huge += "]\n";
    const auto start = std::chrono::steady_clock::now();
    expect_contains(error_of(huge), {"case.yaml:2", "degree", "a list of 2000000 entries",
                                     "at most 8 distinct integers from 1 to 8"});
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
    expect_contains(error_of(minimal + "degree: [1, 2, 1]\n"), {"degree[2]", "1 is listed twice"});
    expect_contains(error_of("mesh: {shape: unit_square, refine: [0, 1, 1]}\n"),
                    {"refine[2]", "1 is listed twice"});
}

TEST(CaseFile, ClearMessagesForTabsTernariesInSetAndUnknownFunctions)
{
    expect_contains(error_of("mesh: {shape: unit_square}\n\tdegree: 2\n"),
                    {"case.yaml:2", "line 2 has a tab character: YAML indents with spaces only"});
    // An unquoted ternary in --set is the expression it looks like, not a YAML map.
    const CaseSpec spec = parse_case_text(minimal, "case.yaml", "", {"problem.f=x < 0.5 ? 1 : 2"});
    EXPECT_EQ(spec.problem.f, "x < 0.5 ? 1 : 2");
    expect_contains(error_of(minimal + "problem:\n  f: \"foo(x) + sin(y)\"\n"),
                    {"problem.f", "unknown function 'foo'", "functions: sin cos"});
}

TEST(CaseFile, ErrorsFoundAfterReadingNameTheKeysLine)
{
    const CaseSpec spec = parse_case_text(
        "mesh:\n  shape: unit_square\nproblem:\n  f: 1\n  dirichlet:\n    boundry: 0\n", "case.yaml", "");
    const std::string found = "problem.dirichlet.boundry: mesh shape unit_square has no boundary group 'boundry'";
    EXPECT_EQ(locate_case_error(spec, found), "case.yaml:6: " + found);
    EXPECT_EQ(locate_case_error(spec, "sweep point degree 1, refine 0: " + found),
              "sweep point degree 1, refine 0: case.yaml:6: " + found);
    EXPECT_EQ(locate_case_error(spec, "case.yaml:6: " + found), "case.yaml:6: " + found);  // located once
    EXPECT_EQ(locate_case_error(spec, "out of memory"), "out of memory");
    EXPECT_EQ(locate_case_error(spec, "see xproblem.dirichlet.boundry: x"), "see xproblem.dirichlet.boundry: x");
    const CaseSpec set = parse_case_text("mesh:\n  shape: unit_square\n", "case.yaml", "",
                                         {"problem.dirichlet.wall=1"});
    EXPECT_EQ(locate_case_error(set, "problem.dirichlet.wall: no such group"),
              "--set problem.dirichlet.wall=1: problem.dirichlet.wall: no such group");
}
