// Fluxes out: the flux -kappa grad u per cell and at the nodes, the flux through each boundary
// group (Dirichlet groups by the residual of the unconstrained system), the regions' integrals
// and the balance, on the CPU backend: exact for a linear solution, converging to the exact
// fluxes and integrals (computed here by Gauss quadrature of the exact solution), summing to
// the source, and written to report.json, the summary and result.vtu.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkPointData.h>
#include <vtkType.h>
#include <vtkUnstructuredGrid.h>

#include "assembly/quadrature.hpp"
#include "case_runs.hpp"
#include "fv_test_support.hpp"
#include "region_cases.hpp"
#include "run_gpufem.hpp"
#include "tests/mixed_mesh_geometries.hpp"

using namespace gpufem;
using test::run_fv_case;

namespace {

/// int_0^1 g(t) dt by 40 panels of 8-point Gauss rules.
double integrate_line(const std::function<double(double)>& g)
{
    std::vector<double> points, weights;
    gauss_jacobi(8, 0, points, weights);
    double sum = 0;
    constexpr int panels = 40;
    for (int p = 0; p < panels; ++p)
        for (std::size_t k = 0; k < points.size(); ++k)
            sum += weights[k] * 0.5 / panels * g((p + 0.5 * (points[k] + 1)) / panels);
    return sum;
}

/// int over [x0, x1] x [0, 1] of g(x, y).
double integrate_box(const std::function<double(double, double)>& g, double x0 = 0, double x1 = 1)
{
    return integrate_line([&](double s) { return (x1 - x0) * integrate_line([&](double t) { return g(x0 + (x1 - x0) * s, t); }); });
}

/// u = e^x sin(y + 1/2) (harmonic), kappa = 1 + x y, f = -grad kappa . grad u; Dirichlet on
/// left, the exact flux on right and bottom (Neumann), Robin on top (h = 2 + x).
const std::string harmonic_problem =
    "problem:\n  kappa: \"1 + x*y\"\n  f: \"-(y*exp(x)*sin(y + 0.5) + x*exp(x)*cos(y + 0.5))\"\n"
    "  exact: \"exp(x)*sin(y + 0.5)\"\n"
    "  dirichlet: {left: \"exp(x)*sin(y + 0.5)\"}\n"
    "  neumann: {right: \"(1 + x*y)*exp(x)*sin(y + 0.5)\", bottom: \"-(1 + x*y)*exp(x)*cos(y + 0.5)\"}\n"
    "  robin: {top: {h: \"2 + x\", u_inf: \"exp(x)*sin(y + 0.5) + (1 + x*y)/(2 + x)*exp(x)*cos(y + 0.5)\"}}\n";

/// The exact outward fluxes of -kappa grad u of harmonic_problem by side, and int u, int f.
std::map<std::string, double> harmonic_exact()
{
    const auto ux = [](double x, double y) { return std::exp(x) * std::sin(y + 0.5); };
    const auto uy = [](double x, double y) { return std::exp(x) * std::cos(y + 0.5); };
    const auto kappa = [](double x, double y) { return 1 + x * y; };
    return {{"left", integrate_line([&](double y) { return kappa(0, y) * ux(0, y); })},
            {"right", integrate_line([&](double y) { return -kappa(1, y) * ux(1, y); })},
            {"bottom", integrate_line([&](double x) { return kappa(x, 0) * uy(x, 0); })},
            {"top", integrate_line([&](double x) { return -kappa(x, 1) * uy(x, 1); })},
            {"u", integrate_box(ux)},
            {"f", integrate_box([&](double x, double y) { return -(y * ux(x, y) + x * uy(x, y)); })}};
}

/// The run's flux through a group.
double group_flux(const FluxReport& report, const std::string& group)
{
    for (const GroupFlux& g : report.groups)
        if (g.group == group) return g.flux;
    ADD_FAILURE() << "no flux for group " << group;
    return 0;
}

/// A field's values by name.
const HostVector<double>& field(const std::vector<MeshField>& fields, const std::string& name)
{
    for (const MeshField& f : fields)
        if (f.name == name) return f.values;
    throw std::runtime_error("no field " + name);
}

/// Expects a run's boundary fluxes (by group), balance and flux fields (each component at
/// every node and in every cell) to be the given constants.
void expect_linear_fluxes(const std::string& yaml, const std::map<std::string, double>& groups,
                          const std::vector<double>& flux, const std::filesystem::path& dir = {})
{
    SCOPED_TRACE(yaml);
    const auto run = run_fv_case(yaml, test::cpu_executor(), dir);
    ASSERT_TRUE(run->output.fluxes);
    const FluxReport& r = *run->output.fluxes;
    for (const auto& [group, value] : groups) EXPECT_NEAR(group_flux(r, group), value, 1e-9) << group;
    EXPECT_NEAR(r.imbalance(), 0, 1e-9);
    const char* names[3] = {"flux_x", "flux_y", "flux_z"};
    for (const auto* fields : {&run->output.point_fields, &run->output.cell_fields})
        for (std::size_t d = 0; d < flux.size(); ++d)
            for (double v : field(*fields, names[d])) ASSERT_NEAR(v, flux[d], 1e-8) << names[d];
}

}  // namespace

