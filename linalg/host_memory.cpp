#include "linalg/host_memory.hpp"

#include <cstdio>
#include <cstring>

#include <unistd.h>

namespace gpufem {
namespace {

/// The value in kB of the line "<key>: <value> kB" of a /proc file, in bytes (0 if absent).
std::size_t proc_kilobytes(const char* path, const char* key)
{
    std::FILE* file = std::fopen(path, "r");
    if (file == nullptr) return 0;
    char line[256];
    std::size_t bytes = 0;
    const std::size_t key_length = std::strlen(key);
    while (std::fgets(line, sizeof line, file) != nullptr) {
        if (std::strncmp(line, key, key_length) == 0 && line[key_length] == ':') {
            unsigned long long kilobytes = 0;
            if (std::sscanf(line + key_length + 1, "%llu", &kilobytes) == 1) bytes = kilobytes * 1024;
            break;
        }
    }
    std::fclose(file);
    return bytes;
}

}  // namespace

std::size_t physical_host_bytes()
{
    return static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) *
           static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
}

std::size_t available_host_bytes()
{
    const std::size_t available = proc_kilobytes("/proc/meminfo", "MemAvailable");
    return available > 0 ? available : physical_host_bytes();
}

std::size_t resident_host_bytes() { return proc_kilobytes("/proc/self/status", "VmRSS"); }

std::size_t peak_resident_host_bytes() { return proc_kilobytes("/proc/self/status", "VmHWM"); }

bool reset_peak_resident_host_bytes()
{
    std::FILE* file = std::fopen("/proc/self/clear_refs", "w");
    if (file == nullptr) return false;
    const bool written = std::fputs("5", file) >= 0;
    return std::fclose(file) == 0 && written;
}

}  // namespace gpufem
