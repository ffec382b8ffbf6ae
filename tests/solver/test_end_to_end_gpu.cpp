// The same cases on the CUDA and CPU backends give the same solution (label gpu).
#include <gtest/gtest.h>

#include "gpu_test.hpp"
#include "tests/mixed_mesh_geometries.hpp"
#include "random_values.hpp"
#include "run_gpufem.hpp"

using namespace gpufem;

namespace {

struct BackendRun {
    nlohmann::json report;
    std::vector<double> u;
    std::vector<double> points;  ///< result.vtu's point coordinates, 3 per point
    std::vector<double> flux;    ///< result.vtu's point field flux_x, where it has one
};

BackendRun run_backend(const test::TempDir& dir, const std::filesystem::path& file, const std::string& backend,
                const std::string& extra)
{
    const auto out = dir.path() / backend;
    std::filesystem::remove_all(out);  // never read a previous run's report
    const auto r = test::run_gpufem("run " + file.string() + " -q --backend " + backend + " -o " +
                                    out.string() + " " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (r.exit_code != 0) return {};
    BackendRun run{test::read_json(out / "report.json"), {}};
    const auto grid = test::read_vtu(out / "result.vtu");
    auto* u = grid->GetPointData()->GetArray("u");
    auto* flux = grid->GetPointData()->GetArray("flux_x");
    for (vtkIdType i = 0; i < grid->GetNumberOfPoints(); ++i) {
        run.u.push_back(u->GetTuple1(i));
        if (flux) run.flux.push_back(flux->GetTuple1(i));
        double x[3];
        grid->GetPoint(i, x);
        run.points.insert(run.points.end(), x, x + 3);
    }
    return run;
}

}  // namespace

TEST(EndToEndGpu, CudaMatchesCpuForEveryCellTypeFormatAndPrecision)
{
    GPUFEM_REQUIRE_GPU();
    test::TempDir dir;
    const auto file = dir.write("case.yaml", R"yaml(
mesh:
  shape: unit_square
  size: 0.05
problem:
  kappa: "1 + x*y"
  f: "1 + sin(3*x)"
  exact: "0"
  dirichlet:
    left: "y"
    bottom: 0
  neumann:
    right: "x*y"
solver:
  tolerance: 1e-10
)yaml");
    for (const std::string shape_args :
         {"--set mesh.elements=triangle", "--set mesh.elements=quadrilateral",
          "--set mesh.shape=unit_cube --set mesh.elements=tetrahedron --set mesh.size=0.125",
          "--set mesh.shape=unit_cube --set mesh.elements=hexahedron --set mesh.size=0.1"}) {
        for (const std::string precision : {"double", "float"}) {
            const std::string common = shape_args + " --set precision=" + precision +
                                       (precision == "float" ? " --set solver.tolerance=1e-5" : "");
            // The CPU reference: gpufem's CSR (cuSPARSE exists only on the GPU).
            const BackendRun cpu = run_backend(dir, file, "cpu", common + " --set format=csr");
            ASSERT_FALSE(cpu.u.empty()) << common;
            {  // Without the graph every SpMV is timed between CUDA events.
                const BackendRun timed = run_backend(dir, file, "cuda", common + " --set solver.cuda_graph=off");
                EXPECT_EQ(timed.report["spmv"]["clock"], "CUDA events");
                EXPECT_EQ(timed.report["spmv"]["count"].get<int>(),
                          timed.report["solver"]["iterations"].get<int>());
                EXPECT_FALSE(timed.report["solver"]["cuda_graph"].get<bool>());
            }
            for (const std::string format : {"csr", "csr-scalar", "ell", "ellr", "sellp", "bdia",
                                             "staircase", "cusparse", "cusparse-sell", "lma"}) {
                const std::string extra = common + " --set format=" + format;
                const BackendRun gpu = run_backend(dir, file, "cuda", extra);
                ASSERT_EQ(cpu.u.size(), gpu.u.size()) << extra;
                EXPECT_EQ(gpu.report["backend"], "cuda");
                // Small systems: the merged iterations are replayed from a CUDA graph, which
                // every format's SpMV must allow (staircase's streams and lma's colours too).
                EXPECT_TRUE(gpu.report["solver"]["cuda_graph"].get<bool>()) << extra;
                double diff = 0, scale = 0;
                for (std::size_t i = 0; i < cpu.u.size(); ++i) {
                    diff = std::max(diff, std::abs(cpu.u[i] - gpu.u[i]));
                    scale = std::max(scale, std::abs(cpu.u[i]));
                }
                EXPECT_LT(diff / scale, precision == "double" ? 1e-8 : 1e-3) << extra;
                EXPECT_NEAR(cpu.report["solver"]["iterations"].get<int>(),
                            gpu.report["solver"]["iterations"].get<int>(), precision == "double" ? 2 : 10)
                    << extra;
            }
        }
    }
}

TEST(EndToEndGpu, DegreesFiveToEightSolveMatrixFreeAsOnTheCpu)
{
    // Quadrilaterals and hexahedra with GLL nodes, format pa with pmg (and a float cycle):
    // the CPU's solution and iterations, and the CPU's result.vtu (VTK's equispaced nodes; on
    // the GPU the equispaced mesh is written during the solve).
    GPUFEM_REQUIRE_GPU();
    test::TempDir dir;
    const auto file = dir.write("case.yaml", R"yaml(
mesh: {shape: unit_square, elements: quadrilateral, size: 0.125}
problem:
  kappa: "1 + x*y"
  f: "1 + sin(3*x)"
  dirichlet: {left: "y", bottom: 0}
  neumann: {right: "x*y"}
format: pa
solver: {preconditioner: pmg, tolerance: 1e-11}
)yaml");
    for (const std::string args :
         {"--set degree=5", "--set degree=6", "--set degree=7", "--set degree=8",
          "--set degree=8 --set solver.amg.precision=float",
          "--set degree=5 --set mesh.shape=unit_cube --set mesh.elements=hexahedron --set mesh.size=0.25",
          "--set degree=6 --set mesh.shape=unit_cube --set mesh.elements=hexahedron --set mesh.size=0.25",
          "--set degree=7 --set mesh.shape=unit_cube --set mesh.elements=hexahedron --set mesh.size=0.5",
          "--set degree=8 --set mesh.shape=unit_cube --set mesh.elements=hexahedron --set mesh.size=0.5"}) {
        SCOPED_TRACE(args);
        const BackendRun cpu = run_backend(dir, file, "cpu", args);
        const BackendRun gpu = run_backend(dir, file, "cuda", args);
        ASSERT_FALSE(cpu.u.empty());
        ASSERT_EQ(cpu.u.size(), gpu.u.size());
        double diff = 0, scale = 0;
        for (std::size_t i = 0; i < cpu.u.size(); ++i) {
            diff = std::max(diff, std::abs(cpu.u[i] - gpu.u[i]));
            scale = std::max(scale, std::abs(cpu.u[i]));
        }
        EXPECT_LT(diff / scale, 1e-9);
        ASSERT_EQ(cpu.points.size(), gpu.points.size());
        double moved = 0;
        for (std::size_t i = 0; i < cpu.points.size(); ++i) moved = std::max(moved, std::abs(cpu.points[i] - gpu.points[i]));
        EXPECT_LT(moved, 1e-12);
        // The node-averaged flux (Float32 in the file), converted to the equispaced points on
        // the device on the GPU, on the host on the CPU.
        ASSERT_EQ(cpu.flux.size(), cpu.u.size());
        ASSERT_EQ(gpu.flux.size(), cpu.flux.size());
        EXPECT_LT(test::max_relative_difference(gpu.flux, cpu.flux), 2e-6);
        EXPECT_NEAR(cpu.report["solver"]["iterations"].get<int>(), gpu.report["solver"]["iterations"].get<int>(), 1);
        EXPECT_EQ(gpu.report["format"], "pa");
    }
}

TEST(EndToEndGpu, MixedMeshesSolveAsOnTheCpu)
{
    // Elements of degree 1 to 3 on triangles + quadrilaterals, prisms alone and prisms +
    // tetrahedra + pyramids + hexahedra (one element kernel a type, the pattern of the whole mesh,
    // Neumann on the cubes' left: triangles and quadrilaterals), in both precisions, with
    // 64-bit row offsets, with AMG, with pmg (down the degrees, each cell's type's transfer) and
    // matrix-free (lma, one operator a type): the CPU's solution.
    GPUFEM_REQUIRE_GPU();
    test::TempDir dir;
    dir.write("four.geo", test::cube_four_types(10));
    dir.write("prisms.geo", test::cube_prisms(6));
    dir.write("square.geo", test::square_triangles_quadrilaterals(16));
    // Degree 1, and the highest each takes at this size: prisms 3, the four types 2.
    for (const auto& [geo, degree] : {std::pair<std::string, int>{"four.geo", 1}, {"prisms.geo", 1}, {"square.geo", 1},
                                      {"four.geo", 2}, {"prisms.geo", 3}, {"square.geo", 3}}) {
        const bool plane = geo == "square.geo";
        const auto file = dir.write("case.yaml", "mesh:\n  geo: " + (dir.path() / geo).string() + R"yaml(
problem:
  kappa: "1 + x*y*z"
  f: "1 + sin(3*x)"
  dirichlet:
    right: "y"
    top: 0
  neumann:
)yaml" + std::string(plane ? "    left: \"x*y\"\n" : "    left: \"x*y\"\n    bottom: 1\n") + R"yaml(solver:
  tolerance: 1e-10
degree: )yaml" + std::to_string(degree) + "\n");
        const BackendRun cpu = run_backend(dir, file, "cpu", "");
        ASSERT_FALSE(cpu.u.empty()) << geo;
        for (const std::string extra : {"", "--set precision=float --set solver.tolerance=1e-5",
                                        "--set format_options.csr.offsets=64", "--set solver.preconditioner=amg",
                                        "--set solver.preconditioner=pmg", "--set format=lma",
                                        "--set format=lma --set format_options.lma.scatter=colour"}) {
            const BackendRun gpu = run_backend(dir, file, "cuda", extra);
            ASSERT_EQ(cpu.u.size(), gpu.u.size()) << geo << " degree " << degree << " " << extra;
            double diff = 0, scale = 0;
            for (std::size_t i = 0; i < cpu.u.size(); ++i) {
                diff = std::max(diff, std::abs(cpu.u[i] - gpu.u[i]));
                scale = std::max(scale, std::abs(cpu.u[i]));
            }
            EXPECT_LT(diff / scale, extra.find("float") != std::string::npos ? 1e-3 : 1e-8)
                << geo << " degree " << degree << " " << extra;
            // The boundary fluxes (the Dirichlet groups' from the residual, computed on the
            // device block by block) equal the CPU's to the solver's tolerance.
            const auto& cpu_groups = cpu.report["fluxes"]["boundary"];
            const auto& gpu_groups = gpu.report["fluxes"]["boundary"];
            ASSERT_EQ(cpu_groups.size(), gpu_groups.size()) << geo;
            if (extra.find("float") != std::string::npos) continue;
            for (std::size_t g = 0; g < cpu_groups.size(); ++g) {
                EXPECT_EQ(cpu_groups[g]["group"], gpu_groups[g]["group"]);
                EXPECT_NEAR(cpu_groups[g]["flux"].get<double>(), gpu_groups[g]["flux"].get<double>(),
                            1e-7 * (1.0 + std::abs(cpu_groups[g]["flux"].get<double>())))
                    << geo << " degree " << degree << " " << extra << " group " << cpu_groups[g]["group"];
            }
        }
    }
}

