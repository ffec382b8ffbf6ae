// Cell-centred finite volumes on the CPU backend: the face adjacency against closed forms,
// geometry, the matrix's structure (symmetric M-matrix, rows = face neighbours + 1),
// conservation of the face fluxes, second-order convergence on structured boxes and on Gmsh
// triangles and tetrahedra with the non-orthogonal correction, pure-Neumann problems, every
// format and both solvers, and the case keys' errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <utility>

#include "assembly/fv_discretisation.hpp"
#include "mesh/cell_faces.hpp"
#include "mesh/kernel_shapes.hpp"
#include "solver/run/anderson_mixing.hpp"
#include "../assembly/simple_meshes.hpp"
#include "../mesh/mesh_test_support.hpp"
#include "fv_test_support.hpp"
#include "random_values.hpp"

using namespace gpufem;
using test::run_fv_case;

namespace {

const ExecPtr& cpu()
{
    static const ExecPtr exec = Executor::create_cpu();
    return exec;
}

/// The manufactured problem on the unit square / cube: kappa = 1 + x/2, u smooth and not a
/// polynomial, Dirichlet on `dirichlet`, the exact flux on `neumann` (x = 0, outward -x), or
/// "" for none.
std::string manufactured(int dim, const std::string& dirichlet, const std::string& neumann)
{
    const std::string u = dim == 2 ? "sin(2*x+0.5)*cos(1.5*y)" : "sin(2*x+0.5)*cos(1.5*y)*exp(0.5*z)";
    const std::string ux = dim == 2 ? "2*cos(2*x+0.5)*cos(1.5*y)" : "2*cos(2*x+0.5)*cos(1.5*y)*exp(0.5*z)";
    const std::string c = dim == 2 ? "6.25" : "6";
    std::string text = "problem:\n  kappa: \"1 + 0.5*x\"\n  f: \"(1 + 0.5*x)*" + c + "*" + u + " - 0.5*" + ux +
                       "\"\n  exact: \"" + u + "\"\n";
    text += "  dirichlet: {" + dirichlet + ": \"" + u + "\"}\n";
    if (!neumann.empty()) text += "  neumann: {" + neumann + ": \"-(1 + 0.5*x)*" + ux + "\"}\n";
    return text;
}

/// The cell-centred L2 errors of a case over refinements 0..levels-1 (mesh.refine).
std::vector<double> errors_over_refinement(const std::string& yaml, int levels, const std::filesystem::path& dir = {})
{
    std::vector<double> errors;
    for (int r = 0; r < levels; ++r) {
        std::string text = yaml;
        const auto at = text.find("refine: R");
        text.replace(at, 9, "refine: " + std::to_string(r));
        const auto run = run_fv_case(text, cpu(), dir);
        EXPECT_TRUE(run->solved.result.converged()) << run->solved.result.message;
        errors.push_back(run->output.errors->l2);
    }
    return errors;
}

void expect_rate_two(const std::vector<double>& errors, const std::string& what)
{
    for (std::size_t i = 1; i < errors.size(); ++i) {
        const double rate = std::log2(errors[i - 1] / errors[i]);
        std::cout << "[ rate     ] " << what << " level " << i << ": " << errors[i] << " rate " << rate << "\n";
        EXPECT_NEAR(rate, 2.0, 0.25) << what << " level " << i;
    }
}

/// Runs the case on the CPU and expects a std::runtime_error whose text holds `says`.
void expect_run_error(const std::string& yaml, const std::string& says, const std::string& if_accepted)
{
    try {
        run_fv_case(yaml, cpu());
        ADD_FAILURE() << if_accepted;
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
}

}  // namespace

TEST(CellFaces, CountsAndSymmetryOnGrids)
{
    const unsigned seed = test::random_seed();
    const int n = 4;
    // Faces between boxes n^d: d n^(d-1) (n - 1); boundary 2 d n^(d-1). Triangles add n^2
    // diagonals, the 6 Kuhn tetrahedra of a cube 12 interior faces each, and each boundary
    // square is split in two.
    const std::map<ElementType, std::pair<long long, long long>> expected = {
        {ElementType::quadrilateral, {2LL * n * (n - 1), 4LL * n}},
        {ElementType::triangle, {2LL * n * (n - 1) + n * n, 4LL * n}},
        {ElementType::hexahedron, {3LL * n * n * (n - 1), 6LL * n * n}},
        {ElementType::tetrahedron, {2 * 3LL * n * n * (n - 1) + 6LL * n * n * n, 12LL * n * n}},
    };
    for (const auto& [type, counts] : expected) {
        Mesh mesh = test::grid_mesh(type, n, 0.2, seed);
        test::add_box_boundaries(mesh);
        const CellFaces faces = cell_faces(mesh, cpu());
        EXPECT_EQ(faces.interior_faces, counts.first) << element_type_name(type);
        EXPECT_EQ(faces.boundary_faces, counts.second) << element_type_name(type);
        const std::vector<index_type> neighbour = faces.neighbour.to_host();
        const std::vector<int> group = faces.group.to_host();
        const int per = faces.faces_per_cell;
        long long boundary = 0;
        for (long long c = 0; c < mesh.num_cells(); ++c)
            for (int f = 0; f < per; ++f) {
                const index_type nb = neighbour[c * per + f];
                if (nb < 0) {
                    ++boundary;
                    // Every boundary face is in 'boundary', the last group of the mesh.
                    EXPECT_EQ(mesh.boundaries.at(group[c * per + f]).group.name, "boundary");
                    continue;
                }
                EXPECT_EQ(group[c * per + f], -1);
                const auto back = std::count(neighbour.begin() + nb * per, neighbour.begin() + (nb + 1) * per, c);
                EXPECT_EQ(back, 1) << "cell " << c << " face " << f;
            }
        EXPECT_EQ(boundary, counts.second);
    }
}

TEST(CellFaces, VertexKeysAndEdgeKeysFindTheSameFaces)
{
    const unsigned seed = test::random_seed();
    for (const ElementType type : {ElementType::tetrahedron, ElementType::hexahedron}) {
        Mesh mesh = test::grid_mesh(type, 5, 0.2, seed);
        test::add_box_boundaries(mesh);
        const CellFaces by_vertices = cell_faces(mesh, cpu());
        const CellFaces by_edges = cell_faces(mesh, cpu(), nullptr, FaceKeys::through_edges);
        EXPECT_EQ(by_vertices.neighbour.to_host(), by_edges.neighbour.to_host()) << element_type_name(type);
        EXPECT_EQ(by_vertices.group.to_host(), by_edges.group.to_host()) << element_type_name(type);
        EXPECT_EQ(by_vertices.interior_faces, by_edges.interior_faces);
    }
}

TEST(CellFaces, OnlyTheGroupsAskedForAndOverlapsCounted)
{
    Mesh mesh = test::grid_mesh(ElementType::quadrilateral, 3);
    test::add_box_boundaries(mesh);
    int left = -1, all = -1;
    for (std::size_t g = 0; g < mesh.boundaries.size(); ++g) {
        if (mesh.boundaries[g].group.name == "left") left = static_cast<int>(g);
        if (mesh.boundaries[g].group.name == "boundary") all = static_cast<int>(g);
    }
    const std::vector<int> groups{all, left};
    const CellFaces faces = cell_faces(mesh, cpu(), &groups);
    EXPECT_EQ(faces.shared_faces[static_cast<std::size_t>(left)], 3);  // left's faces were 'boundary's
    EXPECT_EQ(faces.shared_faces[static_cast<std::size_t>(all)], 0);
    const std::vector<int> group = faces.group.to_host();
    EXPECT_EQ(std::count(group.begin(), group.end(), left), 3);
    EXPECT_EQ(std::count(group.begin(), group.end(), all), 9);
}

TEST(FiniteVolumes, VolumesAddUpAndFluxesAreConserved)
{
    const unsigned seed = test::random_seed();
    for (const ElementType type : {ElementType::triangle, ElementType::quadrilateral, ElementType::tetrahedron,
                                   ElementType::hexahedron}) {
        const int dim = element_dimension(type);
        // A jittered grid as a .msh-free mesh: through the discretisation directly.
        Mesh mesh = test::grid_mesh(type, dim == 2 ? 12 : 5, 0.2, seed);
        test::add_box_boundaries(mesh);
        mesh.source = "jittered grid";
        ProblemSpec problem;
        problem.kappa = "1 + 0.5*x + y*y";
        problem.f = "1 + x*y";
        problem.dirichlet = {{"boundary", "x - 2*y"}};
        FiniteVolumeDiscretisation<double> disc(mesh, problem, FvOptions{});
        LinearSystem<double> system = disc.assemble(cpu());
        double total = 0;
        for (double v : disc.volumes()) total += v;
        EXPECT_NEAR(total, 1.0, 1e-12) << element_type_name(type);

        // u: a fixed point of the correction, solved with dense-enough CG through the pipeline's solver.
        const std::vector<double> random = test::random_vector<double>(static_cast<std::size_t>(mesh.num_cells()), seed);
        const Array<double> u = Array<double>::from_host(cpu(), random);
        const std::vector<double> flux = disc.face_fluxes(u, true);
        const std::vector<index_type> neighbour = cell_faces(mesh, cpu()).neighbour.to_host();
        const int per = static_cast<int>(flux.size() / static_cast<std::size_t>(mesh.num_cells()));
        double worst = 0, scale = 0;
        for (long long c = 0; c < mesh.num_cells(); ++c)
            for (int f = 0; f < per; ++f) {
                const index_type nb = neighbour[c * per + f];
                scale = std::max(scale, std::abs(flux[c * per + f]));
                if (nb < 0) continue;
                for (int g = 0; g < per; ++g)
                    if (neighbour[nb * per + g] == c) worst = std::max(worst, std::abs(flux[c * per + f] + flux[nb * per + g]));
            }
        EXPECT_LT(worst, 1e-12 * scale) << element_type_name(type) << ": the flux out of one cell is the flux into the other";

    }
}

TEST(FiniteVolumes, FluxesOfTheSolutionBalanceEachCellsSource)
{
    test::TempFolder folder;
    for (const int dim : {2, 3}) {
        const auto geo = test::write_unstructured_box(folder.path(), dim, dim == 2 ? 0.1 : 0.25);
        const std::string yaml = "mesh: {geo: " + geo.filename().string() + "}\ndiscretisation: fv\n" +
                                 manufactured(dim, "rest", "left") + "solver: {tolerance: 1e-12}\n";
        const auto run = run_fv_case(yaml, cpu(), folder.path());
        ASSERT_TRUE(run->solved.result.converged()) << run->solved.result.message;
        EXPECT_EQ(run->solved.correction, "deferred") << "without amg the correction is deferred";
        EXPECT_GT(run->solved.pass_iterations.size(), 2u) << "Gmsh's cells are not orthogonal: corrections run";
        EXPECT_LE(run->solved.correction_change, 1e-12);
        const auto& fv = run->fv();
        const std::vector<double> flux = fv.face_fluxes(run->solved.x, true);
        const std::vector<double> volume = fv.volumes(), centroid = fv.centroids();
        const Expression f(run->spec.problem.f);
        const auto n = static_cast<std::size_t>(run->input.mesh.num_cells());
        const std::size_t per = flux.size() / n;
        double worst = 0, scale = 0;
        for (std::size_t c = 0; c < n; ++c) {
            double out = 0;
            for (std::size_t k = 0; k < per; ++k) out += flux[c * per + k];
            const double source = f.evaluate(centroid[3 * c], centroid[3 * c + 1], centroid[3 * c + 2]) * volume[c];
            worst = std::max(worst, std::abs(out - source));
            scale = std::max(scale, std::abs(source));
        }
        EXPECT_LT(worst, 1e-8 * scale) << dim << "D: the fluxes out of a cell add up to its source";
    }
}

TEST(FiniteVolumes, DiffusionMatrixIsASymmetricMMatrixWithARowPerCell)
{
    const unsigned seed = test::random_seed();
    for (const ElementType type : {ElementType::triangle, ElementType::quadrilateral, ElementType::tetrahedron,
                                   ElementType::hexahedron}) {
        Mesh mesh = test::grid_mesh(type, element_dimension(type) == 2 ? 10 : 4, 0.2, seed);
        test::add_box_boundaries(mesh);
        ProblemSpec problem;
        problem.kappa = "1 + x*x + 0.5*sin(3*y)";
        problem.dirichlet = {{"boundary", "1"}};
        FiniteVolumeDiscretisation<double> disc(mesh, problem, FvOptions{});
        const LinearSystem<double> system = disc.assemble(cpu());
        const std::vector<index_type> ptr = system.matrix.row_ptr.to_host(), col = system.matrix.col_idx.to_host();
        const std::vector<double> val = system.matrix.values.to_host();
        const std::vector<index_type> neighbour = cell_faces(mesh, cpu()).neighbour.to_host();
        const int per = static_cast<int>(neighbour.size() / static_cast<std::size_t>(mesh.num_cells()));
        std::map<std::pair<index_type, index_type>, double> entries;
        for (index_type r = 0; r < system.matrix.rows; ++r) {
            const auto neighbours = std::count_if(neighbour.begin() + r * per, neighbour.begin() + (r + 1) * per,
                                                  [](index_type n) { return n >= 0; });
            EXPECT_EQ(ptr[r + 1] - ptr[r], neighbours + 1) << "row " << r;
            double sum = 0, diagonal = 0;
            for (index_type k = ptr[r]; k < ptr[r + 1]; ++k) {
                if (k > ptr[r]) EXPECT_LT(col[k - 1], col[k]) << "columns increase";
                entries[{r, col[k]}] = val[k];
                sum += val[k];
                if (col[k] == r) diagonal = val[k];
                else EXPECT_LT(val[k], 0.0) << "off-diagonal of row " << r;
            }
            EXPECT_GT(diagonal, 0.0);
            EXPECT_GE(sum, -1e-12 * diagonal) << "row " << r << " is diagonally dominant";
        }
        for (const auto& [at, value] : entries)
            EXPECT_NEAR(entries.at({at.second, at.first}), value, 1e-14 * std::abs(value)) << element_type_name(type);
    }
}

TEST(FiniteVolumes, SecondOrderOnStructuredBoxes)
{
    for (const std::string elements : {"quadrilateral", "hexahedron"}) {
        const int dim = elements == "quadrilateral" ? 2 : 3;
        const std::string yaml = "mesh: {shape: " + std::string(dim == 2 ? "unit_square" : "unit_cube") +
                                 ", elements: " + elements + ", size: " + (dim == 2 ? "0.1" : "0.25") +
                                 ", refine: R}\ndiscretisation: fv\n" + manufactured(dim, "boundary", "") +
                                 "solver: {tolerance: 1e-12}\n";
        expect_rate_two(errors_over_refinement(yaml, dim == 2 ? 4 : 3), elements);
    }
}

TEST(FiniteVolumes, SecondOrderOnGmshSimplicesWithTheCorrectionOnly)
{
    test::TempFolder folder;
    for (const int dim : {2, 3}) {
        const auto geo = test::write_unstructured_box(folder.path(), dim, dim == 2 ? 0.1 : 0.3);
        const std::string base = "mesh: {geo: " + geo.filename().string() + ", refine: R}\ndiscretisation: fv\n" +
                                 manufactured(dim, "rest", "left") + "solver: {tolerance: 1e-11}\n";
        const int levels = dim == 2 ? 4 : 3;
        const std::vector<double> corrected = errors_over_refinement(base, levels, folder.path());
        expect_rate_two(corrected, dim == 2 ? "Gmsh triangles, corrected" : "Gmsh tetrahedra, corrected");
        const std::vector<double> plain =
            errors_over_refinement(base + "fv: {nonorthogonal_correctors: 0}\n", levels, folder.path());
        const double plain_rate = std::log2(plain[levels - 2] / plain[levels - 1]);
        std::cout << "[ rate     ] " << dim << "D without correction: " << plain[levels - 1] << " rate "
                  << plain_rate << "\n";
        EXPECT_LT(plain_rate, 1.0) << "the two-point flux alone is inconsistent on these meshes";
        EXPECT_GT(plain[levels - 1], 10 * corrected[levels - 1]);
    }
}

TEST(FiniteVolumes, MixedMeshesHoldEveryCellTypeAndConserve)
{
    // Gmsh's mixed meshes: triangles + quadrilaterals, prisms + tetrahedra + pyramids +
    // hexahedra. Faces between cells of different types are found, the cells fill the box, the
    // matrix is a symmetric M-matrix with a row per cell, and the solution's fluxes balance
    // each cell's source.
    test::TempFolder folder;
    const test::MeshWorkerForTest worker;
    for (const int dim : {2, 3}) {
        const auto geo = test::write_mixed_box(folder.path(), dim, dim == 2 ? 0.05 : 0.14);
        const std::string yaml = "mesh: {geo: " + geo.filename().string() + "}\ndiscretisation: fv\n" +
                                 manufactured(dim, "rest", "left") + "solver: {tolerance: 1e-12, preconditioner: amg}\n";
        const auto run = run_fv_case(yaml, cpu(), folder.path());
        ASSERT_TRUE(run->solved.result.converged()) << run->solved.result.message;
        const Mesh& mesh = run->input.mesh;
        ASSERT_TRUE(mesh.is_mixed());
        std::map<ElementType, long long> count;
        for (index_type c = 0; c < mesh.num_cells(); ++c) ++count[mesh.type_of_cell(c)];
        const std::vector<ElementType> expected =
            dim == 2 ? std::vector<ElementType>{ElementType::triangle, ElementType::quadrilateral}
                     : std::vector<ElementType>{ElementType::tetrahedron, ElementType::hexahedron, ElementType::prism,
                                                ElementType::pyramid};
        EXPECT_EQ(count.size(), expected.size()) << mesh.describe_cells();
        for (const ElementType type : expected) EXPECT_GT(count[type], 0) << element_type_name(type);

        // Every cell's own faces: twice the interior faces plus the boundary ones; the
        // boundary faces all in a group (left or rest).
        const CellFaces faces = cell_faces(mesh, cpu());
        const KernelShapes shapes = kernel_shapes();
        long long own = 0;
        for (index_type c = 0; c < mesh.num_cells(); ++c) own += shapes.of_type[static_cast<int>(mesh.type_of_cell(c))].faces;
        EXPECT_EQ(own, 2 * faces.interior_faces + faces.boundary_faces);
        const std::vector<index_type> neighbour = faces.neighbour.to_host();
        const std::vector<int> group = faces.group.to_host();
        long long grouped = 0;
        for (index_type c = 0; c < mesh.num_cells(); ++c)
            for (int f = 0; f < shapes.of_type[static_cast<int>(mesh.type_of_cell(c))].faces; ++f) {
                const std::size_t slot = static_cast<std::size_t>(c) * faces.faces_per_cell + f;
                if (neighbour[slot] < 0) grouped += group[slot] >= 0;
            }
        EXPECT_EQ(grouped, faces.boundary_faces) << "every boundary face is in a group";
        // A triangle's or quadrilateral's boundary facets (3D: both in one group) all found.
        EXPECT_EQ(faces.interior_facets, std::vector<long long>(mesh.boundaries.size(), 0));

        const auto& fv = run->fv();
        double total = 0;
        for (const double v : fv.volumes()) total += v;
        EXPECT_NEAR(total, 1.0, 1e-12);

        const std::vector<double> flux = fv.face_fluxes(run->solved.x, true);
        const std::vector<double> volume = fv.volumes(), centroid = fv.centroids();
        const Expression f(run->spec.problem.f);
        const auto n = static_cast<std::size_t>(mesh.num_cells());
        const std::size_t per = flux.size() / n;
        double worst = 0, scale = 0, antisymmetry = 0;
        for (std::size_t c = 0; c < n; ++c) {
            double out = 0;
            for (std::size_t k = 0; k < per; ++k) {
                out += flux[c * per + k];
                const index_type nb = neighbour[c * per + k];
                if (nb >= 0)
                    for (std::size_t g = 0; g < per; ++g)
                        if (neighbour[static_cast<std::size_t>(nb) * per + g] == static_cast<index_type>(c))
                            antisymmetry = std::max(antisymmetry, std::abs(flux[c * per + k] + flux[nb * per + g]));
            }
            const double source = f.evaluate(centroid[3 * c], centroid[3 * c + 1], centroid[3 * c + 2]) * volume[c];
            worst = std::max(worst, std::abs(out - source));
            scale = std::max(scale, std::abs(source));
        }
        EXPECT_LT(worst, 1e-8 * scale) << dim << "D mixed: the fluxes out of a cell add up to its source";
        EXPECT_LT(antisymmetry, 1e-12 * scale * 100) << "a face's flux out of one cell is the flux into the other";

        // The two-point matrix (no correction, no convection): symmetric, rows = neighbours + 1.
        FvOptions two_point;
        two_point.nonorthogonal_correctors = 0;
        const FiniteVolumeDiscretisation<double> plain(mesh, run->spec.problem, two_point);
        const LinearSystem<double> system = plain.assemble(cpu());
        const Csr<double>& a = system.matrix;
        const std::vector<index_type> ptr = a.row_ptr.to_host(), col = a.col_idx.to_host();
        const std::vector<double> val = a.values.to_host();
        std::map<std::pair<index_type, index_type>, double> entries;
        for (index_type r = 0; r < a.rows; ++r) {
            const auto neighbours = std::count_if(neighbour.begin() + r * per, neighbour.begin() + (r + 1) * per,
                                                  [](index_type nb) { return nb >= 0; });
            EXPECT_EQ(ptr[r + 1] - ptr[r], neighbours + 1) << "row " << r;
            for (index_type k = ptr[r]; k < ptr[r + 1]; ++k) {
                entries[{r, col[k]}] = val[k];
                if (col[k] != r) EXPECT_LT(val[k], 0.0) << "row " << r;
            }
        }
        for (const auto& [at, value] : entries)
            EXPECT_NEAR(entries.at({at.second, at.first}), value, 1e-13 * std::abs(value)) << dim << "D mixed";
    }
}

TEST(FiniteVolumes, SecondOrderOnMixedMeshes)
{
    test::TempFolder folder;
    const test::MeshWorkerForTest worker;
    for (const int dim : {2, 3}) {
        std::vector<double> errors;
        for (const double h : dim == 2 ? std::vector<double>{0.1, 0.05, 0.025} : std::vector<double>{0.14, 0.07}) {
            const auto geo = test::write_mixed_box(folder.path(), dim, h);
            const std::string yaml = "mesh: {geo: " + geo.filename().string() + "}\ndiscretisation: fv\n" +
                                     manufactured(dim, "rest", "left") +
                                     "solver: {tolerance: 1e-11, preconditioner: amg}\n";
            const auto run = run_fv_case(yaml, cpu(), folder.path());
            ASSERT_TRUE(run->solved.result.converged()) << run->solved.result.message;
            errors.push_back(run->output.errors->l2);
        }
        // Gmsh's unstructured parts are not exact halvings of each other: the rate over h.
        expect_rate_two(errors, dim == 2 ? "mixed triangles and quadrilaterals" : "mixed prisms, tetrahedra, pyramids, hexahedra");
    }
}

TEST(FiniteVolumes, MixedMeshesRefineByGpufemAtTheSecondOrderRate)
{
    // Triangles + quadrilaterals refined by gpufem (each into 4, the quadrilaterals' children
    // quadrilaterals): the cell-centred scheme keeps its second order across the refinements;
    // finite elements of degree 2 take the same mesh (test_mixed_meshes has their rates).
    test::TempFolder folder;
    const auto geo = test::write_mixed_box(folder.path(), 2, 0.1);
    const std::string base = "mesh: {geo: " + geo.filename().string() + ", refine: R}\n" + manufactured(2, "rest", "left");
    expect_rate_two(errors_over_refinement(base + "discretisation: fv\n", 3, folder.path()), "fv mixed refined");
    std::string raised = base + "degree: 2\n";
    raised.replace(raised.find("refine: R"), 9, "refine: 0");
    const auto run = run_fv_case(raised, cpu(), folder.path());
    EXPECT_TRUE(run->solved.result.converged()) << run->solved.result.message;
    EXPECT_LT(run->output.errors->l2, 1e-4);
}

TEST(FiniteVolumes, ImplicitAndDeferredCorrectionsReachTheSameSolution)
{
    test::TempFolder folder;
    for (const int dim : {2, 3}) {
        const auto geo = test::write_unstructured_box(folder.path(), dim, dim == 2 ? 0.05 : 0.2);
        const std::string base = "mesh: {geo: " + geo.filename().string() + "}\ndiscretisation: fv\n" +
                                 manufactured(dim, "rest", "left");
        const std::string amg = "solver: {preconditioner: amg, tolerance: 1e-11";
        const auto implicit = run_fv_case(base + amg + "}\n", cpu(), folder.path());
        const auto deferred = run_fv_case(base + amg + "}\nfv: {correction: deferred}\n", cpu(), folder.path());
        ASSERT_TRUE(implicit->solved.result.converged()) << implicit->solved.result.message;
        ASSERT_TRUE(deferred->solved.result.converged()) << deferred->solved.result.message;
        EXPECT_EQ(implicit->solved.correction, "implicit");
        EXPECT_EQ(deferred->solved.correction, "deferred");
        ASSERT_EQ(implicit->solved.pass_iterations.size(), 1u);
        EXPECT_GT(deferred->solved.pass_iterations.size(), 2u);
        const std::vector<double> a = implicit->solved.x.to_host(), b = deferred->solved.x.to_host();
        EXPECT_LT(test::max_relative_difference(a, b), 1e-8) << dim << "D: both solve the corrected system";
        std::cout << "[ passes   ] " << dim << "D: implicit " << implicit->solved.result.iterations
                  << " BiCGSTAB iterations, deferred " << deferred->solved.result.iterations << " over "
                  << deferred->solved.pass_iterations.size() << " solves\n";
        EXPECT_LT(implicit->solved.result.iterations, deferred->solved.result.iterations);
        // A format that renumbers (staircase: Cuthill-McKee): the corrected operator's products
        // go through the permutation.
        const auto renumbered = run_fv_case(base + amg + "}\nformat: staircase\n", cpu(), folder.path());
        ASSERT_TRUE(renumbered->solved.result.converged()) << renumbered->solved.result.message;
        EXPECT_EQ(renumbered->solved.correction, "implicit");
        EXPECT_LT(test::max_relative_difference(renumbered->solved.x.to_host(), b), 1e-8) << "staircase";
        // Too few iterations for the corrected operator: the deferred passes (AMG: 1-5 each)
        // take over and converge.
        const auto fallback = run_fv_case(base + amg + ", max_iterations: 6}\n", cpu(), folder.path());
        ASSERT_TRUE(fallback->solved.result.converged()) << fallback->solved.result.message;
        EXPECT_EQ(fallback->solved.correction.rfind("deferred (implicit did not converge", 0), 0u)
            << fallback->solved.correction;
        EXPECT_LT(test::max_relative_difference(fallback->solved.x.to_host(), b), 1e-8) << "the fallback";
    }
}

TEST(FiniteVolumes, PureNeumannFixesTheConstantAndChecksTheData)
{
    // u = cos(pi x) cos(pi y): zero flux on the whole boundary, f = 2 pi^2 u integrates to 0.
    const std::string base = "mesh: {shape: unit_square, elements: triangle, size: 0.05, refine: R}\n"
                             "discretisation: fv\nproblem:\n  f: \"2*pi^2*cos(pi*x)*cos(pi*y)\"\n"
                             "  exact: \"cos(pi*x)*cos(pi*y) + 7\"\nsolver: {tolerance: 1e-11}\n";
    const std::vector<double> errors = errors_over_refinement(base, 3);
    expect_rate_two(errors, "pure Neumann (exact + 7: compared at zero mean)");
    std::string text = base;
    text.replace(text.find("refine: R"), 9, "refine: 0");
    const auto run = run_fv_case(text, cpu());
    EXPECT_TRUE(run->fv().mesh_report().pinned);
    EXPECT_EQ(run->system.dirichlet_count, 0);
    // f = 1 with no flux out cannot balance.
    std::string bad = text;
    bad.replace(bad.find("2*pi^2*cos(pi*x)*cos(pi*y)"), 26, "1");
    expect_run_error(bad, "do not balance", "incompatible data accepted");
}

TEST(FiniteVolumes, EveryFormatAndBothSolversGiveTheSameSolution)
{
    test::TempFolder folder;
    const auto geo = test::write_unstructured_box(folder.path(), 2, 0.08);
    const std::string base = "mesh: {geo: " + geo.filename().string() + "}\ndiscretisation: fv\n" +
                             manufactured(2, "rest", "left");
    const auto reference = run_fv_case(base + "solver: {tolerance: 1e-12}\n", cpu(), folder.path());
    const std::vector<double> expected = reference->solved.x.to_host();
    for (const std::string format : {"csr-scalar", "ell", "ellr", "sellp", "bdia", "staircase"})
        for (const std::string method : {"cg", "bicgstab"}) {
            const auto run = run_fv_case(base + "format: " + format + "\nsolver: {method: " + method +
                                             ", tolerance: 1e-12}\n", cpu(), folder.path());
            ASSERT_TRUE(run->solved.result.converged()) << format << " " << method;
            EXPECT_LT(test::max_relative_difference(run->solved.x.to_host(), expected), 1e-8) << format << " " << method;
        }
    // With convection (upwind, non-symmetric): BiCGSTAB, and the same answer in two formats.
    const std::string convective = "mesh: {shape: unit_square, elements: triangle, size: 0.05}\n"
                                   "discretisation: fv\nproblem:\n  convection: [3, 1]\n  f: \"1\"\n"
                                   "  dirichlet: {boundary: 0}\nsolver: {method: bicgstab, tolerance: 1e-12}\n";
    const auto csr = run_fv_case(convective, cpu());
    const auto sellp = run_fv_case(convective + "format: sellp\n", cpu());
    ASSERT_TRUE(csr->solved.result.converged());
    const std::vector<double> a = csr->solved.x.to_host(), b = sellp->solved.x.to_host();
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-8);
    EXPECT_GT(*std::max_element(a.begin(), a.end()), 0.0);
}

