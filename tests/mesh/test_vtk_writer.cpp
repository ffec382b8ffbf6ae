// Writing .vtu files: read back with VTK's own reader; failures leave no file.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>

#include <tuple>

#include <gtest/gtest.h>
#include <vtkCellData.h>
#include <vtkCell.h>
#include <vtkCellType.h>
#include <vtkType.h>
#include <vtkDataArray.h>
#include <vtkIdList.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include "mesh/mesh_source.hpp"
#include "mesh/vtk_lagrange_nodes.hpp"
#include "mesh/vtk_writer.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

using test::TempFolder;

/// Two unit quadrilaterals side by side: [0,2]x[0,1], groups 1 and 2.
Mesh two_quads()
{
    Mesh mesh;
    mesh.dim = 2;
    mesh.cell_type = ElementType::quadrilateral;
    mesh.nodes_per_cell = 4;
    mesh.coordinates = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0};
    mesh.cells = {0, 1, 4, 3, 1, 2, 5, 4};
    mesh.cell_group = {1, 2};
    mesh.source = "two quads";
    return mesh;
}

/// Reads a .vtu file with VTK's reader.
vtkSmartPointer<vtkUnstructuredGrid> read_vtu(const std::filesystem::path& path)
{
    vtkNew<vtkXMLUnstructuredGridReader> reader;
    reader->SetFileName(path.c_str());
    reader->Update();
    return reader->GetOutput();
}

/// The names of the files in a folder.
std::vector<std::string> files_in(const std::filesystem::path& folder)
{
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
        names.push_back(entry.path().filename().string());
    return names;
}

/// The built-in unit cube of hexahedra at size h and degree k.
Mesh unit_cube_hexes(double h, int degree)
{
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::shape;
    spec.shape = "unit_cube";
    spec.elements = "hexahedron";
    spec.size = h;
    spec.degree = degree;
    return load_mesh(spec);
}

/// n values in [-1, 1) from a fresh seed (printed).
std::vector<double> random_field(std::size_t n, std::mt19937& rng)
{
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> values(n);
    for (double& v : values) v = dist(rng);
    return values;
}

/// A generator from a fresh seed, printed for a replay.
std::mt19937 seeded_generator()
{
    const unsigned seed = std::random_device{}();
    std::cout << "[ seed     ] " << seed << "\n";
    return std::mt19937(seed);
}


TEST(VtkWriter, EveryCompressionReadsBackIdentical)
{
    // A Q2 mesh from the built-in unit cube (Lagrange cells) with random fields, written with
    // lz4, zlib and none: VTK reads every array back bit for bit; the sizes order as expected.
    TempFolder folder;
    const Mesh mesh = unit_cube_hexes(0.25, 2);
    std::mt19937 rng = seeded_generator();
    const std::vector<double> u = random_field(mesh.num_nodes(), rng), k = random_field(mesh.num_cells(), rng);
    std::map<std::string, std::uintmax_t> bytes;
    for (const auto& [compression, name] : vtu_compression_names) {
        SCOPED_TRACE(std::string(name));
        const auto path = folder / (std::string(name) + ".vtu");
        write_vtu(path, mesh, {{"u", u}}, {{"k", k}}, compression);
        bytes[std::string(name)] = std::filesystem::file_size(path);
        const auto grid = read_vtu(path);
        ASSERT_EQ(grid->GetNumberOfPoints(), mesh.num_nodes());
        ASSERT_EQ(grid->GetNumberOfCells(), mesh.num_cells());
        vtkDataArray* read_u = grid->GetPointData()->GetArray("u");
        vtkDataArray* read_k = grid->GetCellData()->GetArray("k");
        ASSERT_TRUE(read_u && read_k);
        for (vtkIdType n = 0; n < mesh.num_nodes(); ++n) {
            ASSERT_EQ(read_u->GetTuple1(n), u[n]) << n;
            double x[3];
            grid->GetPoints()->GetPoint(n, x);
            for (int c = 0; c < 3; ++c) ASSERT_EQ(x[c], mesh.coordinates[3 * n + c]) << n;
        }
        for (vtkIdType c = 0; c < mesh.num_cells(); ++c) ASSERT_EQ(read_k->GetTuple1(c), k[c]) << c;
        vtkNew<vtkIdList> ids;
        grid->GetCellPoints(mesh.num_cells() - 1, ids);
        EXPECT_EQ(ids->GetNumberOfIds(), mesh.nodes_per_cell);
    }
    EXPECT_LT(bytes["zlib"], bytes["lz4"]);
    EXPECT_LT(bytes["lz4"], bytes["none"]);
}

