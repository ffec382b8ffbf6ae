#pragma once
// The host's memory as the kernel sees it: physical and available bytes, and this process's
// resident set with its high-water mark (Linux /proc; the mark can be restarted per phase).
#include <cstddef>

namespace gpufem {

/// True in a -fsanitize=address build (gcc defines __SANITIZE_ADDRESS__, clang has a feature
/// test): its shadow memory reserves terabytes of address space and its redzones enlarge the
/// resident set.
constexpr bool built_with_address_sanitizer()
{
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

/// The machine's physical memory in bytes.
std::size_t physical_host_bytes();
/// Memory the kernel could give this process without swapping (MemAvailable), in bytes.
std::size_t available_host_bytes();
/// This process's resident set size now (VmRSS), in bytes.
std::size_t resident_host_bytes();
/// The largest resident set size of this process since it started or since the last
/// reset_peak_resident_host_bytes (VmHWM), in bytes.
std::size_t peak_resident_host_bytes();
/// Restarts the resident high-water mark at the current resident size (/proc/self/clear_refs);
/// false when the kernel does not allow it (the mark then keeps counting from the start).
bool reset_peak_resident_host_bytes();

}  // namespace gpufem
