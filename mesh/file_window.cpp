#include "mesh/file_window.hpp"

#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpufem {

FileWindow::FileWindow(char* map, std::size_t map_bytes, std::uint64_t map_begin, std::uint64_t begin,
                       std::uint64_t bytes)
    : map_(map), map_bytes_(map_bytes), map_begin_(map_begin), begin_(begin), bytes_(bytes)
{
}

std::unique_ptr<FileWindow> FileWindow::open(int fd, std::uint64_t begin, std::uint64_t bytes)
{
    struct stat before {};
    if (bytes == 0 || ::fstat(fd, &before) != 0) return nullptr;
    // fallocate, not posix_fallocate: where the file system cannot preallocate, glibc's
    // emulation would write zeros over the range, slower than the pwrite it replaces.
    if (::fallocate(fd, 0, static_cast<off_t>(begin), static_cast<off_t>(bytes)) != 0) {
        (void)::ftruncate(fd, before.st_size);  // whatever a failed call allocated past the end
        return nullptr;
    }
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t map_begin = begin / page * page;
    const auto map_bytes = static_cast<std::size_t>(begin + bytes - map_begin);
    void* map = ::mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(map_begin));
    if (map == MAP_FAILED) {
        (void)::ftruncate(fd, before.st_size);
        return nullptr;
    }
    return std::unique_ptr<FileWindow>(new FileWindow(static_cast<char*>(map), map_bytes, map_begin, begin, bytes));
}

FileWindow::~FileWindow() { ::munmap(map_, map_bytes_); }

void FileWindow::copy(std::uint64_t at, const void* data, std::size_t bytes) const
{
    if (at < begin_ || at + bytes > begin_ + bytes_)
        throw std::logic_error("FileWindow::copy outside the window");
    std::memcpy(map_ + (at - map_begin_), data, bytes);
}

}  // namespace gpufem
