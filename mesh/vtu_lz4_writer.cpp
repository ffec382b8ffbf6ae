#include "mesh/vtu_lz4_writer.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <semaphore>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <lz4.h>
#include <omp.h>
#include <unistd.h>
#include <spdlog/spdlog.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkSmartPointer.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include "linalg/host_vector.hpp"
#include "linalg/write_errors.hpp"
#include "mesh/file_window.hpp"

namespace gpufem {
namespace {

/// Lowers the calling thread's scheduling priority (nice 10): the prewrite's threads then take
/// the cores the run's own threads leave idle. Where the system refuses, nothing changes.
void lower_thread_priority()
{
    const auto thread = static_cast<id_t>(::gettid());
    (void)::setpriority(PRIO_PROCESS, thread, 10);
}

/// Bytes of uncompressed data per block (VTK's writer uses 32 KiB; its reader takes any size).
constexpr std::size_t block_bytes = 1 << 18;

/// A compressed block: its bytes at the start of a buffer of the BlockPool (size 0: LZ4 failed).
struct CompressedBlock {
    std::vector<char>* buffer = nullptr;
    std::size_t size = 0;
};

/// One array of the file: where its bytes are and how the XML describes it.
struct VtuArray {
    std::string section;  ///< "PointData", "CellData", "Points" or "Cells"
    std::string name;
    std::string type;     ///< VTK XML type name: Float64, Int32, ...
    int components = 1;
    const char* data = nullptr;
    const double* narrowed_from = nullptr;  ///< a Float32 array's double values (data unused)
    std::size_t bytes = 0;                  ///< in the file, uncompressed
    std::vector<CompressedBlock> blocks;  ///< compressed blocks (until written)
    std::vector<std::uint64_t> sizes;     ///< their sizes (kept once the blocks are written)
    std::uint64_t offset = 0;               ///< where its block header starts in the appended data
};

/// The VTK XML name of a data array's type; throws for types the writer does not use.
std::string xml_type(int vtk_type, int size)
{
    switch (vtk_type) {
    case VTK_DOUBLE: return "Float64";
    case VTK_FLOAT: return "Float32";
    case VTK_UNSIGNED_CHAR: return "UInt8";
    default: break;
    }
    if (vtk_type == VTK_INT || vtk_type == VTK_LONG || vtk_type == VTK_LONG_LONG ||
        vtk_type == VTK_ID_TYPE)
        return size == 4 ? "Int32" : "Int64";
    throw std::logic_error("write_vtu_lz4: unsupported array type " + std::to_string(vtk_type));
}

/// The key of an array in its section.
std::string array_key(const VtuArray& array) { return array.section + "/" + array.name; }

/// The array's description and bytes, from its first value on (`skip` values left out); a
/// double array whose key is in `narrowed` as Float32.
VtuArray describe(const std::string& section, vtkDataArray* array, const char* name,
                  const std::set<std::string>& narrowed = {}, std::size_t skip = 0)
{
    VtuArray out;
    out.section = section;
    out.name = name ? name : "";
    out.type = xml_type(array->GetDataType(), array->GetDataTypeSize());
    out.components = array->GetNumberOfComponents();
    std::size_t value_bytes = static_cast<std::size_t>(array->GetDataTypeSize());
    const std::size_t values =
        static_cast<std::size_t>(array->GetNumberOfTuples()) * out.components;
    out.data = static_cast<const char*>(array->GetVoidPointer(0)) + skip * value_bytes;
    if (array->GetDataType() == VTK_DOUBLE && narrowed.contains(array_key(out))) {
        out.type = "Float32";
        out.narrowed_from = reinterpret_cast<const double*>(out.data);
        value_bytes = sizeof(float);
    }
    out.bytes = (values - skip) * value_bytes;
    return out;
}

/// The arrays in the order of the file (those named in `narrowed` as Float32).
std::vector<VtuArray> grid_arrays(vtkUnstructuredGrid* grid, const std::set<std::string>& narrowed = {})
{
    std::vector<VtuArray> arrays;
    for (int i = 0; i < grid->GetPointData()->GetNumberOfArrays(); ++i) {
        vtkDataArray* a = grid->GetPointData()->GetArray(i);
        arrays.push_back(describe("PointData", a, a->GetName(), narrowed));
    }
    for (int i = 0; i < grid->GetCellData()->GetNumberOfArrays(); ++i) {
        vtkDataArray* a = grid->GetCellData()->GetArray(i);
        arrays.push_back(describe("CellData", a, a->GetName(), narrowed));
    }
    arrays.push_back(describe("Points", grid->GetPoints()->GetData(), "Points"));
    vtkCellArray* cells = grid->GetCells();
    arrays.push_back(describe("Cells", cells->GetConnectivityArray(), "connectivity"));
    // The file lists each cell's end offset: the cell array's offsets without the leading 0.
    arrays.push_back(describe("Cells", cells->GetOffsetsArray(), "offsets", {}, 1));
    arrays.push_back(describe("Cells", grid->GetCellTypesArray(), "types"));
    return arrays;
}

/// The LZ4 blocks of an array (the last one partial where its bytes are not a multiple).
std::size_t block_count(const VtuArray& array) { return (array.bytes + block_bytes - 1) / block_bytes; }

/// Bytes of the block header of an array of `blocks` blocks (block_header).
std::uint64_t header_bytes(std::size_t blocks) { return (3 + blocks) * sizeof(std::uint64_t); }

/// Every block of the arrays, in the file's order (array by array).
struct BlockTask {
    std::size_t array, block;
};

/// The arrays' blocks as tasks (sizing each array's block list).
std::vector<BlockTask> block_tasks(std::vector<VtuArray>& arrays)
{
    std::vector<BlockTask> tasks;
    for (std::size_t a = 0; a < arrays.size(); ++a) {
        const std::size_t count = block_count(arrays[a]);
        arrays[a].blocks.resize(count);
        for (std::size_t b = 0; b < count; ++b) tasks.push_back({a, b});
    }
    return tasks;
}

/// Compresses one block of the array into out (a buffer of LZ4_compressBound(block_bytes)
/// bytes); returns the compressed size, 0 when LZ4 fails (no exception leaves: it runs inside
/// parallel regions).
std::size_t compress_block(const VtuArray& array, std::size_t block, std::vector<char>& out) noexcept
{
    const std::size_t begin = block * block_bytes;
    const std::size_t bytes = std::min(block_bytes, array.bytes - begin);
    try {
        const char* source = array.data + begin;
        if (array.narrowed_from) {  // the block's values converted to float on this thread
            thread_local HostVector<float> narrowed;
            const std::size_t count = bytes / sizeof(float);
            narrowed.resize(count);
            const double* from = array.narrowed_from + begin / sizeof(float);
            for (std::size_t i = 0; i < count; ++i) narrowed[i] = static_cast<float>(from[i]);
            source = reinterpret_cast<const char*>(narrowed.data());
        }
        const int written = LZ4_compress_default(source, out.data(), static_cast<int>(bytes),
                                                 static_cast<int>(out.size()));
        return static_cast<std::size_t>(written > 0 ? written : 0);
    } catch (...) {
        return 0;
    }
}

/// Throws when a compressed block came out empty (compress_block's failure).
void check_block(const VtuArray& array, const CompressedBlock& block)
{
    if (block.size == 0) throw std::runtime_error("LZ4 could not compress a block of '" + array.name + "'");
}

/// The buffers compressed blocks are written into, reused: a compressing thread takes one for
/// each block, the writing thread gives it back once the block is in the file. The writer is
/// the slower side, so without a bound the compressors would hold most of a file's compressed
/// bytes in memory at once; here they hold `count` blocks, each buffer allocated and touched
/// once. The writer takes the blocks in the file's order; a block takes a buffer only within
/// `count` blocks of the next one to write, so the buffers never all go to later blocks while
/// the writer waits for that one.
class BlockPool {
public:
    explicit BlockPool(std::size_t count)
    {
        const auto bytes = static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(block_bytes)));
        for (std::size_t k = 0; k < count; ++k) {
            buffers_.push_back(std::make_unique<std::vector<char>>(bytes));
            free_.push_back(buffers_.back().get());
        }
    }
    /// A free buffer for block `task` (0, 1, ... in the file's order; waits until it is within
    /// the buffers' count of the next block to write and a buffer is free); null once stop()
    /// was called.
    std::vector<char>* take(std::size_t task)
    {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stopped_ || (task < written_ + buffers_.size() && !free_.empty()); });
        if (stopped_) return nullptr;
        std::vector<char>* buffer = free_.back();
        free_.pop_back();
        return buffer;
    }
    /// Gives the buffer of the next block to write back, once written.
    void give(std::vector<char>* buffer)
    {
        {
            const std::lock_guard lock(mutex_);
            free_.push_back(buffer);
            ++written_;
        }
        ready_.notify_all();  // waiters wait for different blocks
    }
    /// Wakes every waiting take() with null (the writer failed).
    void stop()
    {
        {
            const std::lock_guard lock(mutex_);
            stopped_ = true;
        }
        ready_.notify_all();
    }

