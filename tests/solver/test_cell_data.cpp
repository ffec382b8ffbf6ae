// Coefficients given as cell data (kappa: {cell_data: NAME(, file: F.vtu)}), end to end: a
// mesh file's $ElementData and a .vtu's cell array on the same mesh give the very solution of
// the same values given as a map of regions, with finite elements (degrees, refinement),
// finite volumes and several ranks; bad data is refused naming the key, the file and the field.
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>
#include <tuple>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <vtkXMLPUnstructuredGridReader.h>

#include "cell_data_meshes.hpp"
#include "gpu_test.hpp"
#include "mesh/cell_fields.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/point_matching.hpp"
#include "run_gpufem.hpp"
#include "tests/mixed_mesh_geometries.hpp"
#include "tests/random_values.hpp"

namespace gpufem::test {
namespace {

/// A case: the coefficients' YAML lines, more keys and its mesh (mesh.msh beside it).
std::string case_text(const std::string& coefficients, const std::string& more = "",
                      const std::string& mesh = "{file: mesh.msh}")
{
    return "mesh: " + mesh + "\nproblem:\n" + coefficients +
           "  dirichlet: {boundary: \"x + 2*y\"}\n"
           "solver: {method: cg, preconditioner: jacobi, tolerance: 1e-13, max_iterations: 20000}\nbackend: cpu\n" + more;
}

/// Runs a case in dir (its output in dir/name); the run's output on failure.
void run_case(const TempDir& dir, const std::string& name, const std::string& text, const std::string& launcher = "")
{
    const auto file = dir.write(name + ".yaml", text);
    const CommandResult r = run_command(launcher + " " + gpufem_command() +
                                        fmt::format(" run {} -q -o {}", file.string(), (dir.path() / name).string()));
    ASSERT_EQ(r.exit_code, 0) << r.output;
}

/// max |u_a - u_b| over max |u_b| of two runs' result.vtu (the same mesh: the same points).
double difference(const TempDir& dir, const std::string& a, const std::string& b, const char* field = "u")
{
    const auto first = read_vtu(dir.path() / a / "result.vtu"), second = read_vtu(dir.path() / b / "result.vtu");
    vtkDataArray* u = first->GetPointData()->GetArray(field);
    vtkDataArray* v = second->GetPointData()->GetArray(field);
    if (!u || !v || u->GetNumberOfTuples() != v->GetNumberOfTuples()) return INFINITY;
    double diff = 0, scale = 0;
    for (vtkIdType i = 0; i < u->GetNumberOfTuples(); ++i) {
        diff = std::max(diff, std::abs(u->GetTuple1(i) - v->GetTuple1(i)));
        scale = std::max(scale, std::abs(v->GetTuple1(i)));
    }
    return diff / scale;
}

/// max |u_a - u_b| of two finite-volume runs' cell field u (the same mesh).
double cell_difference(const TempDir& dir, const std::string& a, const std::string& b)
{
    const auto first = read_vtu(dir.path() / a / "result.vtu"), second = read_vtu(dir.path() / b / "result.vtu");
    vtkDataArray* u = first->GetCellData()->GetArray("u");
    vtkDataArray* v = second->GetCellData()->GetArray("u");
    if (!u || !v || u->GetNumberOfTuples() != v->GetNumberOfTuples()) return INFINITY;
    double diff = 0;
    for (vtkIdType i = 0; i < u->GetNumberOfTuples(); ++i) diff = std::max(diff, std::abs(u->GetTuple1(i) - v->GetTuple1(i)));
    return diff;
}

/// Random kappa (in [0.01, 100]), f and c per region, a then b.
struct RegionValues {
    std::vector<double> kappa, f, c;
    explicit RegionValues(unsigned seed)
    {
        const std::vector<double> r = random_vector<double>(6, seed);
        kappa = {std::pow(10.0, 2 * r[0]), std::pow(10.0, 2 * r[1])};
        f = {10 * r[2], 10 * r[3]};
        c = {1 + r[4], 1 + r[5]};
    }
    std::string map(const char* key, const std::vector<double>& v) const
    {
        return fmt::format("  {}: {{a: {:.17g}, b: {:.17g}}}\n", key, v[0], v[1]);
    }
};

/// A folder with mesh.msh carrying permeability, source and reaction as $ElementData.
struct CellDataFixture {
    unsigned seed = random_seed();
    CellDataSquare square{6, seed};
    RegionValues values{seed};
    TempDir dir;
    CellDataFixture()
    {
        dir.write("mesh.msh", square.msh({{"permeability", 1, values.kappa}, {"source", 1, values.f},
                                          {"reaction", 1, values.c}, {"velocity", 3, {1, 0, 0, 0, 1, 0}}},
                                         seed));
    }
    std::string maps() const { return values.map("kappa", values.kappa) + values.map("f", values.f) + values.map("c", values.c); }
};

constexpr const char* data_lines = "  kappa: {cell_data: permeability}\n  f: {cell_data: source}\n  c: {cell_data: reaction}\n";

TEST(CellData, ElementDataEqualsTheSameValuesPerRegionAtEveryDegreeAndRefined)
{
    CellDataFixture fx;
    for (const auto& [degree, refine] : {std::pair{1, 0}, std::pair{3, 0}, std::pair{2, 1}}) {
        SCOPED_TRACE(fmt::format("degree {}, refine {}", degree, refine));
        const std::string more = fmt::format("degree: {}\n", degree);
        const std::string mesh = fmt::format("{{file: mesh.msh, refine: {}}}", refine);
        run_case(fx.dir, "data", case_text(data_lines, more, mesh));
        run_case(fx.dir, "map", case_text(fx.maps(), more, mesh));
        EXPECT_LE(difference(fx.dir, "data", "map"), 1e-12);
    }
}

TEST(CellData, FiniteVolumesTakeEachCellsValue)
{
    CellDataFixture fx;
    run_case(fx.dir, "data", case_text(data_lines, "discretisation: fv\n"));
    run_case(fx.dir, "map", case_text(fx.maps(), "discretisation: fv\n"));
    EXPECT_LE(cell_difference(fx.dir, "data", "map"), 1e-12);
}

TEST(CellData, ARegionsValueMayBeCellData)
{
    CellDataFixture fx;
    run_case(fx.dir, "data", case_text(fmt::format("  kappa: {{a: {{cell_data: permeability}}, b: {:.17g}}}\n", fx.values.kappa[1])));
    run_case(fx.dir, "map", case_text(fx.values.map("kappa", fx.values.kappa)));
    EXPECT_LE(difference(fx.dir, "data", "map"), 1e-12);
}

TEST(CellData, TheDeviceSpreadsEachCellsValuesAsTheHostDoes)
{
    GPUFEM_REQUIRE_GPU();
    // The cell values spread to the quadrature points (assembled and matrix-free, degrees 1 and
    // 3) or taken per cell (finite volumes) on the device: the host's solution.
    CellDataFixture fx;
    const auto on_device = [](std::string text) {
        text.replace(text.find("backend: cpu"), 12, "backend: cuda");
        return text;
    };
    for (const std::string more : {"degree: 1\n", "degree: 3\n", "degree: 2\nformat: lma\n", "discretisation: fv\n"}) {
        SCOPED_TRACE(more);
        run_case(fx.dir, "host", case_text(data_lines, more));
        run_case(fx.dir, "device", on_device(case_text(data_lines, more)));
        const bool cells = more.find("fv") != std::string::npos;
        EXPECT_LE(cells ? cell_difference(fx.dir, "device", "host") : difference(fx.dir, "device", "host"), 1e-10);
    }
}

TEST(CellData, AVtuCellArrayInAnotherOrderMatchesTheCellsByCentroid)
{
    CellDataFixture fx;
    fx.square.write_vtu(fx.dir.path() / "perm.vtu", "perm", fx.values.kappa);
    run_case(fx.dir, "data", case_text("  kappa: {cell_data: perm, file: perm.vtu}\n  f: 1\n"));
    run_case(fx.dir, "map", case_text(fx.values.map("kappa", fx.values.kappa) + "  f: 1\n"));
    EXPECT_LE(difference(fx.dir, "data", "map"), 1e-12);
}

/// max |u| difference of the pieces of dir/pieces/result.pvtu against dir/one/result.vtu, by
/// position (every piece point must be one of the one process's).
double pieces_difference(const TempDir& dir, const std::string& one_name, const std::string& pieces_name)
{
    const auto one = read_vtu(dir.path() / one_name / "result.vtu");
    auto reader = vtkSmartPointer<vtkXMLPUnstructuredGridReader>::New();
    reader->SetFileName((dir.path() / pieces_name / "result.pvtu").c_str());
    reader->Update();
    vtkUnstructuredGrid* pieces = reader->GetOutput();
    std::map<std::tuple<double, double, double>, double> u;
    for (vtkIdType p = 0; p < one->GetNumberOfPoints(); ++p) {
        double x[3];
        one->GetPoint(p, x);
        u[{x[0], x[1], x[2]}] = one->GetPointData()->GetArray("u")->GetTuple1(p);
    }
    double diff = pieces->GetNumberOfPoints() > 0 ? 0 : INFINITY;
    for (vtkIdType p = 0; p < pieces->GetNumberOfPoints(); ++p) {
        double x[3];
        pieces->GetPoint(p, x);
        const auto found = u.find({x[0], x[1], x[2]});
        if (found == u.end()) return INFINITY;
        diff = std::max(diff, std::abs(found->second - pieces->GetPointData()->GetArray("u")->GetTuple1(p)));
    }
    return diff;
}

TEST(CellData, SeveralRanksCarryTheirCellsValues)
{
    // The values go with each rank's part: assembled, matrix-free (whose part orders its cells
    // anew) and refined part by part from the coarse cells.
    CellDataFixture fx;
    const std::string ranks = fmt::format("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 "
                                          "timeout 120 {} -np 3 --oversubscribe --bind-to none", GPUFEM_MPIEXEC);
    for (const auto& [more, mesh] : {std::pair<std::string, std::string>{"", "{file: mesh.msh}"},
                                     {"format: lma\n", "{file: mesh.msh}"}, {"", "{file: mesh.msh, refine: 2}"}}) {
        SCOPED_TRACE(more + mesh);
        run_case(fx.dir, "map", case_text(fx.maps(), more, mesh));
        run_case(fx.dir, "data", case_text(data_lines, more, mesh), ranks);
        EXPECT_LE(pieces_difference(fx.dir, "map", "data"), 1e-10);
    }
}

TEST(CellData, PointsAreMatchedWhateverTheirOrder)
{
    const unsigned seed = random_seed();
    const std::vector<double> wanted = random_vector<double>(3 * 500, seed);
    std::vector<std::size_t> order(500);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(seed));
    std::vector<double> given(wanted.size());
    for (std::size_t p = 0; p < order.size(); ++p)
        for (int a = 0; a < 3; ++a) given[3 * order[p] + a] = wanted[3 * p + a] + 1e-12;
    const std::vector<long long> match = match_points(given, wanted, std::vector<double>(500, 1e-9));
    for (std::size_t p = 0; p < order.size(); ++p) EXPECT_EQ(match[p], static_cast<long long>(order[p]));
    given[0] += 1e-3;  // the point order[p] == 0 is now off
    const std::vector<long long> moved = match_points(given, wanted, std::vector<double>(500, 1e-9));
    EXPECT_EQ(std::count(moved.begin(), moved.end(), -1LL), 1);
}

/// Writes the first-order 2D mesh as a .vtu with the cell array "parent", each cell's number,
/// its cells in reverse order.
void write_centroid_vtu(const Mesh& mesh, const std::filesystem::path& path)
{
    auto points = vtkSmartPointer<vtkPoints>::New();
    for (index_type k = 0; k < mesh.num_nodes(); ++k) points->InsertNextPoint(&mesh.coordinates[3 * static_cast<std::size_t>(k)]);
    auto grid = vtkSmartPointer<vtkUnstructuredGrid>::New();
    grid->SetPoints(points);
    auto array = vtkSmartPointer<vtkDoubleArray>::New();
    array->SetName("parent");
    for (index_type c = mesh.num_cells() - 1; c >= 0; --c) {
        const bool triangle = mesh.type_of_cell(c) == ElementType::triangle;
        vtkIdType ids[4];
        for (int i = 0; i < (triangle ? 3 : 4); ++i) ids[i] = mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell + i];
        grid->InsertNextCell(triangle ? VTK_TRIANGLE : VTK_QUAD, triangle ? 3 : 4, ids);
        array->InsertNextValue(c);
    }
    grid->GetCellData()->AddArray(array);
    auto writer = vtkSmartPointer<vtkXMLUnstructuredGridWriter>::New();
    writer->SetFileName(path.c_str());
    writer->SetInputData(grid);
    writer->Write();
}