TEST(Fluxes, ALinearSolutionHasItsExactFluxEverywhere)
{
    // u = 1 + 2 x + 3 y, kappa = 2: -kappa grad u = (-4, -6) in every cell and at every node,
    // the outward fluxes 4 (left), -4 (right), 6 (bottom), -6 (top), and no source.
    const std::string problem = "problem:\n  kappa: 2\n  exact: \"1 + 2*x + 3*y\"\n"
                                "  dirichlet: {left: \"1 + 2*x + 3*y\"}\n  neumann: {right: 4, bottom: -6}\n"
                                "  robin: {top: {h: 1, u_inf: \"7 + 2*x + 3*y\"}}\n"
                                "solver: {tolerance: 1e-13}\n";
    for (const std::string& method : {"degree: 1\n", "degree: 2\nformat: lma\n", "degree: 3\n", "discretisation: fv\n"})
        for (const std::string elements : {"triangle", "quadrilateral"}) {
            if (method.find("fv") != std::string::npos && elements == "triangle") continue;  // LSQ on skewed cells
            expect_linear_fluxes("mesh: {shape: unit_square, elements: " + elements + ", size: 0.2}\n" + method + problem,
                                 {{"left", 4}, {"right", -4}, {"bottom", 6}, {"top", -6}}, {-4, -6});
        }
}

TEST(Fluxes, FieldsHeldInFloatAreTheDoubleFieldsRounded)
{
    // output.flux_precision float (the default): the flux fields are rounded to float where
    // they were computed and held in float, each value the double field's rounded (the same
    // solve on the CPU gives the same doubles); double holds them in double.
    const std::string problem = "problem:\n  kappa: \"1 + x*y\"\n  f: \"1 + x\"\n  dirichlet: {left: \"x*y\"}\n"
                                "solver: {tolerance: 1e-12}\n";
    for (const std::string& method : {"degree: 2\n", "discretisation: fv\n"}) {
        SCOPED_TRACE(method);
        const std::string yaml = "mesh: {shape: unit_square, elements: triangle, size: 0.1}\n" + method + problem;
        const auto in_double = run_fv_case(yaml + "output: {flux_precision: double}\n", test::cpu_executor());
        const auto in_float = run_fv_case(yaml + "output: {flux_precision: float}\n", test::cpu_executor());
        for (const auto member : {&SolutionOutput::point_fields, &SolutionOutput::cell_fields}) {
            std::size_t compared = 0;
            for (const MeshField& d : in_double->output.*member) {
                if (d.name.rfind("flux_", 0) != 0) continue;
                ASSERT_FALSE(d.held_in_float() || d.float32) << d.name;
                const auto f = std::find_if((in_float->output.*member).begin(), (in_float->output.*member).end(),
                                            [&](const MeshField& g) { return g.name == d.name; });
                ASSERT_NE(f, (in_float->output.*member).end()) << d.name;
                ASSERT_TRUE(f->held_in_float() && f->float32 && f->values.empty()) << d.name;
                ASSERT_EQ(f->size(), d.size());
                for (std::size_t i = 0; i < d.size(); ++i)
                    ASSERT_EQ(f->narrow[i], static_cast<float>(d.values[i])) << d.name << " " << i;
                const HostVector<double> widened = f->widened();
                EXPECT_EQ(widened[d.size() / 2], static_cast<double>(f->narrow[d.size() / 2]));
                ++compared;
            }
            EXPECT_EQ(compared, 2u);
        }
    }
}