TEST(VtkWriter, Float32FieldsReadBackAsTheirValuesRoundedToFloat)
{
    // Fields marked float32 beside double ones, in every compression and through a prewrite
    // (the LZ4 writer narrows block by block: 9,261 nodes make several blocks of each array):
    // VTK reads Float32 arrays holding each value rounded to float, the others bit for bit.
    TempFolder folder;
    const Mesh mesh = unit_cube_hexes(0.05, 1);
    std::mt19937 rng = seeded_generator();
    const std::vector<double> u = random_field(mesh.num_nodes(), rng), q = random_field(mesh.num_nodes(), rng),
                              k = random_field(mesh.num_cells(), rng);
    std::vector<MeshField> points = {{"u", u}, {"q", q}}, cells = {{"k", k}};
    points[1].float32 = cells[0].float32 = true;
    // Fields held in float (as the fluxes come from the device) are written as they are.
    const auto in_float = [](const std::vector<double>& values) {
        HostVector<float> narrow(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) narrow[i] = static_cast<float>(values[i]) * 3.0f;
        return narrow;
    };
    points.emplace_back("r", in_float(u)), cells.emplace_back("h", in_float(k));
    ASSERT_TRUE(points[2].held_in_float() && points[2].float32 && points[2].values.empty());
    const auto check = [&](const std::filesystem::path& path) {
        SCOPED_TRACE(path.filename().string());
        const auto grid = read_vtu(path);
        vtkDataArray* read_u = grid->GetPointData()->GetArray("u");
        vtkDataArray* read_q = grid->GetPointData()->GetArray("q");
        vtkDataArray* read_k = grid->GetCellData()->GetArray("k");
        ASSERT_TRUE(read_u && read_q && read_k);
        EXPECT_EQ(read_u->GetDataType(), VTK_DOUBLE);
        EXPECT_EQ(read_q->GetDataType(), VTK_FLOAT);
        EXPECT_EQ(read_k->GetDataType(), VTK_FLOAT);
        for (vtkIdType n = 0; n < mesh.num_nodes(); ++n) {
            ASSERT_EQ(read_u->GetTuple1(n), u[n]) << n;
            ASSERT_EQ(read_q->GetTuple1(n), static_cast<double>(static_cast<float>(q[n]))) << n;
        }
        for (vtkIdType c = 0; c < mesh.num_cells(); ++c)
            ASSERT_EQ(read_k->GetTuple1(c), static_cast<double>(static_cast<float>(k[c]))) << c;
        vtkDataArray* read_r = grid->GetPointData()->GetArray("r");
        vtkDataArray* read_h = grid->GetCellData()->GetArray("h");
        ASSERT_TRUE(read_r && read_h);
        EXPECT_EQ(read_r->GetDataType(), VTK_FLOAT);
        EXPECT_EQ(read_h->GetDataType(), VTK_FLOAT);
        for (vtkIdType n = 0; n < mesh.num_nodes(); ++n)
            ASSERT_EQ(read_r->GetTuple1(n), static_cast<double>(points[2].narrow[static_cast<std::size_t>(n)])) << n;
        for (vtkIdType c = 0; c < mesh.num_cells(); ++c)
            ASSERT_EQ(read_h->GetTuple1(c), static_cast<double>(cells[1].narrow[static_cast<std::size_t>(c)])) << c;
    };
    for (const auto& [compression, name] : vtu_compression_names) {
        const auto path = folder / (std::string(name) + ".vtu");
        write_vtu(path, mesh, points, cells, compression);
        check(path);
    }
    const auto staged = folder / "staged.vtu";
    {
        auto prewrite = start_vtu_prewrite(staged, mesh, 2);
        write_vtu(staged, mesh, points, cells, VtuCompression::lz4, {}, prewrite.get());
    }
    check(staged);
}

