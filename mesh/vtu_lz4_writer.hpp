#pragma once
// Internal to mesh/: a VTK XML unstructured-grid (.vtu) writer for LZ4 compression whose
// blocks are compressed by the host's threads. VTK's own writer compresses one block after
// the other (0.4 s of the 0.7 s output of a 4M-node mesh on a 16-core host); this writes the
// file VTK writes (appended raw data, UInt64 block headers, vtkLZ4DataCompressor's LZ4
// blocks), so VTK's reader and ParaView read it as they read VTK's.
#include <filesystem>
#include <functional>

class vtkUnstructuredGrid;

namespace gpufem {

/// Writes the grid's points, cells (connectivity, offsets, types), point data and cell data
/// to `file`. on_progress (may be empty) gets the fraction done, from the calling thread.
/// Throws std::runtime_error naming the file when it cannot be written.
void write_vtu_lz4(const std::filesystem::path& file, vtkUnstructuredGrid* grid,
                   const std::function<void(double)>& on_progress);

}  // namespace gpufem