TEST(Fluxes, ALinearSolutionHasItsExactFluxInThreeDimensionsAndOnMixedMeshes)
{
    // u = 1 + 2 x + 3 y - z, kappa = 2: -kappa grad u = (-4, -6, 2); outward fluxes 4 (left),
    // -4 (right), 6 (front), -6 (back), -2 (bottom), 2 (top). Tetrahedra and hexahedra, Gmsh's
    // prisms and its mesh of prisms, tetrahedra, pyramids and hexahedra.
    const std::string u = "\"1 + 2*x + 3*y - z\"";
    const std::string problem = "problem:\n  kappa: 2\n  exact: " + u + "\n  dirichlet: {left: " + u + "}\n"
                                "  neumann: {right: 4, front: -6, back: 6, bottom: 2}\n"
                                "  robin: {top: {h: 1, u_inf: \"-1 + 2*x + 3*y - z\"}}\nsolver: {tolerance: 1e-13}\n";
    const std::map<std::string, double> groups = {{"left", 4},     {"right", -4}, {"front", 6},
                                                  {"back", -6},    {"bottom", -2}, {"top", 2}};
    for (const std::string& elements : {"tetrahedron", "hexahedron"})
        for (const std::string& method : {"degree: 1\n", "degree: 2\n", "discretisation: fv\n"}) {
            if (method.find("fv") != std::string::npos && elements == "tetrahedron") continue;  // LSQ on skewed cells
            expect_linear_fluxes("mesh: {shape: unit_cube, elements: " + elements + ", size: 0.25}\n" + method + problem,
                                 groups, {-4, -6, 2});
        }
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    for (const auto& [name, text] : {std::pair<std::string, std::string>{"prisms.geo", test::cube_prisms(3)},
                                     {"four.geo", test::cube_four_types(6)}}) {
        std::ofstream(folder.path() / name) << text;
        for (const std::string& degree : {"1", "2"})
            expect_linear_fluxes("mesh: {geo: " + name + "}\ndegree: " + degree + "\n" + problem, groups, {-4, -6, 2},
                                 folder.path());
    }
}

TEST(Fluxes, DirichletGroupsSharingANodeAddUpExactly)
{
    // The node a corner shares counts for the later group (as its value does): each group's
    // flux is off by that node's share, their sum is exact.
    const std::string u = "\"1 + 2*x + 3*y\"";
    const auto run = run_fv_case("mesh: {shape: unit_square, elements: triangle, size: 0.2}\nproblem:\n  kappa: 2\n"
                                 "  dirichlet: {left: " + u + ", bottom: " + u + "}\n  neumann: {right: 4}\n"
                                 "  robin: {top: {h: 1, u_inf: \"7 + 2*x + 3*y\"}}\nsolver: {tolerance: 1e-13}\n",
                                 test::cpu_executor());
    const FluxReport& r = *run->output.fluxes;
    EXPECT_NEAR(group_flux(r, "left") + group_flux(r, "bottom"), 10, 1e-9);
    EXPECT_NEAR(r.imbalance(), 0, 1e-9);
}

