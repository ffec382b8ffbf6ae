// Finite volumes on CUDA against the CPU reference (label gpu): face adjacency, geometry,
// matrix, right-hand side, corrected right-hand side and fluxes of a random solution, on
// freshly jittered grids of every cell type with random coefficients; and a whole
// unstructured case (corrections, errors) on both backends.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "assembly/fv_discretisation.hpp"
#include "mesh/cell_faces.hpp"
#include "../assembly/simple_meshes.hpp"
#include "../mesh/mesh_test_support.hpp"
#include "fv_test_support.hpp"
#include "gpu_test.hpp"
#include "random_values.hpp"

using namespace gpufem;

namespace {

template <typename T>
double max_difference(const std::vector<T>& a, const std::vector<T>& b)
{
    EXPECT_EQ(a.size(), b.size());
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
        scale = std::max(scale, std::abs(double(b[i])));
    }
    return worst / std::max(scale, 1e-300);
}

/// The fluxes of the same solution on two backends: the groups' fluxes and the regions'
/// integrals in the same order, the cell and point fields, all within 1e-12 relative.
void expect_same_fluxes(const SolutionFluxes& host, const SolutionFluxes& device)
{
    ASSERT_EQ(host.report.groups.size(), device.report.groups.size());
    double scale = 0;
    for (const GroupFlux& g : host.report.groups) scale += std::abs(g.flux);
    for (std::size_t k = 0; k < host.report.groups.size(); ++k) {
        EXPECT_EQ(host.report.groups[k].group, device.report.groups[k].group);
        EXPECT_EQ(host.report.groups[k].condition, device.report.groups[k].condition);
        EXPECT_NEAR(host.report.groups[k].flux, device.report.groups[k].flux, 1e-12 * scale) << host.report.groups[k].group;
    }
    ASSERT_EQ(host.report.regions.size(), device.report.regions.size());
    for (std::size_t k = 0; k < host.report.regions.size(); ++k) {
        EXPECT_NEAR(host.report.regions[k].volume, device.report.regions[k].volume, 1e-12 * host.report.regions[k].volume);
        EXPECT_NEAR(host.report.regions[k].u, device.report.regions[k].u, 1e-12 * host.report.regions[k].volume);
    }
    for (std::vector<MeshField> SolutionFluxes::*fields : {&SolutionFluxes::cell_fields, &SolutionFluxes::point_fields}) {
        ASSERT_EQ((host.*fields).size(), (device.*fields).size());
        for (std::size_t k = 0; k < (host.*fields).size(); ++k) {
            EXPECT_EQ((host.*fields)[k].name, (device.*fields)[k].name);
            ASSERT_FALSE((host.*fields)[k].held_in_float() || (device.*fields)[k].held_in_float());
            const HostVector<double>& a = (host.*fields)[k].values;
            const HostVector<double>& b = (device.*fields)[k].values;
            ASSERT_EQ(a.size(), b.size());
            ASSERT_GT(a.size(), 0u);
            EXPECT_LT(max_difference(std::vector<double>(a.begin(), a.end()), std::vector<double>(b.begin(), b.end())),
                      1e-12) << (host.*fields)[k].name;
        }
    }
}

}  // namespace

