#include "linalg/host_vector.hpp"

#include <cstdlib>

#include <sys/mman.h>

namespace gpufem {
namespace {

constexpr std::size_t huge_page_bytes = std::size_t(2) << 20;

}  // namespace

void* large_host_allocate(std::size_t bytes)
{
    // aligned_alloc wants a multiple of the alignment; the rounding is at most 2 MiB of
    // address space, never touched.
    const std::size_t rounded = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
    void* p = std::aligned_alloc(huge_page_bytes, rounded);
    if (p == nullptr) throw std::bad_alloc();
    // Advice only: where transparent huge pages are off (or the call fails) the pages are the
    // ordinary ones and nothing else changes.
    (void)madvise(p, rounded, MADV_HUGEPAGE);
    return p;
}

void large_host_free(void* p) noexcept { std::free(p); }

}  // namespace gpufem