TEST(Fluxes, FiniteVolumesSumTheFacesInNoConditionsGroupApart)
{
    // With convection the free faces (zero diffusive flux) carry the upwind flux out: reported
    // as one entry "none", without which the boundary would not balance the source.
    const auto run = run_fv_case("mesh: {shape: unit_square, elements: quadrilateral, size: 0.1}\ndiscretisation: fv\nproblem:\n"
                                 "  f: \"1 + x\"\n  convection: [1, 0.5]\n  dirichlet: {left: 1}\n"
                                 "solver: {method: bicgstab, tolerance: 1e-13}\n",
                                 test::cpu_executor());
    ASSERT_TRUE(run->solved.result.converged());
    const FluxReport& r = *run->output.fluxes;
    ASSERT_EQ(r.groups.size(), 2u);
    EXPECT_EQ(r.groups[0].group, "left");
    EXPECT_EQ(r.groups[1].condition, "none");
    EXPECT_GT(r.groups[1].flux, 1.0);  // the source (1.5) leaves mostly through the free sides
    EXPECT_LT(r.relative_imbalance(), 1e-9);
    EXPECT_NEAR(r.boundary_total(), r.total(&RegionIntegrals::source), 1e-9);
}

namespace {

/// The errors of one run of harmonic_problem against the exact values: each group's flux, int u,
/// and the largest error of the flux at the nodes (flux_x, flux_y point fields).
std::map<std::string, double> harmonic_errors(const std::string& yaml)
{
    const auto run = run_fv_case(yaml, test::cpu_executor());
    EXPECT_TRUE(run->solved.result.converged());
    const FluxReport& r = *run->output.fluxes;
    const std::map<std::string, double> exact = harmonic_exact();
    std::map<std::string, double> errors;
    for (const char* side : {"left", "right", "bottom", "top"}) errors[side] = std::abs(group_flux(r, side) - exact.at(side));
    errors["u"] = std::abs(r.total(&RegionIntegrals::u) - exact.at("u"));
    errors["f"] = std::abs(r.total(&RegionIntegrals::source) - exact.at("f"));
    errors["imbalance"] = r.relative_imbalance();
    const Mesh& mesh = run->input.mesh;
    const auto& fx = field(run->output.point_fields, "flux_x");
    const auto& fy = field(run->output.point_fields, "flux_y");
    double worst = 0;
    for (index_type i = 0; i < mesh.num_nodes() && fx.size() == static_cast<std::size_t>(mesh.num_nodes()); ++i) {
        const double x = mesh.coordinates[3 * i], y = mesh.coordinates[3 * i + 1], k = 1 + x * y;
        worst = std::max({worst, std::abs(fx[i] + k * std::exp(x) * std::sin(y + 0.5)),
                          std::abs(fy[i] + k * std::exp(x) * std::cos(y + 0.5))});
    }
    errors["field"] = worst;
    return errors;
}

/// log2 of the ratio of a quantity's errors at two successive halvings.
double rate(const std::map<std::string, double>& coarse, const std::map<std::string, double>& fine, const char* key)
{
    return std::log2(coarse.at(key) / fine.at(key));
}

}  // namespace