/// Whether x lies inside the convex first-order 2D cell c (its corners in either orientation).
bool inside(const Mesh& mesh, index_type c, const double* x)
{
    const int corners = element_node_count(mesh.type_of_cell(c));
    int positive = 0, negative = 0;
    for (int k = 0; k < corners; ++k) {
        const double* a = &mesh.coordinates[3 * static_cast<std::size_t>(mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell + k])];
        const double* b = &mesh.coordinates[3 * static_cast<std::size_t>(
                                                    mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell + (k + 1) % corners])];
        const double cross = (b[0] - a[0]) * (x[1] - a[1]) - (b[1] - a[1]) * (x[0] - a[0]);
        positive += cross > 0, negative += cross < 0;
    }
    return positive == 0 || negative == 0;
}

TEST(CellData, RefinedCellsOfAMixedMeshKeepTheirParentsValue)
{
    TempDir dir;
    const MeshSpec coarse_spec = mesh_spec_for_path(dir.write("mixed.geo", square_triangles_quadrilaterals(6)).string());
    const Mesh coarse = load_mesh(coarse_spec);
    ASSERT_TRUE(coarse.is_mixed());
    write_centroid_vtu(coarse, dir.path() / "parent.vtu");
    MeshSpec spec = coarse_spec;
    spec.file_order = false;
    spec.refine = 2;
    spec.cell_fields = {{"parent", (dir.path() / "parent.vtu").string(), "problem.kappa", CellFieldCheck::finite}};
    const Mesh fine = load_mesh(spec);
    ASSERT_EQ(fine.cell_fields.size(), 1u);
    ASSERT_EQ(fine.cell_fields[0].values.size(), static_cast<std::size_t>(fine.num_cells()));
    // Every cell's centroid lies inside the coarse cell its value names (its ancestor).
    long long outside = 0;
    for (index_type c = 0; c < fine.num_cells(); ++c) {
        double x[3];
        cell_corner_centroid(fine, c, x);
        outside += !inside(coarse, static_cast<index_type>(fine.cell_fields[0].values[static_cast<std::size_t>(c)]), x);
    }
    EXPECT_EQ(outside, 0) << "of " << fine.num_cells() << " cells";
}

