#include "mesh/vtk_reader.hpp"

#include <stdexcept>

#include <vtkDataArray.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLUnstructuredGridReader.h>

namespace gpufem {

VtuPointData read_vtu_point_data(const std::filesystem::path& path)
{
    if (!std::filesystem::is_regular_file(path))
        throw std::runtime_error("result file '" + path.string() + "' not found");
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
    vtkPointData* pd = grid->GetPointData();
    for (int a = 0; a < pd->GetNumberOfArrays(); ++a) {
        vtkDataArray* array = pd->GetArray(a);
        if (array == nullptr || array->GetNumberOfComponents() != 1 || array->GetName() == nullptr)
            continue;
        std::vector<double>& values = data.fields[array->GetName()];
        values.resize(n);
        for (vtkIdType i = 0; i < n; ++i) values[i] = array->GetTuple1(i);
    }
    return data;
}

}  // namespace gpufem
