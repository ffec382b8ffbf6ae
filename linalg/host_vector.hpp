#pragma once
// HostVector: a std::vector whose resize leaves new elements uninitialised, so that the code
// that fills a large array (with the host's threads) is the first to touch its pages: a
// zero-fill on one thread first cost more than the parallel fill itself (230 MB of mesh: 150 ms
// of page faults and memset on one thread before a 55 ms fill). Large arrays are also asked
// for in transparent huge pages (large_host_allocate): one page fault per 2 MiB instead of
// per 4 KiB when they are first written.
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpufem {

/// Arrays of at least this many bytes are allocated by large_host_allocate: from 4 MiB, so that
/// the fields copied from the device (16 MB for a float field of 4M nodes) are first touched
/// in huge pages too; the 2 MiB rounding is address space, never touched.
inline constexpr std::size_t large_host_bytes = std::size_t(4) << 20;

/// bytes (>= large_host_bytes) aligned to 2 MiB, advised to the kernel as transparent huge
/// pages (madvise MADV_HUGEPAGE; where the kernel has them off, ordinary pages). Throws
/// std::bad_alloc. Freed by large_host_free.
void* large_host_allocate(std::size_t bytes);
/// Frees what large_host_allocate gave.
void large_host_free(void* p) noexcept;

/// Starts making blocks for arrays of these byte counts on a thread of its own: allocated as
/// large_host_allocate does and their pages first touched by the host's threads, so that a
/// later large_host_allocate of the same size (rounded up to 2 MiB) takes a block whose pages
/// the kernel has already given, instead of a page fault per page while it is filled. What a
/// run knows it will allocate (a generated mesh's arrays) is made this way while the host
/// would otherwise wait (the CUDA driver's start). Counts below large_host_bytes are ignored;
/// nothing is made when the blocks would take more than half of the memory the kernel could
/// give (available_host_bytes); a second call adds to the first's.
void prepare_large_host_blocks(const std::vector<std::size_t>& bytes);
/// Frees the prepared blocks that no allocation has taken (after waiting for their thread),
/// returns how many bytes that was.
std::size_t release_prepared_host_blocks();
/// Bytes of the prepared blocks no allocation has taken yet, once their thread has made them
/// (it waits for it): resident, and not yet any array's.
std::size_t prepared_host_bytes();

/// std::allocator, except that value-initialisation (resize, vector(n)) default-initialises:
/// trivial types are left as they are, and large arrays come from large_host_allocate.
/// Constructions with arguments are unchanged.
template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
    using value_type = T;
    T* allocate(std::size_t n)
    {
        if (n >= large_host_bytes / sizeof(T)) return static_cast<T*>(large_host_allocate(n * sizeof(T)));
        return std::allocator<T>::allocate(n);
    }
    void deallocate(T* p, std::size_t n) noexcept
    {
        if (n >= large_host_bytes / sizeof(T)) {
            large_host_free(p);
        } else {
            std::allocator<T>::deallocate(p, n);
        }
    }
    template <typename U>
    struct rebind {
        using other = UninitialisedAllocator<U>;
    };
    UninitialisedAllocator() noexcept = default;
    template <typename U>
    UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept
    {
    }
    template <typename U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>)
    {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args)
    {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

/// A host array for large data filled right after it is sized (mesh coordinates, cells).
template <typename T>
using HostVector = std::vector<T, UninitialisedAllocator<T>>;

}  // namespace gpufem