TEST(FiniteVolumesGpu, EveryKernelMatchesTheCpu)
{
    GPUFEM_REQUIRE_GPU();
    const unsigned seed = test::random_seed();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> coefficient(0.5, 2.0);
    const ExecPtr cpu = Executor::create_cpu(), cuda = Executor::create_cuda(0);
    for (const ElementType type : {ElementType::triangle, ElementType::quadrilateral, ElementType::tetrahedron,
                                   ElementType::hexahedron}) {
        SCOPED_TRACE(element_type_name(type));
        Mesh mesh = test::grid_mesh(type, element_dimension(type) == 2 ? 30 : 8, 0.25, seed);
        test::add_box_boundaries(mesh);
        const CellFaces on_cpu = cell_faces(mesh, cpu), on_cuda = cell_faces(mesh, cuda);
        EXPECT_EQ(on_cpu.neighbour.to_host(), on_cuda.neighbour.to_host());
        EXPECT_EQ(on_cpu.group.to_host(), on_cuda.group.to_host());
        EXPECT_EQ(on_cpu.interior_faces, on_cuda.interior_faces);
        const CellFaces through_edges = cell_faces(mesh, cuda, nullptr, FaceKeys::through_edges);
        EXPECT_EQ(on_cpu.neighbour.to_host(), through_edges.neighbour.to_host());
        EXPECT_EQ(on_cpu.group.to_host(), through_edges.group.to_host());

        ProblemSpec problem;
        problem.kappa = fmt::format("{} + x*x + {}*sin(3*y)", coefficient(rng), 0.3 * coefficient(rng));
        problem.f = fmt::format("{}*cos(x) + y", coefficient(rng));
        problem.dirichlet = {{"right", fmt::format("{}*y", coefficient(rng))}, {"top", "1"}};
        problem.neumann = {{"left", fmt::format("{}*x - y", coefficient(rng))}};
        problem.robin = {{"bottom", fmt::format("{} + x*x", coefficient(rng)), fmt::format("{} - x", coefficient(rng))}};
        problem.convection = element_dimension(type) == 2 ? std::vector<double>{coefficient(rng), -1.0}
                                                          : std::vector<double>{coefficient(rng), -1.0, 0.5};
        for (const bool convection : {false, true}) {
            ProblemSpec p = problem;
            if (!convection) p.convection.clear();
            const FiniteVolumeDiscretisation<double> a(mesh, p, FvOptions{}), b(mesh, p, FvOptions{});
            const LinearSystem<double> host = a.assemble(cpu), device = b.assemble(cuda);
            EXPECT_LT(max_difference(a.volumes(), b.volumes()), 1e-15);
            EXPECT_LT(max_difference(a.centroids(), b.centroids()), 1e-15);
            EXPECT_EQ(host.matrix.row_ptr.to_host(), device.matrix.row_ptr.to_host());
            EXPECT_EQ(host.matrix.col_idx.to_host(), device.matrix.col_idx.to_host());
            EXPECT_LT(max_difference(host.matrix.values.to_host(), device.matrix.values.to_host()), 1e-14);
            EXPECT_LT(max_difference(host.rhs.to_host(), device.rhs.to_host()), 1e-14);
            const std::vector<double> random = test::random_vector<double>(static_cast<std::size_t>(mesh.num_cells()), seed + 1);
            const Array<double> u_cpu = Array<double>::from_host(cpu, random), u_cuda = Array<double>::from_host(cuda, random);
            EXPECT_LT(max_difference(a.corrected_rhs(u_cpu).to_host(), b.corrected_rhs(u_cuda).to_host()), 1e-13);
            EXPECT_LT(max_difference(a.face_fluxes(u_cpu, true), b.face_fluxes(u_cuda, true)), 1e-13);
        }
    }
}

TEST(FiniteVolumesGpu, AnUnstructuredCaseGivesTheCpuSolution)
{
    GPUFEM_REQUIRE_GPU();
    test::TempFolder folder;
    const ExecPtr cpu = Executor::create_cpu(), cuda = Executor::create_cuda(0);
    for (const int dim : {2, 3}) {
        for (const std::string correction : {"implicit", "deferred"}) {
            const auto geo = test::write_unstructured_box(folder.path(), dim, dim == 2 ? 0.05 : 0.2);
            const std::string yaml = "mesh: {geo: " + geo.filename().string() + ", refine: 1}\ndiscretisation: fv\n"
                                     "problem:\n  kappa: \"1 + x\"\n  f: \"1 + y\"\n  exact: \"x*y\"\n"
                                     "  dirichlet: {rest: \"x*y\"}\n  neumann: {left: \"0.5\"}\n"
                                     "solver: {tolerance: 1e-12, preconditioner: amg}\nfv: {correction: " +
                                     correction + "}\n";
            const auto host = test::run_fv_case(yaml, cpu, folder.path());
            const auto device = test::run_fv_case(yaml, cuda, folder.path());
            ASSERT_TRUE(device->solved.result.converged()) << device->solved.result.message;
            EXPECT_EQ(device->solved.correction, correction);
            if (correction == "deferred") EXPECT_GT(device->solved.pass_iterations.size(), 2u);
            EXPECT_LT(max_difference(device->solved.x.to_host(), host->solved.x.to_host()), 1e-8) << correction;
            EXPECT_NEAR(device->output.errors->l2, host->output.errors->l2, 1e-6 * host->output.errors->l2);
            // u, u_exact, the error and the flux -kappa grad u's components.
            EXPECT_EQ(device->output.cell_fields.size(), 3u + static_cast<unsigned>(dim));
        }
    }
}

