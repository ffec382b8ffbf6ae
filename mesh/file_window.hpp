#pragma once
// A range of an open file preallocated on the disk and mapped into memory, so that several
// threads copy their parts of it at once. Buffered writes to one file are serialised by the
// file system (one thread's pwrite reaches about 3 GB/s into the page cache); copies into a
// preallocated shared mapping from four to eight threads reach about 6 GB/s on an ext4 host
// with 16 cores. Preallocated first, so that a full disk is an error at the start, never a
// signal in a copy.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>

namespace gpufem {

/// Bytes [begin, begin + bytes) of a file, preallocated and mapped for writing.
class FileWindow {
public:
    /// Preallocates the range of fd's file (opened for reading and writing; grown to the
    /// range's end) and maps it; null where that cannot be done (a file system without
    /// preallocation, no room for the whole range, no mapping): the caller then writes with
    /// pwrite, and the file keeps its size.
    static std::unique_ptr<FileWindow> open(int fd, std::uint64_t begin, std::uint64_t bytes);
    /// Unmaps; the bytes copied stay in the file (the page cache writes them back).
    ~FileWindow();
    FileWindow(const FileWindow&) = delete;
    FileWindow& operator=(const FileWindow&) = delete;

    /// Copies `bytes` of data to the file's offset `at`, inside the range; safe from several
    /// threads for disjoint ranges.
    void copy(std::uint64_t at, const void* data, std::size_t bytes) const;
    /// The file's offset of the range's first byte.
    std::uint64_t begin() const { return begin_; }
    /// The range's end (the file's offset past its last byte).
    std::uint64_t end() const { return begin_ + bytes_; }

private:
    FileWindow(char* map, std::size_t map_bytes, std::uint64_t map_begin, std::uint64_t begin,
               std::uint64_t bytes);
    char* map_;
    std::size_t map_bytes_;
    std::uint64_t map_begin_;  ///< the page-aligned file offset the mapping starts at
    std::uint64_t begin_, bytes_;
};

}  // namespace gpufem