private:
    std::vector<std::unique_ptr<std::vector<char>>> buffers_;
    std::vector<std::vector<char>*> free_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::size_t written_ = 0;  ///< blocks written so far
    bool stopped_ = false;
};

/// The block header of an array: block count, block size, size of a partial last block (0 if
/// the last block is full), and the compressed size of each block (UInt64 each).
std::vector<std::uint64_t> block_header(const VtuArray& array)
{
    std::vector<std::uint64_t> header = {array.sizes.size(), block_bytes, array.bytes % block_bytes};
    header.insert(header.end(), array.sizes.begin(), array.sizes.end());
    return header;
}

/// The bytes an array takes in the appended data: its block header and blocks.
std::uint64_t appended_bytes(const VtuArray& array)
{
    std::uint64_t bytes = header_bytes(array.sizes.size());
    for (std::uint64_t size : array.sizes) bytes += size;
    return bytes;
}

/// The XML part of the file up to the appended data's start tag, with each array's offset
/// (VtuArray::offset) into the appended data; the file goes on with whitespace, then `_`.
std::string xml_head(vtkUnstructuredGrid* grid, const std::vector<VtuArray>& arrays)
{
    // Version 1.0 as VTK's writer in vtk_writer.cpp: Lagrange hexahedra are in 1.0's node
    // order (make_grid), which VTK's reader turns into its current one.
    std::string xml =
        "<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
        "header_type=\"UInt64\" compressor=\"vtkLZ4DataCompressor\">\n"
        "  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"" +
        std::to_string(grid->GetNumberOfPoints()) + "\" NumberOfCells=\"" +
        std::to_string(grid->GetNumberOfCells()) + "\">\n";
    std::string open;
    for (const VtuArray& array : arrays) {
        if (array.section != open) {
            if (!open.empty()) xml += "      </" + open + ">\n";
            open = array.section;
            xml += "      <" + open + ">\n";
        }
        xml += "        <DataArray type=\"" + array.type + "\" Name=\"" + array.name + "\"";
        if (array.components != 1)
            xml += " NumberOfComponents=\"" + std::to_string(array.components) + "\"";
        xml += " format=\"appended\" offset=\"" + std::to_string(array.offset) + "\"/>\n";
    }
    xml += "      </" + open + ">\n    </Piece>\n  </UnstructuredGrid>\n"
           "  <AppendedData encoding=\"raw\">\n";
    return xml;
}

