#pragma once
// The first values of an array as an array of their own (a rank's owned part of a vector laid
// out owned first, then ghosts).
#include <cstddef>

#include "linalg/array.hpp"

namespace gpufem {

/// The first `count` values of v, copied into a new array on v's executor.
template <typename T>
Array<T> leading(const Array<T>& v, std::size_t count)
{
    Array<T> out(v.executor(), count);
    if (count > 0) copy_bytes(*out.executor(), out.data(), *v.executor(), v.data(), count * sizeof(T));
    return out;
}

}  // namespace gpufem