TEST(VtkWriter, PrewrittenMeshGivesTheSameArraysAndLeavesNothingWhenAbandoned)
{
    // The mesh written by a background thread first, the fields and the head after: VTK reads
    // back the same points, cells, groups and fields as from the one-step file; an abandoned
    // prewrite leaves no file.
    TempFolder folder;
    const Mesh mesh = unit_cube_hexes(0.05, 1);  // 8,000 cells, 9,261 nodes: several LZ4 blocks per array
    std::mt19937 rng = seeded_generator();
    const std::vector<double> u = random_field(mesh.num_nodes(), rng), e = random_field(mesh.num_nodes(), rng),
                              k = random_field(mesh.num_cells(), rng);
    const auto plain = folder / "plain.vtu", staged = folder / "staged.vtu";
    write_vtu(plain, mesh, {{"u", u}, {"error", e}}, {{"k", k}}, VtuCompression::lz4);
    {
        auto prewrite = start_vtu_prewrite(staged, mesh, 2);
        write_vtu(staged, mesh, {{"u", u}, {"error", e}}, {{"k", k}}, VtuCompression::lz4, {}, prewrite.get());
    }
    // The solution written early (while the fields after it are computed), the rest at the end.
    const auto early = folder / "early.vtu";
    {
        auto prewrite = start_vtu_prewrite(early, mesh, 2);
        const MeshField solution("u", u);
        write_vtu_field_early(*prewrite, mesh, solution);
        std::vector<MeshField> fields{{"u", u}, {"error", e}};
        write_vtu(early, mesh, fields, {{"k", k}}, VtuCompression::lz4, {}, prewrite.get());
    }
    ASSERT_TRUE(std::filesystem::exists(staged));
    ASSERT_TRUE(std::filesystem::exists(early));
    // The same arrays, each once: the same bytes as the file written at the end.
    EXPECT_EQ(std::filesystem::file_size(early), std::filesystem::file_size(staged));
    const auto a = read_vtu(plain), b = read_vtu(staged);
    for (const auto& other : {b, read_vtu(early)}) {
        ASSERT_EQ(other->GetNumberOfPoints(), a->GetNumberOfPoints());
        ASSERT_EQ(other->GetNumberOfCells(), a->GetNumberOfCells());
        for (const auto& [data, name] : {std::pair{0, "u"}, std::pair{0, "error"}, std::pair{1, "k"}, std::pair{1, "group"}}) {
            vtkFieldData* x = data == 0 ? static_cast<vtkFieldData*>(a->GetPointData()) : a->GetCellData();
            vtkFieldData* y = data == 0 ? static_cast<vtkFieldData*>(other->GetPointData()) : other->GetCellData();
            vtkDataArray* ax = x->GetArray(name);
            vtkDataArray* ay = y->GetArray(name);
            ASSERT_TRUE(ax && ay) << name;
            for (vtkIdType i = 0; i < ax->GetNumberOfTuples(); ++i) ASSERT_EQ(ay->GetTuple1(i), ax->GetTuple1(i)) << name;
        }
    }
    for (vtkIdType n = 0; n < a->GetNumberOfPoints(); n += 97) {
        double x[3], y[3];
        a->GetPoints()->GetPoint(n, x);
        b->GetPoints()->GetPoint(n, y);
        for (int c = 0; c < 3; ++c) ASSERT_EQ(y[c], x[c]);
    }
    for (vtkIdType c = 0; c < a->GetNumberOfCells(); c += 89) {
        vtkNew<vtkIdList> x, y;
        a->GetCellPoints(c, x);
        b->GetCellPoints(c, y);
        ASSERT_EQ(y->GetNumberOfIds(), x->GetNumberOfIds());
        for (vtkIdType i = 0; i < x->GetNumberOfIds(); ++i) ASSERT_EQ(y->GetId(i), x->GetId(i));
        EXPECT_EQ(b->GetCellType(c), a->GetCellType(c));
    }
    const auto abandoned = folder / "abandoned.vtu";
    {
        auto prewrite = start_vtu_prewrite(abandoned, mesh, 1);
    }
    for (const std::string& name : files_in(folder.path()))
        EXPECT_EQ(name.find("abandoned"), std::string::npos) << name << " was left behind";
}