/// Writes all of data at offset (pwrite may write less than asked); throws naming the file.
void write_at(int fd, const char* data, std::size_t bytes, std::uint64_t offset, const std::filesystem::path& file)
{
    while (bytes > 0) {
        const ssize_t written = ::pwrite(fd, data, bytes, static_cast<off_t>(offset));
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0)
            throw std::runtime_error(written < 0 ? write_error_message(file, errno, "writing failed")
                                                 : write_error_message(file, 0, "nothing was written"));
        data += written;
        bytes -= static_cast<std::size_t>(written);
        offset += static_cast<std::uint64_t>(written);
    }
}

/// Room left for the XML head in a prewritten file.
constexpr std::uint64_t head_room = 1 << 16;

/// Throws naming the file when an array's name holds a character XML would need escaped.
void check_names(const std::vector<VtuArray>& arrays, const std::filesystem::path& file)
{
    for (const VtuArray& array : arrays)
        if (array.name.find_first_of("\"<>&") != std::string::npos)
            throw std::runtime_error("cannot write '" + file.string() + "': the array name '" +
                                     array.name + "' holds a character XML would need escaped");
}

/// A file opened for writing, closed on scope exit (close() reports a failed close).
class OutputFile {
public:
    explicit OutputFile(std::filesystem::path file) : file_(std::move(file))
    {
        fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);  // read too: FileWindow maps it
        if (fd_ < 0)
            throw std::runtime_error(write_error_message(file_, errno, "cannot open the file"));
    }
    ~OutputFile()
    {
        if (fd_ >= 0) ::close(fd_);
    }
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    /// Compresses the arrays' blocks with `threads` host threads and writes them in the file's
    /// order from `end` on (each array's block header, then its blocks), the time the slower
    /// of compressing and writing, not their sum. With `writes` parallel, into a preallocated
    /// mapping of the range (FileWindow), each compressing thread copying its own blocks once
    /// the blocks before have their places; where the file system cannot preallocate, or
    /// with `writes` ordered, this thread writes the blocks with pwrite as they come. Sets the
    /// arrays' offsets and sizes; returns the new end (the file ends there). on_progress (may
    /// be empty) gets the fraction written, on this thread. `background`: written while the
    /// run goes on (the prewrite), so the threads yield to the run's own (a lower scheduling
    /// priority).
    std::uint64_t compress_and_write(std::vector<VtuArray>& arrays, std::uint64_t base, std::uint64_t end,
                                     int threads, const std::function<void(double)>& on_progress,
                                     bool background = false, VtuFileWrites writes = VtuFileWrites::parallel);
    /// The head, padded with whitespace to `room` bytes ending in the appended data's `_`, at
    /// the start; the tail after the appended data's `end` bytes.
    void head_and_tail(std::string head, std::uint64_t room, std::uint64_t end)
    {
        head.append(room - head.size() - 1, ' ');
        head += '_';
        write_at(fd_, head.data(), head.size(), 0, file_);
        const std::string tail = "\n  </AppendedData>\n</VTKFile>\n";
        write_at(fd_, tail.data(), tail.size(), room + end, file_);
    }
    /// Closes; throws naming the file when that fails (a full disk shows here).
    void close()
    {
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0)
            throw std::runtime_error(write_error_message(file_, errno, "closing failed"));
    }

