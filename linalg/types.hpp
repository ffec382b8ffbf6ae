#pragma once
// Basic scalar and index types shared by every gpufem module.
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpufem {

/// Index type of rows, columns, nodes and elements (int32: up to 2^31-1 entries per array).
using index_type = std::int32_t;

/// Row offsets of a CSR matrix past 2^31 - 1 stored entries (its columns stay index_type).
using wide_offset_type = std::int64_t;

/// Throws a clear error when a count no longer fits in index_type.
inline index_type checked_index(std::int64_t value, const std::string& what)
{
    if (value < 0 || value > std::numeric_limits<index_type>::max()) {
        throw std::overflow_error(what + " (" + std::to_string(value) +
                                  ") does not fit in a 32-bit index");
    }
    return static_cast<index_type>(value);
}

/// Name of a value type ("float" or "double"), for logs and reports.
template <typename V>
constexpr const char* precision_name()
{
    return sizeof(V) == 4 ? "float" : "double";
}

}  // namespace gpufem