TEST(VtkWriter, FieldsWrittenEarlyInSeveralStepsReadBackOnceEach)
{
    // The solution, then two cell fields (one narrowed to Float32), handed to the prewrite
    // while later fields are computed; write_vtu given all of them writes the rest: each array
    // once, as write_vtu writes it in one go.
    TempFolder folder;
    const Mesh mesh = unit_cube_hexes(0.05, 1);
    std::mt19937 rng = seeded_generator();
    const std::vector<double> u = random_field(mesh.num_nodes(), rng), p = random_field(mesh.num_nodes(), rng),
                              k = random_field(mesh.num_cells(), rng), q = random_field(mesh.num_cells(), rng);
    const auto cells_of = [&] {
        std::vector<MeshField> cells{{"k", k}, {"q", q}};
        cells[1].float32 = true;
        cells.emplace_back("w", HostVector<float>(q.begin(), q.end()));  // held in float
        return cells;
    };
    const auto plain = folder / "plain.vtu", staged = folder / "staged.vtu", early = folder / "early.vtu";
    write_vtu(plain, mesh, {{"u", u}, {"p", p}}, cells_of(), VtuCompression::lz4);
    {
        auto prewrite = start_vtu_prewrite(staged, mesh, 2);
        write_vtu(staged, mesh, {{"u", u}, {"p", p}}, cells_of(), VtuCompression::lz4, {}, prewrite.get());
    }
    {
        auto prewrite = start_vtu_prewrite(early, mesh, 2);
        std::vector<MeshField> points{{"u", u}, {"p", p}};
        const std::vector<MeshField> cells = cells_of();
        write_vtu_field_early(*prewrite, mesh, points[0]);
        write_vtu_cell_fields_early(*prewrite, mesh, cells);
        write_vtu(early, mesh, points, cells, VtuCompression::lz4, {}, prewrite.get());
    }
    EXPECT_EQ(std::filesystem::file_size(early), std::filesystem::file_size(staged));
    const auto a = read_vtu(plain), b = read_vtu(early);
    ASSERT_EQ(b->GetNumberOfCells(), a->GetNumberOfCells());
    for (const auto& [data, name] : {std::pair{0, "u"}, std::pair{0, "p"}, std::pair{1, "k"}, std::pair{1, "q"}, std::pair{1, "w"}, std::pair{1, "group"}}) {
        vtkFieldData* x = data == 0 ? static_cast<vtkFieldData*>(a->GetPointData()) : a->GetCellData();
        vtkFieldData* y = data == 0 ? static_cast<vtkFieldData*>(b->GetPointData()) : b->GetCellData();
        vtkDataArray* ax = x->GetArray(name);
        vtkDataArray* ay = y->GetArray(name);
        ASSERT_TRUE(ax && ay) << name;
        EXPECT_EQ(ay->GetDataType(), ax->GetDataType()) << name;
        for (vtkIdType i = 0; i < ax->GetNumberOfTuples(); ++i) ASSERT_EQ(ay->GetTuple1(i), ax->GetTuple1(i)) << name;
    }
    EXPECT_EQ(b->GetCellData()->GetArray("q")->GetDataType(), VTK_FLOAT);
    EXPECT_EQ(b->GetCellData()->GetArray("w")->GetDataType(), VTK_FLOAT);
    // Fields of another size are refused before anything is handed over.
    auto prewrite = start_vtu_prewrite(folder / "wrong.vtu", mesh, 1);
    const std::vector<MeshField> short_field{{"k", std::vector<double>(10, 1.0)}};
    EXPECT_THROW(write_vtu_cell_fields_early(*prewrite, mesh, short_field), std::invalid_argument);
}

