#pragma once
// The .pvtu file that joins the .vtu pieces of a run on several ranks into one dataset for
// ParaView and VTK: it names each piece and the arrays every piece has (write_vtu's: the
// points in Float64, the point fields, the cells' "group" and the cell fields).
#include <filesystem>
#include <string>
#include <vector>

namespace gpufem {

/// Writes path (.pvtu) over pieces (file names relative to path's folder), whose point and
/// cell fields (each one Float64 component, as write_vtu writes them) are named as given.
/// Written to a temporary name and renamed, so a reader never sees half a file.
void write_pvtu(const std::filesystem::path& path, const std::vector<std::string>& pieces,
                const std::vector<std::string>& point_fields, const std::vector<std::string>& cell_fields);

}  // namespace gpufem
