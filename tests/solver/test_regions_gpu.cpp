// Coefficients per region, a tensor kappa, the reaction term, a convection velocity given by
// expressions and Robin conditions on CUDA against the CPU (label gpu): whole cases through
// the pipeline (finite elements assembled and matrix-free, finite volumes) reach the CPU's
// solution, flux fields and boundary fluxes.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "assembly/coefficients.hpp"
#include "fv_test_support.hpp"
#include "gpu_test.hpp"
#include "random_values.hpp"
#include "region_cases.hpp"

using namespace gpufem;

namespace {

/// A case's solution, flux fields and boundary fluxes on exec (host copies).
struct Outcome {
    std::vector<double> u, flux_points, flux_cells, group_fluxes;
    std::vector<double> region_integrals;  ///< volume, u, f, c u, b . grad u of each region
    double flux_scale = 0;  ///< the largest boundary flux or region's source integral
};

/// max |a - b| / scale: boundary fluxes that nearly cancel (a source whose integral is about
/// zero) are compared on the scale of the sources, not on their own.
double difference_on_scale(const std::vector<double>& a, const std::vector<double>& b, double scale)
{
    double diff = 0;
    for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) diff = std::max(diff, std::abs(a[k] - b[k]));
    return diff / scale;
}

Outcome outcome_on(const ExecPtr& exec, const std::string& yaml, const std::filesystem::path& dir)
{
    const auto run = test::run_fv_case(yaml, exec, dir);
    EXPECT_TRUE(run->solved.result.converged()) << run->solved.result.message;
    Outcome out;
    out.u = run->solved.x.to_host();
    const auto append = [](const std::vector<MeshField>& fields, std::vector<double>& to) {
        for (const MeshField& f : fields)
            if (f.name.rfind("flux_", 0) == 0) to.insert(to.end(), f.values.begin(), f.values.end());
    };
    append(run->output.point_fields, out.flux_points);
    append(run->output.cell_fields, out.flux_cells);
    if (run->output.fluxes) {
        for (const GroupFlux& g : run->output.fluxes->groups) {
            out.group_fluxes.push_back(g.flux);
            out.flux_scale = std::max(out.flux_scale, std::abs(g.flux));
        }
        for (const RegionIntegrals& r : run->output.fluxes->regions) {
            out.flux_scale = std::max(out.flux_scale, std::abs(r.source));
            out.region_integrals.insert(out.region_integrals.end(),
                                        {r.volume, r.u, r.source, r.reaction, r.convection});
        }
    }
    return out;
}

}  // namespace

TEST(RegionsGpu, CasesWithEveryKindOfCoefficientGiveTheCpuSolution)
{
    GPUFEM_REQUIRE_GPU();
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    const ExecPtr cpu = Executor::create_cpu(), cuda = Executor::create_cuda();
    const std::string square = test::write_halves_geo(folder.path(), 2, 0.1, true);
    const std::string cube = test::write_halves_geo(folder.path(), 3, 0.25);
    const std::string problem = "problem:\n  kappa: {soft: {xx: \"1 + x\", xy: 0.2, yy: 2}, hard: 10}\n"
                                "  f: {soft: \"sin(3*x)\", hard: \"1 + y\"}\n  c: {soft: 0.5, hard: \"x*x\"}\n"
                                "  convection: {soft: [y, \"-x\"], hard: [1, 0.5]}\n"
                                "  robin: {boundary: {h: \"2 + x\", u_inf: \"1 - y\"}}\n";
    const std::string fv_problem = "problem:\n  kappa: {soft: 1, hard: \"10 + x\"}\n  f: {soft: \"sin(3*x)\", hard: \"1 + y\"}\n"
                                   "  c: {soft: 0.5, hard: \"x*x\"}\n  convection: [y, \"-x\"]\n"
                                   "  robin: {boundary: {h: \"2 + x\", u_inf: \"1 - y\"}}\n";
    const std::string solver = "solver: {method: bicgstab, tolerance: 1e-12}\n";
    for (const std::string& yaml :
         {"mesh: {geo: " + square + "}\ndegree: 3\n" + problem + solver,
          "mesh: {geo: " + square + "}\ndegree: 2\nformat: lma\n" + problem + solver,
          // Refined on the device: the cells' regions are read there, not uploaded.
          "mesh: {geo: " + square + ", refine: 2}\ndegree: 2\n" + problem + solver,
          "mesh: {geo: " + cube + ", refine: 1}\n" + test::piecewise_problem(3) + "solver: {tolerance: 1e-12}\n",
          "mesh: {geo: " + square + "}\ndiscretisation: fv\n" + fv_problem + solver,
          "mesh: {geo: " + cube + "}\ndegree: 2\n" + test::piecewise_problem(3) + "solver: {tolerance: 1e-12}\n",
          "mesh: {geo: " + cube + "}\ndiscretisation: fv\n" + test::piecewise_problem(3) + "solver: {tolerance: 1e-12}\n",
          // Dirichlet groups sharing nodes beside Neumann and Robin groups on generated meshes
          // (on the device already: the Dirichlet residual from every cell there).
          std::string("mesh: {shape: unit_square, elements: triangle, size: 0.05}\ndegree: 2\nproblem:\n  kappa: 2\n  f: \"1 + x\"\n") +
          "  dirichlet: {left: \"1 + y\", bottom: x}\n  neumann: {right: 4}\n  robin: {top: {h: 1, u_inf: 3}}\n"
          "solver: {tolerance: 1e-12}\n",
          std::string("mesh: {shape: unit_cube, elements: hexahedron, size: 0.125}\nproblem:\n  kappa: \"1 + x\"\n  f: 1\n") +
          "  dirichlet: {left: 0, front: y}\n  neumann: {right: -1}\nsolver: {tolerance: 1e-12}\n",
          // Q3 on the device's mesh: the residual's rows kernel skips the rows of free nodes,
          // and the flux kernels' lanes cover 64 points per cell.
          std::string("mesh: {shape: unit_cube, elements: hexahedron, size: 0.25}\ndegree: 3\nproblem:\n") +
          "  kappa: \"1 + x\"\n  f: \"1 + y\"\n  c: 0.5\n  convection: [1, 0, 0.5]\n  dirichlet: {left: 0, bottom: x}\n"
          "  neumann: {right: -1}\nsolver: {method: bicgstab, tolerance: 1e-12}\n"}) {
        const Outcome host = outcome_on(cpu, yaml, folder.path()), device = outcome_on(cuda, yaml, folder.path());
        EXPECT_LT(test::max_relative_difference(device.u, host.u), 1e-9) << yaml;
        EXPECT_LT(test::max_relative_difference(device.flux_points, host.flux_points), 1e-8) << yaml;
        EXPECT_LT(test::max_relative_difference(device.flux_cells, host.flux_cells), 1e-8) << yaml;
        ASSERT_EQ(device.group_fluxes.size(), host.group_fluxes.size()) << yaml;
        EXPECT_GT(host.flux_scale, 0.0) << yaml;
        EXPECT_LT(difference_on_scale(device.group_fluxes, host.group_fluxes, host.flux_scale), 1e-8) << yaml;
        ASSERT_EQ(device.region_integrals.size(), host.region_integrals.size()) << yaml;
        // The halves' two regions; a generated shape's one.
        EXPECT_EQ(host.region_integrals.size(), yaml.find("geo:") != std::string::npos ? 10u : 5u) << yaml;
        EXPECT_LT(difference_on_scale(device.region_integrals, host.region_integrals, host.flux_scale), 1e-8) << yaml;
    }
}

