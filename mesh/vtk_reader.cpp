#include "mesh/vtk_reader.hpp"

#include <stdexcept>

#include <vtkDataArray.h>
#include <vtkCellData.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

#include "linalg/file_kind.hpp"

namespace gpufem {

VtuPointData read_vtu_point_data(const std::filesystem::path& path)
{
    if (const std::string problem = not_a_regular_file(path); !problem.empty())
        throw std::runtime_error("result file '" + path.string() + "' " + problem);
    auto reader = vtkSmartPointer<vtkXMLUnstructuredGridReader>::New();
    reader->SetFileName(path.c_str());
    reader->Update();
    vtkUnstructuredGrid* grid = reader->GetOutput();
    if (grid == nullptr || reader->GetErrorCode() != 0 || grid->GetNumberOfPoints() == 0)
        throw std::runtime_error("cannot read '" + path.string() + "' as a VTK unstructured grid");
    VtuPointData data;
    const vtkIdType n = grid->GetNumberOfPoints();
    data.points.resize(3 * static_cast<std::size_t>(n));
    for (vtkIdType i = 0; i < n; ++i) grid->GetPoint(i, &data.points[3 * i]);
    // The one-component arrays of point or cell data, by name.
    const auto read_fields = [](vtkDataSetAttributes* attributes, vtkIdType count,
                                std::map<std::string, std::vector<double>>& fields) {
        for (int a = 0; a < attributes->GetNumberOfArrays(); ++a) {
            vtkDataArray* array = attributes->GetArray(a);
            if (array == nullptr || array->GetNumberOfComponents() != 1 || array->GetName() == nullptr)
                continue;
            std::vector<double>& values = fields[array->GetName()];
            values.resize(static_cast<std::size_t>(count));
            for (vtkIdType i = 0; i < count; ++i) values[i] = array->GetTuple1(i);
        }
    };
    read_fields(grid->GetPointData(), n, data.fields);
    data.cells = static_cast<std::size_t>(grid->GetNumberOfCells());
    read_fields(grid->GetCellData(), grid->GetNumberOfCells(), data.cell_fields);
    return data;
}

}  // namespace gpufem
