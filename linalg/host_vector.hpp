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