private:
    std::uint64_t write_in_order(std::vector<VtuArray>& arrays, std::uint64_t base, std::uint64_t end, int threads,
                                 const std::function<void(double)>& on_progress, bool background);
    std::uint64_t copy_in_parallel(std::vector<VtuArray>& arrays, const FileWindow& window, std::uint64_t base,
                                   std::uint64_t end, int threads, const std::function<void(double)>& on_progress,
                                   bool background);
    std::filesystem::path file_;
    int fd_ = -1;
};

/// Bytes the arrays can take in the appended data at most: block headers, and every block
/// at LZ4's bound.
std::uint64_t appended_bound(const std::vector<VtuArray>& arrays)
{
    const auto block_bound = static_cast<std::uint64_t>(LZ4_compressBound(static_cast<int>(block_bytes)));
    std::uint64_t bytes = 0;
    for (const VtuArray& array : arrays) {
        const std::size_t blocks = block_count(array);
        bytes += header_bytes(blocks) + blocks * block_bound;
    }
    return bytes;
}

/// The compressing threads: one core fewer than OpenMP's threads by default (0), so that
/// the calling thread has its own.
int compressing_threads(int threads) { return threads > 0 ? threads : std::max(1, omp_get_max_threads() - 1); }

std::uint64_t OutputFile::compress_and_write(std::vector<VtuArray>& arrays, std::uint64_t base,
                                             std::uint64_t end, int threads,
                                             const std::function<void(double)>& on_progress, bool background,
                                             VtuFileWrites writes)
{
    if (background) lower_thread_priority();
    std::unique_ptr<FileWindow> window;
    if (writes == VtuFileWrites::parallel) window = FileWindow::open(fd_, base + end, appended_bound(arrays));
    if (!window) return write_in_order(arrays, base, end, threads, on_progress, background);
    const std::uint64_t new_end = copy_in_parallel(arrays, *window, base, end, threads, on_progress, background);
    window.reset();
    // The window reached to the bound: the file ends where the data does.
    if (::ftruncate(fd_, static_cast<off_t>(base + new_end)) != 0)
        throw std::runtime_error(write_error_message(file_, errno, "writing failed"));
    return new_end;
}