TEST(RegionsGpu, FluxFieldsHeldInFloatAreTheCpuFieldsRounded)
{
    // output.flux_precision float: the device rounds the flux fields and copies floats; each
    // value is the CPU's double field rounded, up to the solvers' difference.
    GPUFEM_REQUIRE_GPU();
    const ExecPtr cpu = Executor::create_cpu(), cuda = Executor::create_cuda();
    const std::string problem = "problem:\n  kappa: \"1 + x*y\"\n  f: \"1 + x\"\n  dirichlet: {left: \"x*y\"}\n"
                                "solver: {tolerance: 1e-12}\n";
    for (const std::string& method : {"degree: 2\n", "discretisation: fv\n"}) {
        const std::string yaml = "mesh: {shape: unit_cube, elements: tetrahedron, size: 0.1}\n" + method + problem;
        const auto host = test::run_fv_case(yaml + "output: {flux_precision: double}\n", cpu);
        const auto device = test::run_fv_case(yaml + "output: {flux_precision: float}\n", cuda);
        for (const auto member : {&SolutionOutput::point_fields, &SolutionOutput::cell_fields}) {
            int compared = 0;
            for (const MeshField& d : host->output.*member) {
                if (d.name.rfind("flux_", 0) != 0) continue;
                const auto f = std::find_if((device->output.*member).begin(), (device->output.*member).end(),
                                            [&](const MeshField& g) { return g.name == d.name; });
                ASSERT_NE(f, (device->output.*member).end()) << yaml << d.name;
                ASSERT_TRUE(f->held_in_float()) << yaml << d.name;
                ASSERT_EQ(f->size(), d.size()) << yaml << d.name;
                double scale = 0, worst = 0;
                for (std::size_t i = 0; i < d.size(); ++i) scale = std::max(scale, std::abs(d.values[i]));
                for (std::size_t i = 0; i < d.size(); ++i)
                    worst = std::max(worst, std::abs(static_cast<double>(f->narrow[i]) - d.values[i]) -
                                                std::abs(d.values[i]) * 0x1p-24);
                EXPECT_GT(scale, 0.0) << yaml << d.name;
                EXPECT_LT(worst, 1e-9 * scale) << yaml << d.name;
                ++compared;
            }
            EXPECT_EQ(compared, 3) << yaml;
        }
    }
}

TEST(RegionsGpu, TagsTheCellsHoldAreFoundOnTheDeviceAsOnTheHost)
{
    GPUFEM_REQUIRE_GPU();
    const ExecPtr cuda = Executor::create_cuda();
    const unsigned seed = test::random_seed();
    for (const int strays : {0, 5}) {
        Mesh mesh = test::mesh_with_random_regions(3000017, {1, 2, 5, 9}, strays, seed + static_cast<unsigned>(strays));
        const std::vector<int> held = test::distinct_tags(mesh.cell_group);
        const std::vector<int> candidates{0, 1, 2, 5, 9};
        const PresentTags host = present_region_tags(mesh, candidates);
        // The regions on the device, as a mesh refined there keeps them; the host's copy
        // zeroed, so that only the device's can give the tags.
        auto device = std::make_shared<MeshOnDevice>();
        device->cell_group = Array<int>::from_host(cuda, std::vector<int>(mesh.cell_group.begin(), mesh.cell_group.end()));
        mesh.device = device;
        std::fill(mesh.cell_group.begin(), mesh.cell_group.end(), 0);
        const PresentTags on_device = present_region_tags(mesh, candidates);
        EXPECT_EQ(on_device.tags, host.tags);
        EXPECT_EQ(on_device.others, host.others);
        std::vector<int> expected;
        for (const int t : held)
            if (t != 999) expected.push_back(t);
        EXPECT_EQ(on_device.tags, expected);
        EXPECT_EQ(on_device.others, strays > 0);
    }
}