TEST(FiniteVolumes, CaseKeysAreChecked)
{
    const std::string mesh = "mesh: {shape: unit_square}\n";
    const auto fails = [&](const std::string& yaml, const std::string& says) {
        try {
            parse_case_text(yaml, "bad.yaml", {});
            ADD_FAILURE() << "accepted: " << yaml;
        } catch (const CaseError& e) {
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
        }
    };
    fails(mesh + "discretisation: fv\ndegree: 2\n", "degree must be 1");
    fails(mesh + "discretisation: fv\nformat: lma\n", "matrix-free");
    fails(mesh + "discretisation: fv\nsolver: {preconditioner: pmg}\n", "pmg");
    fails(mesh + "fv: {nonorthogonal_correctors: 2}\n", "only used with discretisation: fv");
    fails(mesh + "discretisation: fvm\n", "discretisation");
    fails(mesh + "discretisation: fv\nfv: {correction_limit: 2}\n", "from 0 to 1");
    fails(mesh + "discretisation: fv\nfv: {correction: sideways}\n", "implicit");
    fails(mesh + "discretisation: fv\nfv: {correction_limit: 0.5, correction: implicit}\n", "unlimited");
    const CaseSpec spec = parse_case_text(mesh + "discretisation: fv\nfv: {nonorthogonal_correctors: 3}\n", "ok.yaml", {});
    EXPECT_EQ(spec.discretisation, DiscretisationKind::fv);
    EXPECT_EQ(spec.fv.nonorthogonal_correctors, 3);
    EXPECT_EQ(spec.fv.correction, FvCorrection::deferred) << "the default without amg";
    const std::string amg = "solver: {preconditioner: amg}\n";
    EXPECT_EQ(parse_case_text(mesh + "discretisation: fv\n" + amg, "ok.yaml", {}).fv.correction, FvCorrection::implicit)
        << "the default with amg";
    const CaseSpec limited = parse_case_text(mesh + "discretisation: fv\nfv: {correction_limit: 0.5}\n" + amg, "ok.yaml", {});
    EXPECT_EQ(limited.fv.correction, FvCorrection::deferred) << "a limited correction is not affine";
    EXPECT_EQ(parse_case_text(mesh + "discretisation: fv\nfv: {correction: implicit}\n", "ok.yaml", {}).fv.correction,
              FvCorrection::implicit);
}

