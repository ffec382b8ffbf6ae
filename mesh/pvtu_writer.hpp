#pragma once
// The .pvtu file that joins the .vtu pieces of a run on several ranks into one dataset for
// ParaView and VTK: it names each piece and the arrays every piece has (write_vtu's: the
// points in Float64, the point fields, the cells' "group" and the cell fields).
#include <filesystem>
#include <string>
#include <vector>

namespace gpufem {

/// A field of the pieces: its name, and whether write_vtu writes it as Float32 (else Float64).
struct PvtuField {
    std::string name;
    bool float32 = false;
};

/// Writes path (.pvtu) over pieces (file names relative to path's folder), whose point and
/// cell fields (one component each, as write_vtu writes them) are as given.
/// Written to a temporary name and renamed, so a reader never sees half a file.
void write_pvtu(const std::filesystem::path& path, const std::vector<std::string>& pieces,
                const std::vector<PvtuField>& point_fields, const std::vector<PvtuField>& cell_fields);

}  // namespace gpufem