TEST(FiniteVolumesGpu, MixedMeshesMatchTheCpu)
{
    // Gmsh's mixed meshes (triangles + quadrilaterals; prisms, tetrahedra, pyramids,
    // hexahedra): the adjacency, the geometry, the matrix and the corrections on CUDA equal the
    // CPU's, and so does the solution.
    GPUFEM_REQUIRE_GPU();
    test::TempFolder folder;
    const test::MeshWorkerForTest worker;
    const ExecPtr cpu = Executor::create_cpu(), cuda = Executor::create_cuda(0);
    for (const int dim : {2, 3}) {
        SCOPED_TRACE(dim);
        const auto geo = test::write_mixed_box(folder.path(), dim, dim == 2 ? 0.05 : 0.14);
        const std::string yaml = "mesh: {geo: " + geo.filename().string() + "}\ndiscretisation: fv\n"
                                 "problem:\n  kappa: \"1 + x\"\n  f: \"1 + y\"\n  exact: \"x*y\"\n"
                                 "  dirichlet: {rest: \"x*y\"}\n  neumann: {left: \"0.5\"}\n"
                                 "solver: {tolerance: 1e-12, preconditioner: amg}\n";
        const auto host = test::run_fv_case(yaml, cpu, folder.path());
        const Mesh& mesh = host->input.mesh;
        ASSERT_TRUE(mesh.is_mixed());
        const CellFaces on_cpu = cell_faces(mesh, cpu), on_cuda = cell_faces(mesh, cuda);
        EXPECT_EQ(on_cpu.neighbour.to_host(), on_cuda.neighbour.to_host());
        EXPECT_EQ(on_cpu.group.to_host(), on_cuda.group.to_host());
        EXPECT_EQ(on_cpu.boundary_faces, on_cuda.boundary_faces);

        ProblemSpec problem = host->spec.problem;
        problem.convection = dim == 2 ? std::vector<double>{1.5, -1.0} : std::vector<double>{1.5, -1.0, 0.5};
        FiniteVolumeDiscretisation<double> a(mesh, problem, FvOptions{}), b(mesh, problem, FvOptions{});
        a.set_flux_output(true, false), b.set_flux_output(true, false);  // fields in double: compared to 1e-12
        const LinearSystem<double> on_host = a.assemble(cpu), on_device = b.assemble(cuda);
        EXPECT_LT(max_difference(a.volumes(), b.volumes()), 1e-15);
        EXPECT_LT(max_difference(a.centroids(), b.centroids()), 1e-15);
        EXPECT_EQ(on_host.matrix.col_idx.to_host(), on_device.matrix.col_idx.to_host());
        EXPECT_LT(max_difference(on_host.matrix.values.to_host(), on_device.matrix.values.to_host()), 1e-14);
        const std::vector<double> random = test::random_vector<double>(static_cast<std::size_t>(mesh.num_cells()), test::random_seed());
        const Array<double> u_cpu = Array<double>::from_host(cpu, random), u_cuda = Array<double>::from_host(cuda, random);
        EXPECT_LT(max_difference(a.corrected_rhs(u_cpu).to_host(), b.corrected_rhs(u_cuda).to_host()), 1e-13);
        EXPECT_LT(max_difference(a.face_fluxes(u_cpu, true), b.face_fluxes(u_cuda, true)), 1e-13);
        expect_same_fluxes(a.fluxes(u_cpu, 0.0), b.fluxes(u_cuda, 0.0));
        // Conditions on one group only: the others' faces summed as "none" (and the padding
        // slots of the cells with fewer faces left out) on both.
        ProblemSpec one_group = problem;  // u given on "left" alone, no Neumann condition
        ASSERT_EQ(one_group.dirichlet.size(), 1u);
        one_group.dirichlet[0].group = "left";
        one_group.neumann.clear();
        FiniteVolumeDiscretisation<double> c(mesh, one_group, FvOptions{}), d(mesh, one_group, FvOptions{});
        c.set_flux_output(true, false), d.set_flux_output(true, false);
        c.assemble(cpu), d.assemble(cuda);
        const SolutionFluxes free_cpu = c.fluxes(u_cpu, 0.0), free_cuda = d.fluxes(u_cuda, 0.0);
        ASSERT_EQ(free_cpu.report.groups.size(), 2u);
        EXPECT_EQ(free_cpu.report.groups[1].condition, "none");
        expect_same_fluxes(free_cpu, free_cuda);

        const auto device = test::run_fv_case(yaml, cuda, folder.path());
        ASSERT_TRUE(device->solved.result.converged()) << device->solved.result.message;
        EXPECT_LT(max_difference(device->solved.x.to_host(), host->solved.x.to_host()), 1e-8);
    }
}