TEST(VtkWriter, MixedCellsReadBackWithTheirTypesAndPositiveVolumes)
{
    // A hexahedron [0,1]^3, a pyramid on its top (apex (0.5, 0.5, 1.5)) and a prism beside it
    // (the triangle (1,0), (2,0), (1,1) from z = 0 to 1), in Gmsh's node orders: read back with
    // VTK's types and volumes 1, 1/6, 1/2 (VTK's wedge lists its bottom triangle the other way
    // round), by every writer.
    Mesh mesh;
    mesh.dim = 3;
    mesh.cell_type = ElementType::hexahedron;
    mesh.nodes_per_cell = 8;
    mesh.coordinates = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1,
                        0.5, 0.5, 1.5, 2, 0, 0, 2, 0, 1};
    mesh.cells = {0, 1, 2, 3, 4, 5, 6, 7,         //
                  4, 5, 6, 7, 8, -1, -1, -1,       //
                  1, 9, 2, 5, 10, 6, -1, -1};
    mesh.cell_types = {static_cast<std::uint8_t>(ElementType::hexahedron), static_cast<std::uint8_t>(ElementType::pyramid),
                       static_cast<std::uint8_t>(ElementType::prism)};
    mesh.cell_group = {1, 2, 3};
    mesh.source = "mixed cells";
    TempFolder folder;
    const auto one_step = folder / "mixed.vtu", staged = folder / "staged.vtu";
    write_vtu(one_step, mesh, {}, {{"k", {1.0, 2.0, 3.0}}}, VtuCompression::lz4);
    {
        auto prewrite = start_vtu_prewrite(staged, mesh, 1);
        write_vtu(staged, mesh, {}, {{"k", {1.0, 2.0, 3.0}}}, VtuCompression::lz4, {}, prewrite.get());
    }
    write_vtu(folder / "zlib.vtu", mesh, {}, {}, VtuCompression::zlib);
    for (const auto& path : {one_step, staged, folder / "zlib.vtu"}) {
        SCOPED_TRACE(path.filename().string());
        const auto grid = read_vtu(path);
        ASSERT_EQ(grid->GetNumberOfCells(), 3);
        EXPECT_EQ(grid->GetCellType(0), VTK_HEXAHEDRON);
        EXPECT_EQ(grid->GetCellType(1), VTK_PYRAMID);
        EXPECT_EQ(grid->GetCellType(2), VTK_WEDGE);
        const double expected[3] = {1.0, 1.0 / 6.0, 0.5};
        for (vtkIdType c = 0; c < 3; ++c) {
            // The signed volume from VTK's own corner order: the tetrahedra from the first
            // corner of VTK's faces, which VTK orders with outward normals.
            vtkCell* cell = grid->GetCell(c);
            double volume = 0, o[3];
            grid->GetPoint(cell->GetPointId(0), o);
            for (int f = 0; f < cell->GetNumberOfFaces(); ++f) {
                vtkCell* face = cell->GetFace(f);
                double a[3], b[3], x[3];
                for (int k = 1; k + 1 < face->GetNumberOfPoints(); ++k) {
                    grid->GetPoint(face->GetPointId(0), a);
                    grid->GetPoint(face->GetPointId(k), b);
                    grid->GetPoint(face->GetPointId(k + 1), x);
                    double u[3], v[3], w[3];
                    for (int i = 0; i < 3; ++i) u[i] = a[i] - o[i], v[i] = b[i] - o[i], w[i] = x[i] - o[i];
                    volume += (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
                               u[2] * (v[0] * w[1] - v[1] * w[0])) / 6.0;
                }
            }
            EXPECT_NEAR(volume, expected[c], 1e-12) << "cell " << c;
        }
    }
    // A node entry out of range, or a padding slot that is not -1, names the cell and the slot;
    // nothing is written.
    for (const auto& [slot, entry, message] :
         {std::tuple{12, 11, "cell 1 of mesh 'mixed cells' (a pyramid) has node entry 11 at 4"},
          std::tuple{22, 3, "cell 2 of mesh 'mixed cells' (a prism) has node entry 3 at 6"},
          std::tuple{3, -1, "cell 0 of mesh 'mixed cells' (a hexahedron) has node entry -1 at 3"}}) {
        Mesh bad = mesh;
        bad.cells[static_cast<std::size_t>(slot)] = entry;
        const auto path = folder / "bad.vtu";
        try {
            write_vtu(path, bad, {}, {}, VtuCompression::lz4);
            ADD_FAILURE() << "no error for " << message;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
        EXPECT_FALSE(std::filesystem::exists(path));
    }
}