// The device side of the memory estimate: within 20% of the measured device peak (gpufem's
// allocations) for every format on the device, and with multigrid.
TEST(EndToEndGpu, CoefficientSweepUpdatesTheHierarchyOnTheDeviceAsOnTheCpu)
{
    // A kappa sweep with amg and with pmg (csr, degree 2) on both backends: on cuda the later
    // points run on the first one's executor with its mesh and update its hierarchy; every
    // point's solution equals the CPU's point to the tolerance.
    GPUFEM_REQUIRE_GPU();
    test::TempDir dir;
    const auto file = dir.write("kappas.yaml", R"yaml(
mesh: {shape: unit_cube, elements: hexahedron, size: 0.1}
problem:
  kappa: ["1", "1 + 10*x*y", "exp(2*z)"]
  f: "1 + x"
  dirichlet: {left: 0, right: "y*z"}
solver: {preconditioner: amg, tolerance: 1e-10}
)yaml");
    for (const std::string extra : {"", "--set degree=2 --set solver.preconditioner=pmg"}) {
        std::vector<std::vector<double>> solutions[2];
        for (int b = 0; b < 2; ++b) {
            const std::string backend = b == 0 ? "cpu" : "cuda";
            const auto out = dir.path() / backend;
            std::filesystem::remove_all(out);
            const auto r = test::run_gpufem("run " + file.string() + " -q --backend " + backend + " -o " +
                                            out.string() + " " + extra);
            ASSERT_EQ(r.exit_code, 0) << backend << " " << extra << ": " << r.output;
            const auto report = test::read_json(out / "report.json");
            ASSERT_EQ(report["sweep"].size(), 3u);
            for (int k = 0; k < 3; ++k) {
                EXPECT_EQ(report["sweep"][k]["preconditioner"], k > 0 ? "updated" : "set up") << backend << " " << k;
                const auto grid = test::read_vtu(out / ("d" + std::string(extra.empty() ? "1" : "2") + "_r0_k" +
                                                        std::to_string(k)) / "result.vtu");
                auto* u = grid->GetPointData()->GetArray("u");
                std::vector<double> values;
                for (vtkIdType i = 0; i < grid->GetNumberOfPoints(); ++i) values.push_back(u->GetTuple1(i));
                solutions[b].push_back(std::move(values));
            }
        }
        for (int k = 0; k < 3; ++k)
            EXPECT_LT(test::max_relative_difference(solutions[1][k], solutions[0][k]), 1e-8) << extra << " k" << k;
    }
}

