#pragma once
// The unit square as an n x n grid of squares split into triangles, written as a Gmsh MSH 2.2
// file whose cells lie in the regions "a" and "b" at random and carry $ElementData, their
// element tags and order shuffled; and the same triangles as a .vtu in another order.
#include <algorithm>
#include <filesystem>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDoubleArray.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridWriter.h>

namespace gpufem::test {

/// The grid's triangles (three node numbers from 0 each), each one's region (0: "a", 1: "b")
/// and its Gmsh element tag.
struct CellDataSquare {
    int n = 8;
    std::vector<std::array<int, 3>> triangles;
    std::vector<int> region;
    std::vector<int> tag;

    CellDataSquare(int cells_per_side, unsigned seed) : n(cells_per_side)
    {
        std::mt19937 random(seed);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                const int p = j * (n + 1) + i;
                triangles.push_back({p, p + 1, p + n + 2});
                triangles.push_back({p, p + n + 2, p + n + 1});
            }
        for (std::size_t c = 0; c < triangles.size(); ++c) region.push_back(static_cast<int>(random() % 2));
        tag.resize(triangles.size());
        std::iota(tag.begin(), tag.end(), 1000);
        std::shuffle(tag.begin(), tag.end(), random);
    }

    /// The nodes' coordinates (node k at k % (n + 1), k / (n + 1) over n).
    std::array<double, 3> node(int k) const
    {
        return {static_cast<double>(k % (n + 1)) / n, static_cast<double>(k / (n + 1)) / n, 0.0};
    }

    /// The MSH 2.2 text: regions "a" (tag 1) and "b" (tag 2), the boundary lines in
    /// "boundary" (tag 3), the cells in a shuffled order, and one $ElementData section per
    /// entry of data (name, components, the values of each cell's region in order a, b).
    std::string msh(const std::vector<std::tuple<std::string, int, std::vector<double>>>& data, unsigned seed) const
    {
        std::ostringstream out;
        out.precision(17);
        out << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n3\n1 3 \"boundary\"\n2 1 \"a\"\n2 2 \"b\"\n"
               "$EndPhysicalNames\n$Nodes\n" << (n + 1) * (n + 1) << "\n";
        for (int k = 0; k < (n + 1) * (n + 1); ++k) out << k + 1 << " " << node(k)[0] << " " << node(k)[1] << " 0\n";
        out << "$EndNodes\n$Elements\n" << 4 * n + static_cast<int>(triangles.size()) << "\n";
        int line = 1;
        const auto boundary = [&](int a, int b) { out << line++ << " 1 2 3 3 " << a + 1 << " " << b + 1 << "\n"; };
        for (int i = 0; i < n; ++i) {
            boundary(i, i + 1);
            boundary(n * (n + 1) + i, n * (n + 1) + i + 1);
            boundary(i * (n + 1), (i + 1) * (n + 1));
            boundary(i * (n + 1) + n, (i + 1) * (n + 1) + n);
        }
        std::vector<std::size_t> order(triangles.size());
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), std::mt19937(seed + 1));
        for (const std::size_t c : order)
            out << tag[c] << " 2 2 " << region[c] + 1 << " " << region[c] + 1 << " " << triangles[c][0] + 1 << " "
                << triangles[c][1] + 1 << " " << triangles[c][2] + 1 << "\n";
        out << "$EndElements\n";
        for (const auto& [name, components, values] : data) {
            out << "$ElementData\n1\n\"" << name << "\"\n1\n0\n3\n0\n" << components << "\n" << triangles.size() << "\n";
            for (const std::size_t c : order) {
                out << tag[c];
                for (int k = 0; k < components; ++k) out << " " << values[static_cast<std::size_t>(region[c] * components + k)];
                out << "\n";
            }
            out << "$EndElementData\n";
        }
        return out.str();
    }

    /// Writes the triangles as a .vtu in reverse order, with the cell array `name` (the value
    /// of each cell's region, a then b); shift moves the first triangle's corners by that.
    void write_vtu(const std::filesystem::path& path, const std::string& name, const std::vector<double>& values,
                   bool drop_one = false, double shift = 0.0) const
    {
        auto points = vtkSmartPointer<vtkPoints>::New();
        for (int k = 0; k < (n + 1) * (n + 1); ++k) points->InsertNextPoint(node(k).data());
        auto grid = vtkSmartPointer<vtkUnstructuredGrid>::New();
        grid->SetPoints(points);
        auto array = vtkSmartPointer<vtkDoubleArray>::New();
        array->SetName(name.c_str());
        for (std::size_t r = 0; r < triangles.size() - (drop_one ? 1 : 0); ++r) {
            const std::size_t c = triangles.size() - 1 - r;
            vtkIdType ids[3] = {triangles[c][0], triangles[c][1], triangles[c][2]};
            if (r == 0 && shift != 0.0) {
                for (vtkIdType& id : ids) {
                    const auto x = node(static_cast<int>(id));
                    id = points->InsertNextPoint(x[0] + shift, x[1], x[2]);
                }
            }
            grid->InsertNextCell(VTK_TRIANGLE, 3, ids);
            array->InsertNextValue(values[static_cast<std::size_t>(region[c])]);
        }
        grid->GetCellData()->AddArray(array);
        auto writer = vtkSmartPointer<vtkXMLUnstructuredGridWriter>::New();
        writer->SetFileName(path.c_str());
        writer->SetInputData(grid);
        writer->Write();
    }
};

}  // namespace gpufem::test