TEST(Fluxes, FiniteElementFluxesAndIntegralsConvergeAndBalanceTheSource)
{
    // Dirichlet groups' residual fluxes converge at least at the L2 rate k + 1 (in fact near
    // 2k), Robin's as the boundary values (k + 1), int u at k + 1, the node averages of the
    // flux at k; the boundary fluxes balance the source to the solver's tolerance.
    for (int k = 1; k <= 3; ++k) {
        std::vector<std::map<std::string, double>> levels;
        for (const double h : {0.25, 0.125, 0.0625})
            levels.push_back(harmonic_errors(fmt::format("mesh: {{shape: unit_square, elements: quadrilateral, size: {}}}\n"
                                                         "degree: {}\n{}solver: {{tolerance: 1e-13}}\n",
                                                         h, k, harmonic_problem)));
        for (std::size_t l = 1; l < levels.size(); ++l) {
            std::cout << fmt::format("[ rate     ] degree {} level {}:", k, l);
            for (const char* key : {"left", "top", "u", "field"})
                std::cout << fmt::format(" {} {:.2e} ({:.2f})", key, levels[l].at(key), rate(levels[l - 1], levels[l], key));
            std::cout << fmt::format(" right {:.1e} bottom {:.1e} imbalance {:.1e}\n", levels[l].at("right"),
                                     levels[l].at("bottom"), levels[l].at("imbalance"));
            for (const char* key : {"left", "top", "u"})
                EXPECT_GT(rate(levels[l - 1], levels[l], key), k + 1 - 0.3) << key << " degree " << k << " level " << l;
            EXPECT_GT(rate(levels[l - 1], levels[l], "field"), k - 0.3) << "degree " << k << " level " << l;
            for (const char* key : {"right", "bottom"})
                EXPECT_LT(levels[l].at(key), 1e-6) << key << ": a Neumann flux is the integral of its data";
            EXPECT_LT(levels[l].at("imbalance"), 1e-9) << "degree " << k << " level " << l;
        }
    }
}

TEST(Fluxes, FiniteVolumeFluxesConvergeAndBalanceTheSource)
{
    std::vector<std::map<std::string, double>> levels;
    for (const double h : {0.1, 0.05, 0.025})
        levels.push_back(harmonic_errors(fmt::format("mesh: {{shape: unit_square, elements: quadrilateral, size: {}}}\n"
                                                     "discretisation: fv\n{}solver: {{tolerance: 1e-13}}\n",
                                                     h, harmonic_problem)));
    for (std::size_t l = 1; l < levels.size(); ++l) {
        std::cout << fmt::format("[ rate     ] finite volumes level {}:", l);
        for (const char* key : {"left", "bottom", "top", "u"})
            std::cout << fmt::format(" {} {:.2e} ({:.2f})", key, levels[l].at(key), rate(levels[l - 1], levels[l], key));
        std::cout << fmt::format(" imbalance {:.1e}\n", levels[l].at("imbalance"));
        for (const char* key : {"left", "bottom", "top", "u"})
            EXPECT_GT(rate(levels[l - 1], levels[l], key), 0.9) << key << " level " << l;
        EXPECT_LT(levels[l].at("imbalance"), 1e-9) << "level " << l;
    }
}

TEST(Fluxes, RegionIntegralsConvergeOnEachSideOfAJump)
{
    // The piecewise-kappa problem: int u and int f over "soft" and "hard" against Gauss
    // quadrature of the exact solution and source, and the balance with the jump inside.
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const std::string geo = test::write_halves_geo(folder.path(), 2, 0.25, true);
    const auto u = [](double k) {
        return [k](double x, double y) { return (std::sin(x - 0.5) / k + 1) * std::exp(y); };
    };
    const double exact_u[2] = {integrate_box(u(1), 0, 0.5), integrate_box(u(10), 0.5, 1)};
    const double exact_f[2] = {-0.5 * (std::exp(1.0) - 1), -5 * (std::exp(1.0) - 1)};
    for (int k = 1; k <= 2; ++k) {
        double previous = 0;
        for (int refine = 0; refine < 3; ++refine) {
            const auto run = run_fv_case(fmt::format("mesh: {{geo: {}, refine: {}}}\ndegree: {}\n{}solver: {{tolerance: 1e-13}}\n",
                                                     geo, refine, k, test::piecewise_problem(2)),
                                         test::cpu_executor(), folder.path());
            const FluxReport& r = *run->output.fluxes;
            ASSERT_EQ(r.regions.size(), 2u);
            double error = 0;
            for (const RegionIntegrals& region : r.regions) {
                const int side = region.region == "soft" ? 0 : 1;
                error = std::max(error, std::abs(region.u - exact_u[side]));
                EXPECT_NEAR(region.source, exact_f[side], 1e-3 * std::abs(exact_f[side])) << region.region;
                EXPECT_NEAR(region.volume, 0.5, 1e-12) << region.region;
            }
            EXPECT_LT(r.relative_imbalance(), 1e-9);
            if (refine > 0) {
                std::cout << fmt::format("[ rate     ] regions degree {} refine {}: int u error {:.2e} (rate {:.2f})\n", k,
                                         refine, error, std::log2(previous / error));
                EXPECT_GT(std::log2(previous / error), k + 1 - 0.3) << "degree " << k << " refine " << refine;
            }
            previous = error;
        }
    }
}