// Files are marked version 1.0 (meshio refuses 2.2); their Lagrange hexahedra are in 1.0's
// node order, which VTK's reader turns into its current one: read back, every cell of orders
// 2-4 lists its nodes in VTK's current order (vtk_lagrange_node_order), for each compression.
TEST(VtkWriter, LagrangeHexahedraReadBackInVtksOrderFromVersionOneFiles)
{
    TempFolder folder;
    for (int degree = 2; degree <= 4; ++degree) {
        MeshSpec spec;
        spec.kind = MeshSpec::Kind::shape;
        spec.shape = "unit_cube";
        spec.elements = "hexahedron";
        spec.size = 0.5;
        spec.degree = degree;
        const Mesh mesh = load_mesh(spec);
        const std::vector<int>& vtk_order = vtk_lagrange_node_order(mesh.cell_type, degree);
        for (const auto& [compression, name] : vtu_compression_names) {
            SCOPED_TRACE(std::string(name) + ", degree " + std::to_string(degree));
            const auto path = folder / (std::string(name) + ".vtu");
            write_vtu(path, mesh, {}, {}, compression);
            std::ifstream in(path);
            std::string head(200, '\0');
            in.read(head.data(), 200);
            EXPECT_NE(head.find("version=\"1.0\""), std::string::npos) << head;
            const auto grid = read_vtu(path);
            ASSERT_EQ(grid->GetNumberOfCells(), mesh.num_cells());
            vtkNew<vtkIdList> ids;
            for (vtkIdType c = 0; c < mesh.num_cells(); ++c) {
                grid->GetCellPoints(c, ids);
                ASSERT_EQ(ids->GetNumberOfIds(), mesh.nodes_per_cell);
                for (int i = 0; i < mesh.nodes_per_cell; ++i)
                    ASSERT_EQ(ids->GetId(i), mesh.cells[c * mesh.nodes_per_cell + vtk_order[i]])
                        << "cell " << c << " point " << i;
            }
        }
    }
}