std::uint64_t OutputFile::write_in_order(std::vector<VtuArray>& arrays, std::uint64_t base, std::uint64_t end,
                                         int threads, const std::function<void(double)>& on_progress,
                                         bool background)
{
    const std::vector<BlockTask> tasks = block_tasks(arrays);
    const std::size_t total = tasks.size();
    const std::unique_ptr<std::atomic<bool>[]> done(new std::atomic<bool>[total]);
    for (std::size_t t = 0; t < total; ++t) done[t].store(false, std::memory_order_relaxed);
    std::exception_ptr failure;
    double waited = 0;  // the writer's time waiting for blocks (the rest is writing)
    const auto started = std::chrono::steady_clock::now();
    // The compressing team on its own thread (OpenMP's), this thread the writer.
    const int size = compressing_threads(threads);
    BlockPool pool(4 * static_cast<std::size_t>(size));
    std::thread team([&] {
#pragma omp parallel num_threads(size)
        {
            if (background) lower_thread_priority();
#pragma omp for schedule(dynamic, 1)
            for (long long t = 0; t < static_cast<long long>(total); ++t) {
                VtuArray& array = arrays[tasks[t].array];
                CompressedBlock& block = array.blocks[tasks[t].block];
                block.buffer = pool.take(static_cast<std::size_t>(t));  // null once the writer failed
                if (block.buffer) block.size = compress_block(array, tasks[t].block, *block.buffer);
                done[t].store(true, std::memory_order_release);
                done[t].notify_one();
            }
        }
    });
    try {
        std::size_t t = 0;
        for (VtuArray& array : arrays) {
            array.offset = end;
            array.sizes.clear();
            std::uint64_t at = base + end + header_bytes(array.blocks.size());
            for (CompressedBlock& block : array.blocks) {
                if (!done[t].load(std::memory_order_acquire)) {
                    const auto wait_start = std::chrono::steady_clock::now();
                    done[t].wait(false, std::memory_order_acquire);
                    waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - wait_start).count();
                }
                ++t;
                check_block(array, block);
                write_at(fd_, block.buffer->data(), block.size, at, file_);
                at += block.size;
                array.sizes.push_back(block.size);
                pool.give(std::exchange(block.buffer, nullptr));
                if (on_progress) on_progress(0.95 * static_cast<double>(t) / static_cast<double>(total));
            }
            const std::vector<std::uint64_t> header = block_header(array);
            write_at(fd_, reinterpret_cast<const char*>(header.data()), header.size() * sizeof(std::uint64_t),
                     base + end, file_);
            end += appended_bytes(array);
        }
    } catch (...) {
        failure = std::current_exception();
        pool.stop();
    }
    team.join();
    if (failure) std::rethrow_exception(failure);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    spdlog::debug("VTU (LZ4): {} arrays, {} blocks compressed by {} threads and written in {:.3f} s, of which the "
                  "writer waited {:.3f} s for blocks", arrays.size(), total, size, seconds, waited);
    return end;
}

/// The block headers' bytes in front of each block: gap[t] for the arrays whose first block
/// is task t (with the empty arrays just before it), gap[total] for the empty arrays at the end.
std::vector<std::uint64_t> header_gaps(const std::vector<VtuArray>& arrays, std::size_t total)
{
    std::vector<std::uint64_t> gap(total + 1, 0);
    std::size_t t = 0;
    for (const VtuArray& array : arrays) {
        gap[t] += header_bytes(array.blocks.size());
        t += array.blocks.size();
    }
    return gap;
}

/// Most threads copying into a FileWindow at once: four to eight fill the page cache fastest
/// (more contend for the file's mapping).
constexpr std::ptrdiff_t max_copies = 8;

/// Where each block goes in the appended data, handed from block to block: block t's place is
/// known once block t - 1 is compressed (its place plus its size, plus the next array's block
/// header). The blocks are taken in the file's order, so the thread waiting for a place waits
/// for a block another thread already holds.
class BlockPlaces {
public:
    /// Places for `total` blocks, the first at `first`.
    BlockPlaces(std::size_t total, std::uint64_t first) : at_(new std::atomic<std::uint64_t>[total + 1])
    {
        for (std::size_t t = 0; t <= total; ++t) at_[t].store(unknown, std::memory_order_relaxed);
        at_[0].store(first, std::memory_order_relaxed);
    }
    /// Block t's place (waits for it); failed once an earlier block failed.
    std::uint64_t wait(std::size_t t) const
    {
        at_[t].wait(unknown, std::memory_order_acquire);
        return at_[t].load(std::memory_order_acquire);
    }
    /// Sets block t's place (what block t - 1 wrote before it is seen with it).
    void set(std::size_t t, std::uint64_t place)
    {
        at_[t].store(place, std::memory_order_release);
        at_[t].notify_all();
    }
    static constexpr std::uint64_t unknown = ~std::uint64_t{0};
    static constexpr std::uint64_t failed = unknown - 1;

private:
    std::unique_ptr<std::atomic<std::uint64_t>[]> at_;
};

