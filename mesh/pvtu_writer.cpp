#include "mesh/pvtu_writer.hpp"

#include <fstream>
#include <stdexcept>

namespace gpufem {
namespace {

std::string data_array(const std::string& type, const std::string& name, int components = 1)
{
    std::string xml = "      <PDataArray type=\"" + type + "\"";
    if (!name.empty()) xml += " Name=\"" + name + "\"";
    if (components != 1) xml += " NumberOfComponents=\"" + std::to_string(components) + "\"";
    return xml + "/>\n";
}

}  // namespace

void write_pvtu(const std::filesystem::path& path, const std::vector<std::string>& pieces,
                const std::vector<PvtuField>& point_fields, const std::vector<PvtuField>& cell_fields)
{
    std::string xml = "<?xml version=\"1.0\"?>\n"
                      "<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
                      "header_type=\"UInt64\">\n"
                      "  <PUnstructuredGrid GhostLevel=\"0\">\n    <PPointData>\n";
    const auto type = [](const PvtuField& f) { return f.float32 ? "Float32" : "Float64"; };
    for (const PvtuField& f : point_fields) xml += data_array(type(f), f.name);
    xml += "    </PPointData>\n    <PCellData>\n" + data_array("Int32", "group");
    for (const PvtuField& f : cell_fields) xml += data_array(type(f), f.name);
    xml += "    </PCellData>\n    <PPoints>\n" + data_array("Float64", "", 3) + "    </PPoints>\n";
    for (const std::string& piece : pieces) xml += "    <Piece Source=\"" + piece + "\"/>\n";
    xml += "  </PUnstructuredGrid>\n</VTKFile>\n";
    const std::filesystem::path temporary = path.string() + ".partial";
    {
        std::ofstream out(temporary, std::ios::binary);
        out << xml;
        if (!out.flush()) throw std::runtime_error("cannot write " + temporary.string());
    }
    std::filesystem::rename(temporary, path);
}

}  // namespace gpufem
