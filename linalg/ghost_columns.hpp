#pragma once
// The part of a rank's distributed operator that reads ghost values (linalg/distributed_operator.hpp):
// applied after the halo has brought them, beside the local block that ran while it travelled.
#include <cstddef>
#include <string>

#include "linalg/array.hpp"

namespace gpufem {

/// What a rank's rows add from the ghost unknowns: an assembled block over the ghost columns
/// (CSR), or the matrix-free cells that hold a ghost node.
template <typename V>
class GhostColumns {
public:
    virtual ~GhostColumns() = default;
    /// y += alpha times this part of the operator applied to the vector whose owned values are
    /// x and whose ghost values are ghosts (as the halo received them).
    virtual void apply(V alpha, const Array<V>& x, const Array<V>& ghosts, Array<V>& y) const = 0;
    /// Bytes this part keeps on the device.
    virtual std::size_t bytes_stored() const = 0;
    /// Bytes one apply must move at least.
    virtual std::size_t spmv_min_bytes() const = 0;
    /// "" or a short description for the report's format parameters.
    virtual std::string parameters() const { return ""; }
};

}  // namespace gpufem
