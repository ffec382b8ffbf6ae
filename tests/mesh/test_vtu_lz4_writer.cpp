// The LZ4 .vtu writer's two ways into the file (blocks copied into a preallocated mapping by
// the compressing threads, or written in order by one thread) give the same bytes, which VTK
// reads back; a file window refuses what it cannot map.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDoubleArray.h>
#include <vtkIntArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include "mesh/file_window.hpp"
#include "mesh/vtu_lz4_writer.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

using test::TempFolder;

/// A file's bytes.
std::string file_bytes(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A double array of `tuples` random tuples (values of a few distinct magnitudes, so that
/// some blocks compress and others do not).
vtkSmartPointer<vtkDoubleArray> random_array(const char* name, vtkIdType tuples, int components, std::mt19937& rng)
{
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    auto array = vtkSmartPointer<vtkDoubleArray>::New();
    array->SetName(name);
    array->SetNumberOfComponents(components);
    array->SetNumberOfTuples(tuples);
    for (vtkIdType i = 0; i < tuples * components; ++i)
        array->SetValue(i, i % 7 == 0 ? 0.5 : dist(rng));
    return array;
}

/// A grid of random points and `cells` tetrahedra on random points, with a point field, a
/// second one to be narrowed, and a cell field of as many values as cells.
vtkSmartPointer<vtkUnstructuredGrid> random_grid(vtkIdType points, vtkIdType cells, std::mt19937& rng)
{
    auto grid = vtkSmartPointer<vtkUnstructuredGrid>::New();
    vtkNew<vtkPoints> coordinates;
    coordinates->SetData(random_array("Points", points, 3, rng));
    grid->SetPoints(coordinates);
    std::uniform_int_distribution<vtkIdType> node(0, points - 1);
    grid->Allocate(cells);
    for (vtkIdType c = 0; c < cells; ++c) {
        const vtkIdType ids[4] = {node(rng), node(rng), node(rng), node(rng)};
        grid->InsertNextCell(VTK_TETRA, 4, ids);
    }
    grid->GetPointData()->AddArray(random_array("u", points, 1, rng));
    grid->GetPointData()->AddArray(random_array("q", points, 3, rng));
    vtkNew<vtkIntArray> group;
    group->SetName("group");
    group->SetNumberOfTuples(cells);
    for (vtkIdType c = 0; c < cells; ++c) group->SetValue(c, static_cast<int>(c / 1000));
    grid->GetCellData()->AddArray(group);
    return grid;
}

/// Reads a .vtu file with VTK's reader.
vtkSmartPointer<vtkUnstructuredGrid> read_vtu(const std::filesystem::path& path)
{
    vtkNew<vtkXMLUnstructuredGridReader> reader;
    reader->SetFileName(path.c_str());
    reader->Update();
    return reader->GetOutput();
}

TEST(VtuLz4Writer, ParallelCopiesWriteTheBytesOfTheOrderedWriter)
{
    // Many blocks (points 200k: 4.8 MB of coordinates, 19 blocks; 300k cells), then a grid of
    // points only (empty cell arrays between and after the others): both ways give one file.
    const unsigned seed = std::random_device{}();
    std::cout << "[ seed     ] " << seed << "\n";
    std::mt19937 rng(seed);
    TempFolder folder;
    for (const auto& [points, cells] : {std::pair<vtkIdType, vtkIdType>{200000, 300000}, {5000, 0}}) {
        SCOPED_TRACE("cells " + std::to_string(cells));
        const auto grid = random_grid(points, cells, rng);
        const auto parallel = folder / "parallel.vtu", ordered = folder / "ordered.vtu";
        write_vtu_lz4(parallel, grid, {}, {"PointData/q"}, VtuFileWrites::parallel);
        write_vtu_lz4(ordered, grid, {}, {"PointData/q"}, VtuFileWrites::ordered);
        const std::string bytes = file_bytes(parallel);
        ASSERT_EQ(bytes, file_bytes(ordered));
        EXPECT_EQ(bytes.substr(bytes.size() - 11), "</VTKFile>\n");
        const auto read = read_vtu(parallel);
        ASSERT_EQ(read->GetNumberOfPoints(), points);
        ASSERT_EQ(read->GetNumberOfCells(), cells);
        vtkDataArray* u = read->GetPointData()->GetArray("u");
        vtkDataArray* q = read->GetPointData()->GetArray("q");
        ASSERT_TRUE(u && q);
        vtkDataArray* u0 = grid->GetPointData()->GetArray("u");
        vtkDataArray* q0 = grid->GetPointData()->GetArray("q");
        for (vtkIdType n = 0; n < points; ++n) {
            ASSERT_EQ(u->GetTuple1(n), u0->GetTuple1(n)) << n;
            ASSERT_EQ(q->GetComponent(n, 2), static_cast<double>(static_cast<float>(q0->GetComponent(n, 2)))) << n;
        }
        for (vtkIdType c = 0; c < cells; c += 997) {
            ASSERT_EQ(read->GetCellData()->GetArray("group")->GetTuple1(c), static_cast<double>(c / 1000));
            ASSERT_EQ(read->GetCell(c)->GetPointId(3), grid->GetCell(c)->GetPointId(3)) << c;
        }
    }
}

TEST(VtuLz4Writer, FileWindowCopiesIntoTheFileAndRefusesAPipe)
{
    TempFolder folder;
    const auto path = folder / "window.bin";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    {
        // A range starting off a page boundary, the file grown to its end.
        const auto window = FileWindow::open(fd, 5000, 10000);
        ASSERT_TRUE(window);
        const std::string text = "gpufem";
        window->copy(5000, text.data(), text.size());
        window->copy(14994, text.data(), text.size());
        EXPECT_THROW(window->copy(14995, text.data(), text.size()), std::logic_error);
        EXPECT_THROW(window->copy(4999, text.data(), 1), std::logic_error);
    }
    ::close(fd);
    const std::string bytes = file_bytes(path);
    ASSERT_EQ(bytes.size(), 15000u);
    EXPECT_EQ(bytes.substr(5000, 6), "gpufem");
    EXPECT_EQ(bytes.substr(14994), "gpufem");
    EXPECT_EQ(bytes.substr(0, 5000), std::string(5000, '\0'));

    int ends[2];
    ASSERT_EQ(::pipe(ends), 0);
    EXPECT_FALSE(FileWindow::open(ends[1], 0, 4096));  // no preallocation: the caller uses pwrite
    ::close(ends[0]);
    ::close(ends[1]);
}

}  // namespace
}  // namespace gpufem