TEST(Fluxes, ReportSummaryAndResultHoldThem)
{
    test::TempDir dir;
    const auto file = dir.write("flux.yaml", "mesh: {shape: unit_square, elements: triangle, size: 0.1}\ndegree: 2\n" +
                                                 harmonic_problem);
    const auto out = dir.path() / "out";
    const auto r = test::run_gpufem("run " + file.string() + " --backend cpu -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* line : {"boundary fluxes (out)", "left (dirichlet)", "top (robin)", "right (neumann)", "conservation"})
        EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
    const nlohmann::json report = test::read_json(out / "report.json");
    ASSERT_TRUE(report.contains("fluxes"));
    EXPECT_EQ(report["fluxes"]["boundary"].size(), 4u);
    EXPECT_EQ(report["fluxes"]["boundary"][0]["group"], "left");
    EXPECT_EQ(report["fluxes"]["boundary"][0]["condition"], "dirichlet");
    EXPECT_LT(std::abs(report["fluxes"]["relative_imbalance"].get<double>()), 1e-6);
    // Float32 in the file by default (u stays Float64), Float64 when asked, with the same values.
    const auto grid = test::read_vtu(out / "result.vtu");
    const auto doubled = dir.path() / "double";
    const auto d = test::run_gpufem("run " + file.string() + " --backend cpu -q --set output.flux_precision=double -o " +
                                    doubled.string());
    ASSERT_EQ(d.exit_code, 0) << d.output;
    const auto in_double = test::read_vtu(doubled / "result.vtu");
    EXPECT_EQ(grid->GetPointData()->GetArray("u")->GetDataType(), VTK_DOUBLE);
    for (const char* name : {"flux_x", "flux_y"}) {
        for (const bool points : {true, false}) {
            const auto data = [&](vtkUnstructuredGrid& g) -> vtkFieldData& {
                return points ? static_cast<vtkFieldData&>(*g.GetPointData()) : *g.GetCellData();
            };
            vtkDataArray* single = data(*grid).GetArray(name);
            vtkDataArray* full = data(*in_double).GetArray(name);
            ASSERT_NE(single, nullptr) << name;
            ASSERT_NE(full, nullptr) << name;
            EXPECT_EQ(single->GetDataType(), VTK_FLOAT) << name;
            EXPECT_EQ(full->GetDataType(), VTK_DOUBLE) << name;
            ASSERT_EQ(single->GetNumberOfTuples(), full->GetNumberOfTuples());
            for (vtkIdType i = 0; i < full->GetNumberOfTuples(); ++i)
                ASSERT_EQ(single->GetTuple1(i), static_cast<double>(static_cast<float>(full->GetTuple1(i)))) << name << " " << i;
        }
    }
    const auto quiet = test::run_gpufem("run " + file.string() + " --backend cpu -q --set output.fluxes=false -o " +
                                        (dir.path() / "none").string());
    ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
    EXPECT_FALSE(test::read_json(dir.path() / "none" / "report.json").contains("fluxes"));
}