/// Runs the case in fx's folder and expects exit 1, every part in the message and no output.
void expect_refused(const CellDataFixture& fx, const std::string& text, const std::vector<std::string>& parts)
{
    const auto file = fx.dir.write("bad.yaml", text);
    const auto out = fx.dir.path() / "bad";
    const CommandResult r = run_gpufem(fmt::format("run {} -o {}", file.string(), out.string()));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    for (const std::string& part : parts) EXPECT_NE(r.output.find(part), std::string::npos) << part << " in\n" << r.output;
    EXPECT_TRUE(!std::filesystem::exists(out) || std::filesystem::is_empty(out)) << "files left behind";
}

TEST(CellData, BadDataIsRefusedNamingTheKeyTheFileAndTheField)
{
    CellDataFixture fx;
    fx.dir.write("bad.msh", fx.square.msh({{"negative", 1, {1.0, -2.0}}, {"nan", 1, {1.0, NAN}}}, fx.seed));
    expect_refused(fx, case_text("  kappa: {cell_data: porosity}\n"),
                   {"problem.kappa", "mesh.msh", "no $ElementData field 'porosity'", "'permeability'", "'velocity'"});
    expect_refused(fx, case_text("  f: {cell_data: velocity}\n"), {"problem.f", "'velocity'", "3 components"});
    expect_refused(fx, case_text("  kappa: {cell_data: negative}\n", "", "{file: bad.msh}"),
                   {"problem.kappa", "bad.msh", "'negative'", "the value -2 at cell", "must be positive"});
    expect_refused(fx, case_text("  c: {cell_data: nan}\n", "", "{file: bad.msh}"),
                   {"problem.c", "bad.msh", "'nan'", "the value nan at cell"});
    fx.square.write_vtu(fx.dir.path() / "fewer.vtu", "perm", fx.values.kappa, true);
    expect_refused(fx, case_text("  kappa: {cell_data: perm, file: fewer.vtu}\n"),
                   {"problem.kappa", "fewer.vtu", "'perm'", "has 71 cells", "the same mesh"});
    fx.square.write_vtu(fx.dir.path() / "moved.vtu", "perm", fx.values.kappa, false, 0.01);
    expect_refused(fx, case_text("  kappa: {cell_data: perm, file: moved.vtu}\n"),
                   {"problem.kappa", "moved.vtu", "'perm'", "no cell of the file lies at cell", "the same mesh"});
    expect_refused(fx, case_text("  kappa: {cell_data: nothing, file: moved.vtu}\n"),
                   {"problem.kappa", "moved.vtu", "no cell array 'nothing'", "'perm'"});
    expect_refused(fx, case_text("  kappa: {cell_data: perm, file: missing.vtu}\n"),
                   {"problem.kappa", "missing.vtu", "not found"});
    expect_refused(fx, case_text(data_lines, "", "{shape: unit_square}"),
                   {"cell data (problem.kappa) comes with a mesh read by Gmsh"});
}

}  // namespace
}  // namespace gpufem::test
