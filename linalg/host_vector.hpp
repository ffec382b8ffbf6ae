#pragma once
// HostVector: a std::vector whose resize leaves new elements uninitialised, so that the code
// that fills a large array (with the host's threads) is the first to touch its pages: a
// zero-fill on one thread first cost more than the parallel fill itself (230 MB of mesh: 150 ms
// of page faults and memset on one thread before a 55 ms fill).
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpufem {

/// std::allocator, except that value-initialisation (resize, vector(n)) default-initialises:
/// trivial types are left as they are. Constructions with arguments are unchanged.
template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
    using value_type = T;
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