TEST(EndToEndGpu, MemoryEstimateWithinTwentyPercentOfTheDevicePeak)
{
    GPUFEM_REQUIRE_GPU();
    test::TempDir dir;
    const auto file = dir.write("cube.yaml", R"yaml(
mesh:
  shape: unit_cube
  size: 0.0125
problem:
  kappa: "1 + x*y*z"
  f: "1 + sin(3*x)"
  dirichlet:
    left: 0
    right: "y"
solver:
  tolerance: 1e-8
  max_iterations: 30
backend: cuda
output:
  write: false
)yaml");
    for (const std::string args :
         {"--set format=csr", "--set format=csr-scalar", "--set format=ell", "--set format=ellr",
          "--set format=sellp", "--set format=staircase", "--set format=cusparse",
          "--set format=cusparse-sell", "--set format=lma",
          "--set format=lma --set format_options.lma.symmetric=true",
          "--set format=lma --set format_options.lma.symmetric=true --set solver.preconditioner=pmg",
          "--set solver.preconditioner=jacobi --set solver.method=bicgstab",
          "--set solver.preconditioner=amg", "--set precision=float --set solver.tolerance=1e-6",
          "--set degree=2 --set mesh.size=0.025", "--set degree=2 --set mesh.size=0.025 --set solver.preconditioner=pmg",
          "--set mesh.shape=unit_square --set mesh.size=0.002 --set format=bdia",
          "--set discretisation=fv --set mesh.elements=tetrahedron --set solver.preconditioner=amg",
          "--set discretisation=fv --set mesh.size=0.00625"}) {
        SCOPED_TRACE(args);
        const auto out = dir.path() / "out";
        std::filesystem::remove_all(out);
        const auto r = test::run_gpufem("run " + file.string() + " -q -o " + out.string() + " " + args);
        ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.output;
        const nlohmann::json memory = test::read_json(out / "report.json")["memory"];
        const double estimate = memory["peak_estimate"]["device"];
        const double measured = memory["peak_measured"]["device"];
        std::printf("%-75s device estimate %8.1f MB, measured %8.1f MB (%+5.1f%%)\n", args.c_str(),
                    estimate / 1e6, measured / 1e6, 100 * (estimate / measured - 1));
        EXPECT_GE(estimate, 0.8 * measured);
        EXPECT_LE(estimate, 1.2 * measured);
    }
}
