#pragma once
// A lower-degree space of one rank's part of a mesh, as p-multigrid across ranks takes it: the
// degree-c unknowns on the part's nodes, the ones on owned nodes this rank's (numbered first,
// in the space's order), the others ghosts (numbered after them by increasing global number,
// so grouped by owner in rank order), with the transfer from it into the next finer space.
#include <vector>

#include "linalg/csr.hpp"
#include "linalg/halo.hpp"

namespace gpufem {

/// One coarse space of a rank's part (see the header comment).
template <typename V>
struct PartSpace {
    /// The interpolation into the next finer space: rows its owned then ghost unknowns (the
    /// finest space's in the operator's numbering), columns this space's (owned, then ghosts).
    Csr<V> transfer;
    int degree = 1;
    index_type owned = 0;                    ///< this rank's unknowns
    std::vector<index_type> offsets;         ///< rank r's global numbers: offsets[r] .. offsets[r + 1] - 1
    std::vector<index_type> ghost_global;    ///< each ghost's global number (increasing)
    HaloPlan halo;                           ///< how the ghosts arrive from their owners
};

}  // namespace gpufem