TEST(FiniteVolumes, OverlappingAndInteriorConditionsAreRefused)
{
    // 'boundary' holds 'left': one face, two conditions.
    const std::string yaml = "mesh: {shape: unit_square, size: 0.25}\ndiscretisation: fv\nproblem:\n"
                             "  dirichlet: {boundary: 0}\n  neumann: {left: 1}\n";
    expect_run_error(yaml, "problem.neumann.left", "overlapping conditions accepted");
}

namespace {

/// Errors after six steps on x = M x + c (M diagonal, its entries eigen[i % 4], c random from
/// the test's seed) of depth-5 Anderson mixing and of the plain iteration, against the exact
/// fixed point.
std::pair<double, double> mixing_and_plain_errors(const std::array<double, 4>& eigen)
{
    const unsigned seed = test::random_seed();
    const std::size_t n = 400;
    const std::vector<double> c = test::random_vector<double>(n, seed);
    const auto apply = [&](const std::vector<double>& x) {
        std::vector<double> g(n);
        for (std::size_t i = 0; i < n; ++i) g[i] = eigen[i % 4] * x[i] + c[i];
        return g;
    };
    const auto error = [&](const std::vector<double>& x) {
        double e = 0;
        for (std::size_t i = 0; i < n; ++i) e = std::max(e, std::abs(x[i] - c[i] / (1 - eigen[i % 4])));
        return e;
    };
    AndersonMixing<double> mixing(5);
    std::vector<double> x(n, 0.0), plain(n, 0.0);
    for (int k = 0; k < 6; ++k) {
        const Array<double> xa = Array<double>::from_host(cpu(), x);
        const Array<double> g = Array<double>::from_host(cpu(), apply(x));
        x = mixing.next(xa, g).to_host();
        plain = apply(plain);
    }
    return {error(x), error(plain)};
}

}  // namespace