/// A copying thread's time in its steps (seconds, summed over its blocks).
struct CopySteps {
    double compress = 0, place = 0, copy = 0;
};

/// Compresses block `t` into buffer, hands the next block its place and copies this one into
/// the window at its own (at most max_copies threads copying at once); a block that does not
/// compress or fit the window, or follows one, hands on `failed` and is not copied. Adds its
/// steps' time to steps.
void place_and_copy(std::vector<VtuArray>& arrays, const BlockTask& task, std::size_t t,
                    const std::vector<std::uint64_t>& gap, BlockPlaces& places, const FileWindow& window,
                    std::uint64_t base, std::counting_semaphore<max_copies>& copies, std::vector<char>& buffer,
                    CopySteps& steps)
{
    using clock = std::chrono::steady_clock;
    const auto lap = [](clock::time_point& from) {
        const auto now = clock::now();
        return std::chrono::duration<double>(now - std::exchange(from, now)).count();
    };
    auto from = clock::now();
    VtuArray& array = arrays[task.array];
    const std::size_t bytes = compress_block(array, task.block, buffer);
    steps.compress += lap(from);
    const std::uint64_t place = places.wait(t);
    steps.place += lap(from);
    if (bytes == 0 || place == BlockPlaces::failed || base + place + bytes > window.end()) {
        places.set(t + 1, BlockPlaces::failed);  // nothing may throw here: an OpenMP region
        return;
    }
    array.sizes[task.block] = bytes;
    places.set(t + 1, place + bytes + gap[t + 1]);
    copies.acquire();
    window.copy(base + place, buffer.data(), bytes);
    copies.release();
    steps.copy += lap(from);
}

std::uint64_t OutputFile::copy_in_parallel(std::vector<VtuArray>& arrays, const FileWindow& window,
                                           std::uint64_t base, std::uint64_t end, int threads,
                                           const std::function<void(double)>& on_progress, bool background)
{
    const std::vector<BlockTask> tasks = block_tasks(arrays);
    const std::size_t total = tasks.size();
    const std::vector<std::uint64_t> gap = header_gaps(arrays, total);
    for (VtuArray& array : arrays) array.sizes.assign(array.blocks.size(), 0);
    BlockPlaces places(total, end + gap[0]);
    std::counting_semaphore<max_copies> copies(max_copies);
    std::atomic<std::size_t> copied{0};
    std::exception_ptr progress_failure;  // on_progress's, rethrown after the team
    CopySteps steps;                      // summed over the threads
    const auto started = std::chrono::steady_clock::now();
    const int size = compressing_threads(threads);
#pragma omp parallel num_threads(size)
    {
        if (background) lower_thread_priority();
        std::vector<char> buffer(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(block_bytes))));
        CopySteps own;
#pragma omp for schedule(dynamic, 1) nowait
        for (long long t = 0; t < static_cast<long long>(total); ++t) {
            const auto block = static_cast<std::size_t>(t);
            place_and_copy(arrays, tasks[block], block, gap, places, window, base, copies, buffer, own);
            const std::size_t done = copied.fetch_add(1) + 1;
            if (on_progress && omp_get_thread_num() == 0 && !progress_failure) try {
                    on_progress(0.95 * static_cast<double>(done) / static_cast<double>(total));
                } catch (...) {
                    progress_failure = std::current_exception();
                }
        }