TEST(VtkWriter, WritesPointsCellsAndFields)
{
    TempFolder folder;
    const Mesh mesh = two_quads();
    std::vector<double> u;
    for (index_type n = 0; n < mesh.num_nodes(); ++n)
        u.push_back(mesh.coordinates[3 * n] + 2 * mesh.coordinates[3 * n + 1]);
    const auto path = folder / "result.vtu";
    write_vtu(path, mesh, {{"u", u}, {"v", std::vector<double>(6, -1.5)}}, {{"kappa", {0.5, 4.0}}});
    EXPECT_EQ(files_in(folder.path()), std::vector<std::string>{"result.vtu"});

    const auto grid = read_vtu(path);
    ASSERT_EQ(grid->GetNumberOfPoints(), 6);
    ASSERT_EQ(grid->GetNumberOfCells(), 2);
    for (vtkIdType n = 0; n < 6; ++n) {
        double x[3];
        grid->GetPoints()->GetPoint(n, x);
        for (int c = 0; c < 3; ++c) EXPECT_EQ(x[c], mesh.coordinates[3 * n + c]);
    }
    EXPECT_EQ(grid->GetPoints()->GetDataType(), VTK_DOUBLE);
    for (vtkIdType c = 0; c < 2; ++c) {
        EXPECT_EQ(grid->GetCellType(c), VTK_QUAD);
        vtkNew<vtkIdList> ids;
        grid->GetCellPoints(c, ids);
        ASSERT_EQ(ids->GetNumberOfIds(), 4);
        for (vtkIdType i = 0; i < 4; ++i) EXPECT_EQ(ids->GetId(i), mesh.cells[4 * c + i]);
    }
    vtkDataArray* read_u = grid->GetPointData()->GetArray("u");
    ASSERT_NE(read_u, nullptr);
    EXPECT_EQ(read_u->GetDataType(), VTK_DOUBLE);
    for (vtkIdType n = 0; n < 6; ++n) EXPECT_EQ(read_u->GetTuple1(n), u[n]);
    ASSERT_NE(grid->GetPointData()->GetArray("v"), nullptr);
    EXPECT_EQ(grid->GetPointData()->GetArray("v")->GetTuple1(3), -1.5);

    vtkDataArray* group = grid->GetCellData()->GetArray("group");
    ASSERT_NE(group, nullptr);
    EXPECT_EQ(group->GetDataType(), VTK_INT);
    EXPECT_EQ(group->GetDataTypeSize(), 4);
    EXPECT_EQ(group->GetTuple1(0), 1);
    EXPECT_EQ(group->GetTuple1(1), 2);
    vtkDataArray* kappa = grid->GetCellData()->GetArray("kappa");
    ASSERT_NE(kappa, nullptr);
    EXPECT_EQ(kappa->GetTuple1(0), 0.5);
    EXPECT_EQ(kappa->GetTuple1(1), 4.0);
}

TEST(VtkWriter, WritesGmshMeshesAndOverwrites)
{
    TempFolder folder;
    MeshSpec spec;
    spec.shape = "unit_cube";
    spec.size = 0.5;
    const Mesh cube = load_mesh(spec);
    const auto path = folder / "cube.vtu";
    write_vtu(path, two_quads(), {}, {});  // replaced below
    write_vtu(path, cube, {{"u", std::vector<double>(cube.num_nodes(), 1.0)}}, {});
    EXPECT_EQ(files_in(folder.path()), std::vector<std::string>{"cube.vtu"});

    const auto grid = read_vtu(path);
    ASSERT_EQ(grid->GetNumberOfPoints(), cube.num_nodes());
    ASSERT_EQ(grid->GetNumberOfCells(), cube.num_cells());
    for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) {
        ASSERT_EQ(grid->GetCellType(c), VTK_HEXAHEDRON);
        vtkNew<vtkIdList> ids;
        grid->GetCellPoints(c, ids);
        for (vtkIdType i = 0; i < 8; ++i) ASSERT_EQ(ids->GetId(i), cube.cells[8 * c + i]);
    }
    EXPECT_EQ(grid->GetCellData()->GetArray("group")->GetTuple1(0), cube.cell_group[0]);
}

TEST(VtkWriter, WrongFieldSizeThrowsAndLeavesNoFile)
{
    TempFolder folder;
    const Mesh mesh = two_quads();
    try {
        write_vtu(folder / "bad.vtu", mesh, {{"u", std::vector<double>(5, 0.0)}}, {});
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'u'"), std::string::npos) << e.what();
    }
    try {
        write_vtu(folder / "bad.vtu", mesh, {}, {{"k", std::vector<double>(6, 0.0)}});
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'k'"), std::string::npos) << e.what();
    }
    EXPECT_THROW(write_vtu(folder / "bad.vtu", mesh, {}, {{"group", {1.0, 2.0}}}), std::invalid_argument);
    EXPECT_TRUE(files_in(folder.path()).empty());
}

TEST(VtkWriter, MissingFolderThrowsAndCreatesNothing)
{
    TempFolder folder;
    const auto path = folder / "absent" / "result.vtu";
    try {
        write_vtu(path, two_quads(), {}, {});
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("absent"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(folder / "absent"));
    EXPECT_TRUE(files_in(folder.path()).empty());
}

}  // namespace
}  // namespace gpufem