TEST(AndersonMixing, SolvesALinearFixedPointInDepthPlusOneSteps)
{
    // Four distinct eigenvalues, two of them beyond 1 in magnitude (the plain iteration
    // diverges): depth-5 mixing is GMRES on (I - M), exact after as many steps as distinct
    // eigenvalues (+1 for the first, unmixed step). Every eigenvalue is below 1, so I - M is
    // positive definite and GMRES cannot stagnate.
    const auto [mixed, plain] = mixing_and_plain_errors({0.5, -0.8, -1.3, -1.6});
    EXPECT_LT(mixed, 1e-10);
    EXPECT_GT(plain, 1.0) << "the plain iteration diverges";
}

TEST(AndersonMixing, SolvesALinearFixedPointWithAnEigenvalueAboveOne)
{
    // With 1.3 among the eigenvalues I - M is indefinite: about one c in 4000 makes a step
    // nearly stagnate, and the iterates' rounding, magnified by the inverse of that short
    // step's length, stays in the answer (at most 2.2e-8 over a million seeds, whatever the
    // least-squares solve). The short step still gets its full weight.
    const auto [mixed, plain] = mixing_and_plain_errors({0.5, -0.8, 1.3, -1.6});
    EXPECT_LT(mixed, 1e-6);
    EXPECT_GT(plain, 1.0) << "the plain iteration diverges";
}