#pragma omp critical(gpufem_vtu_copy_steps)
        {
            steps.compress += own.compress;
            steps.place += own.place;
            steps.copy += own.copy;
        }
    }
    if (progress_failure) std::rethrow_exception(progress_failure);
    if (places.wait(total) == BlockPlaces::failed)
        for (const BlockTask& task : tasks)
            if (arrays[task.array].sizes[task.block] == 0)
                throw std::runtime_error("cannot write '" + file_.string() + "': a block of '" +
                                         arrays[task.array].name + "' could not be compressed into its place");
    // The block headers, now that every size is known.
    for (VtuArray& array : arrays) {
        array.offset = end;
        const std::vector<std::uint64_t> header = block_header(array);
        window.copy(base + end, header.data(), header.size() * sizeof(std::uint64_t));
        end += appended_bytes(array);
    }
    if (end != places.wait(total)) throw std::logic_error("write_vtu_lz4: the blocks' places and sizes disagree");
    spdlog::debug("VTU (LZ4): {} arrays, {} blocks compressed and copied into the file by {} threads in {:.3f} s "
                  "(the threads' time: compressing {:.3f} s, waiting for places {:.3f} s, copying {:.3f} s)",
                  arrays.size(), total, size,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), steps.compress,
                  steps.place, steps.copy);
    return end;
}

/// Room for the XML head of the arrays: more than xml_head writes (its fixed text, and per
/// array its line with the longest offset and the section tags around it).
std::uint64_t head_room_for(const std::vector<VtuArray>& arrays)
{
    std::uint64_t room = 1024;
    for (const VtuArray& array : arrays) room += 256 + array.name.size();
    return room;
}

/// The arrays of `all` (a grid's, in the file's order) not among those written.
std::vector<VtuArray> unwritten_arrays(const std::vector<VtuArray>& all, const std::vector<VtuArray>& written_arrays)
{
    std::set<std::string> written;
    for (const VtuArray& array : written_arrays) written.insert(array_key(array));
    std::vector<VtuArray> added;
    for (const VtuArray& array : all)
        if (!written.contains(array_key(array))) added.push_back(array);
    return added;
}

}  // namespace

