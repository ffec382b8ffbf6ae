#include "mesh/vtk_reader.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <vtkCallbackCommand.h>
#include <vtkCellData.h>
#include <vtkCommand.h>
#include <vtkDataArray.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPUnstructuredGridReader.h>
#include <vtkXMLUnstructuredGridReader.h>

#include "linalg/file_kind.hpp"

namespace gpufem {
namespace {

/// The one-component arrays of point or cell data, by name.
void read_fields(vtkDataSetAttributes* attributes, vtkIdType count, std::map<std::string, std::vector<double>>& fields)
{
    for (int a = 0; a < attributes->GetNumberOfArrays(); ++a) {
        vtkDataArray* array = attributes->GetArray(a);
        if (array == nullptr || array->GetNumberOfComponents() != 1 || array->GetName() == nullptr) continue;
        std::vector<double>& values = fields[array->GetName()];
        values.resize(static_cast<std::size_t>(count));
        for (vtkIdType i = 0; i < count; ++i) values[i] = array->GetTuple1(i);
    }
}

/// The mean of each cell's points.
std::vector<double> cell_centres(vtkUnstructuredGrid& grid, const std::vector<double>& points)
{
    std::vector<double> centres(3 * static_cast<std::size_t>(grid.GetNumberOfCells()), 0.0);
    for (vtkIdType c = 0; c < grid.GetNumberOfCells(); ++c) {
        vtkIdType count = 0;
        const vtkIdType* ids = nullptr;
        grid.GetCellPoints(c, count, ids);
        for (vtkIdType k = 0; k < count; ++k)
            for (int d = 0; d < 3; ++d) centres[3 * c + d] += points[3 * ids[k] + d];
        for (int d = 0; d < 3; ++d) centres[3 * c + d] /= std::max<vtkIdType>(count, 1);
    }
    return centres;
}

/// The last line of a VTK error message without its source location and object prefix.
std::string vtk_message(const std::string& text)
{
    std::string line = text;
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
    if (const auto end = line.rfind('\n'); end != std::string::npos) line = line.substr(end + 1);
    if (const auto prefix = line.find("): "); prefix != std::string::npos) line = line.substr(prefix + 3);
    return line;
}

/// Throws naming the first piece a .pvtu lists (its Piece Source attributes, relative to its
/// folder) that is not a readable file: VTK's own message gives only the piece's number.
void check_pieces(const std::filesystem::path& pvtu)
{
    std::ifstream in(pvtu);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string key = "Source=\"";
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
        at += key.size();
        const auto end = text.find('"', at);
        if (end == std::string::npos) break;
        const std::filesystem::path piece = pvtu.parent_path() / text.substr(at, end - at);
        if (const std::string problem = not_a_regular_file(piece); !problem.empty())
            throw std::runtime_error("piece '" + piece.string() + "' of '" + pvtu.string() + "' " + problem);
    }
}

/// Reads the file with VTK's reader for its kind, VTK's error messages (a broken file or piece)
/// kept for the exception instead of printed.
template <typename Reader>
vtkSmartPointer<vtkUnstructuredGrid> read_grid(const std::filesystem::path& path)
{
    auto reader = vtkSmartPointer<Reader>::New();
    std::string errors;
    auto observer = vtkSmartPointer<vtkCallbackCommand>::New();
    observer->SetClientData(&errors);
    observer->SetCallback([](vtkObject*, unsigned long, void* client, void* message) {
        auto& text = *static_cast<std::string*>(client);
        if (text.empty() && message != nullptr) text = static_cast<const char*>(message);
    });
    reader->AddObserver(vtkCommand::ErrorEvent, observer);
    reader->SetParserErrorObserver(observer);
    auto quiet = vtkSmartPointer<vtkCallbackCommand>::New();  // warnings: neither printed nor fatal
    reader->AddObserver(vtkCommand::WarningEvent, quiet);
    reader->SetFileName(path.c_str());
    reader->Update();
    vtkSmartPointer<vtkUnstructuredGrid> grid = reader->GetOutput();
    if (grid == nullptr || reader->GetErrorCode() != 0 || !errors.empty() || grid->GetNumberOfPoints() == 0)
        throw std::runtime_error("cannot read '" + path.string() + "' as a VTK unstructured grid" +
                                 (errors.empty() ? "" : ": " + vtk_message(errors)));
    return grid;
}

}  // namespace

VtuPointData read_vtu_point_data(const std::filesystem::path& path)
{
    if (const std::string problem = not_a_regular_file(path); !problem.empty())
        throw std::runtime_error("result file '" + path.string() + "' " + problem);
    if (path.extension() == ".pvtu") check_pieces(path);
    const auto grid = path.extension() == ".pvtu" ? read_grid<vtkXMLPUnstructuredGridReader>(path)
                                                  : read_grid<vtkXMLUnstructuredGridReader>(path);
    VtuPointData data;
    const vtkIdType n = grid->GetNumberOfPoints();
    data.points.resize(3 * static_cast<std::size_t>(n));
    for (vtkIdType i = 0; i < n; ++i) grid->GetPoint(i, &data.points[3 * i]);
    read_fields(grid->GetPointData(), n, data.fields);
    data.cells = static_cast<std::size_t>(grid->GetNumberOfCells());
    read_fields(grid->GetCellData(), grid->GetNumberOfCells(), data.cell_fields);
    data.cell_centres = cell_centres(*grid, data.points);
    return data;
}

}  // namespace gpufem
