#pragma once
// Used through mesh/vtk_writer.hpp: a VTK XML unstructured-grid (.vtu) writer for LZ4 compression whose
// blocks are compressed by the host's threads. VTK's own writer compresses one block after
// the other (0.4 s of the 0.7 s output of a 4M-node mesh on a 16-core host); this writes the
// file VTK writes (appended raw data, UInt64 block headers, vtkLZ4DataCompressor's LZ4
// blocks), so VTK's reader and ParaView read it as they read VTK's.
#include <exception>
#include <filesystem>
#include <memory>
#include <functional>
#include <future>
#include <set>
#include <string>
#include <thread>
#include <vector>

class vtkUnstructuredGrid;

namespace gpufem {

/// How the compressed blocks reach the file: `parallel`, each compressing thread copies its
/// blocks into a preallocated mapping of the file (about twice the rate of one writer into the
/// page cache), or, where the file system cannot preallocate, as `ordered`: one thread writes
/// them in the file's order with pwrite. Both make the same bytes.
enum class VtuFileWrites { parallel, ordered };

/// Writes the grid's points, cells (connectivity, offsets, types), point data and cell data
/// to `file`. on_progress (may be empty) gets the fraction done, from the calling thread.
/// The double arrays named in `narrowed` ("PointData/name", "CellData/name") are written as
/// Float32, converted block by block as they are compressed.
/// Throws std::runtime_error naming the file when it cannot be written.
void write_vtu_lz4(const std::filesystem::path& file, vtkUnstructuredGrid* grid,
                   const std::function<void(double)>& on_progress, const std::set<std::string>& narrowed = {},
                   VtuFileWrites writes = VtuFileWrites::parallel);

/// The same file in two steps, so that a run's idle host threads write the mesh while the
/// device solves: the constructor starts a thread that makes the grid (make_grid: the mesh's
/// points, cells and the cells' groups; 1.6 s for 100M hexahedra, so not on the caller's
/// thread), compresses its arrays with `threads` threads and writes them behind room left for
/// the XML head; finish() takes the arrays added to the grid since (the fields), writes them
/// and the head. The file is VTK's format as write_vtu_lz4 writes it, with whitespace before
/// the appended data's `_`.
class VtuLz4Prewrite {
public:
    /// make_grid runs on the prewrite's thread and returns a new grid with one reference that
    /// the prewrite takes over; whatever it reads must outlive the prewrite (or its finish()).
    VtuLz4Prewrite(std::filesystem::path file, std::function<vtkUnstructuredGrid*()> make_grid,
                   int threads);
    /// Waits for the thread; removes the file unless finish() succeeded.
    ~VtuLz4Prewrite();
    VtuLz4Prewrite(const VtuLz4Prewrite&) = delete;
    VtuLz4Prewrite& operator=(const VtuLz4Prewrite&) = delete;

    /// The grid, to add the fields to before finish() (waits until the thread has made it;
    /// rethrows make_grid's error).
    vtkUnstructuredGrid* grid() const;
    const std::filesystem::path& file() const { return file_; }
    /// Writes the arrays added to the grid since the mesh and the previous call (the solution,
    /// say, while the caller computes the fields that follow it) on a thread of the prewrite,
    /// after what it was given before, and returns at once; finish() writes the rest. Those
    /// named in `narrowed` as Float32. The arrays must stay as they are until finish().
    void write_added(const std::set<std::string>& narrowed = {});
    /// Writes the rest (if the thread failed, the whole file again with write_vtu_lz4), the
    /// added arrays named in `narrowed` as Float32 (as write_vtu_lz4).
    /// Throws std::runtime_error naming the file when it cannot be written.
    void finish(const std::function<void(double)>& on_progress, const std::set<std::string>& narrowed = {});
    /// The host threads finish() compresses with (0, the default: OpenMP's less one, the
    /// writing thread's core): a share of the cores where several processes write at once.
    void set_finish_threads(int threads) { finish_threads_ = threads; }

private:
    struct Written;
    std::filesystem::path file_;
    std::unique_ptr<Written> written_;  ///< the grid, and what the thread wrote
    std::exception_ptr failure_;        ///< the thread's error
    std::shared_future<void> grid_made_;  ///< ready once the thread has made the grid (or failed)
    std::thread thread_;
    bool finished_ = false;
    int finish_threads_ = 0;
    std::set<std::string> handed_;  ///< the arrays given to the thread so far (keys), by the caller
};

}  // namespace gpufem