void write_vtu_lz4(const std::filesystem::path& file, vtkUnstructuredGrid* grid,
                   const std::function<void(double)>& on_progress, const std::set<std::string>& narrowed,
                   VtuFileWrites writes)
{
    std::vector<VtuArray> arrays = grid_arrays(grid, narrowed);
    check_names(arrays, file);
    const auto start = std::chrono::steady_clock::now();
    // Compressed while written, behind room for the head (whitespace before the data's `_`).
    const std::uint64_t room = head_room_for(arrays);
    OutputFile out(file);
    const std::uint64_t end = out.compress_and_write(arrays, room, 0, 0, on_progress, false, writes);
    const std::string head = xml_head(grid, arrays);
    if (head.size() + 1 > room) throw std::logic_error("write_vtu_lz4: the XML head outgrew its room");
    out.head_and_tail(head, room, end);
    out.close();
    spdlog::info("VTU (LZ4): {:.0f} MB compressed and written in {:.3f} s", static_cast<double>(room + end) / 1e6,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (on_progress) on_progress(1.0);
}

/// What the prewrite thread wrote: the mesh's arrays (block sizes and offsets; blocks freed).
struct VtuLz4Prewrite::Written {
    vtkSmartPointer<vtkUnstructuredGrid> grid;
    std::vector<VtuArray> arrays;
    std::uint64_t end = 0;  ///< appended bytes so far
    std::unique_ptr<OutputFile> out;
    double grid_seconds = 0, write_seconds = 0;  ///< the thread's steps: the grid, its arrays compressed and written
    double early_seconds = 0;                    ///< the arrays of write_added, compressed and written
};

VtuLz4Prewrite::VtuLz4Prewrite(std::filesystem::path file,
                               std::function<vtkUnstructuredGrid*()> make_grid, int threads)
    : file_(std::move(file)), written_(std::make_unique<Written>())
{
    auto made = std::make_shared<std::promise<void>>();
    grid_made_ = made->get_future().share();
    thread_ = std::thread([this, threads, made, make_grid = std::move(make_grid)] {
        bool grid_ready = false;
        try {
            Written& w = *written_;
            const auto since = [](std::chrono::steady_clock::time_point& t) {
                const auto now = std::chrono::steady_clock::now();
                const double seconds = std::chrono::duration<double>(now - t).count();
                t = now;
                return seconds;
            };
            auto step = std::chrono::steady_clock::now();
            w.grid.TakeReference(make_grid());
            w.arrays = grid_arrays(w.grid.Get());
            w.grid_seconds = since(step);
            grid_ready = true;
            made->set_value();
            w.out = std::make_unique<OutputFile>(file_);
            w.end = w.out->compress_and_write(w.arrays, head_room, 0, threads, {}, true);
            w.write_seconds = since(step);
        } catch (...) {
            failure_ = std::current_exception();
            if (!grid_ready) made->set_exception(failure_);
        }
    });
}

vtkUnstructuredGrid* VtuLz4Prewrite::grid() const
{
    grid_made_.get();  // rethrows when the grid could not be made
    return written_->grid.Get();
}

VtuLz4Prewrite::~VtuLz4Prewrite()
{
    if (thread_.joinable()) thread_.join();
    if (written_) written_->out.reset();
    if (!finished_) {
        std::error_code ignored;
        std::filesystem::remove(file_, ignored);
    }
}

void VtuLz4Prewrite::write_added(const std::set<std::string>& narrowed)
{
    if (finished_ || !thread_.joinable()) throw std::logic_error("VtuLz4Prewrite::write_added after finish");
    grid_made_.get();  // the mesh's arrays are listed once the grid is made (rethrows its error)
    Written& w = *written_;
    // Described here, on the caller's thread: the grid's lists are not read while it adds more.
    const std::vector<VtuArray> all = grid_arrays(w.grid.Get(), narrowed);
    check_names(all, file_);
    // What earlier calls handed over is kept here, on the caller's thread (their threads add
    // to w.arrays as they write): the mesh's arrays, listed before any such thread started.
    if (handed_.empty())
        for (const VtuArray& array : w.arrays) handed_.insert(array_key(array));
    std::vector<VtuArray> added;
    for (const VtuArray& array : all)
        if (handed_.insert(array_key(array)).second) added.push_back(array);
    // Written after what the thread has been given before, by a thread that waits for it: the
    // caller goes on.
    std::thread before = std::move(thread_);
    thread_ = std::thread([this, before = std::move(before), added = std::move(added)]() mutable {
        before.join();
        if (failure_) return;  // finish() writes the whole file again
        try {
            Written& written = *written_;
            const auto start = std::chrono::steady_clock::now();
            written.end = written.out->compress_and_write(added, head_room, written.end, finish_threads_, {}, true);
            for (VtuArray& array : added) written.arrays.push_back(std::move(array));
            written.early_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        } catch (...) {
            failure_ = std::current_exception();
        }
    });
}

void VtuLz4Prewrite::finish(const std::function<void(double)>& on_progress, const std::set<std::string>& narrowed)
{
    if (finished_ || !thread_.joinable()) throw std::logic_error("VtuLz4Prewrite::finish called twice");
    const auto joined = std::chrono::steady_clock::now();
    thread_.join();
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - joined).count();
    grid_made_.get();  // without a grid there is nothing to fall back on: its error
    Written& w = *written_;
    const auto fall_back = [&] {  // the whole file again, in one go
        w.out.reset();
        write_vtu_lz4(file_, w.grid.Get(), on_progress, narrowed);
        finished_ = true;
    };
    if (failure_) {
        fall_back();
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    // The arrays added since (the fields), in the file's order with the written ones.
    std::vector<VtuArray> all = grid_arrays(w.grid.Get(), narrowed);
    check_names(all, file_);
    std::vector<VtuArray> added = unwritten_arrays(all, w.arrays);
    w.end = w.out->compress_and_write(added, head_room, w.end, finish_threads_, on_progress);
    // The head names every array at its offset, in the file's order.
    std::vector<VtuArray> described;
    for (const VtuArray& array : all) {
        const std::string key = array_key(array);
        for (const std::vector<VtuArray>* list : {&w.arrays, &added})
            for (const VtuArray& a : *list)
                if (array_key(a) == key) described.push_back(a);
    }
    const std::string head = xml_head(w.grid.Get(), described);
    if (head.size() + 1 > head_room) {  // more arrays than the room holds: write it all again
        fall_back();
        return;
    }
    w.out->head_and_tail(head, head_room, w.end);
    w.out->close();
    finished_ = true;
    spdlog::info("VTU (LZ4): {:.0f} MB, the mesh written during the run (its grid made in {:.3f} s, compressed "
                 "and written in {:.3f} s{}; {:.3f} s waited for at the end), the fields in {:.3f} s",
                 static_cast<double>(head_room + w.end) / 1e6, w.grid_seconds, w.write_seconds,
                 w.early_seconds > 0 ? fmt::format(", then the solution in {:.3f} s", w.early_seconds) : "", waited,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (on_progress) on_progress(1.0);
}

}  // namespace gpufem
