#pragma once
// A coarser space of one rank's part of a mesh, as p-multigrid across ranks takes it (a lower
// degree, or a grid of half the boxes): this rank's unknowns numbered first, the others its
// transfer reaches (ghosts) after them by increasing global number, so grouped by owner in
// rank order; the unknowns are numbered rank after rank across the ranks.
#include <vector>

#include "linalg/csr.hpp"
#include "linalg/halo.hpp"
#include "solver/multigrid/lattice_product.hpp"

namespace gpufem {

/// One coarse space of a rank's part (see the header comment).
template <typename V>
struct PartSpace {
    /// The interpolation into the next finer space: rows its owned unknowns (the finest
    /// space's in the operator's numbering), columns this space's (owned, then ghosts).
    Csr<V> transfer;
    int degree = 1;                          ///< its polynomial degree (1 for a coarser grid)
    index_type owned = 0;                    ///< this rank's unknowns
    std::vector<index_type> offsets;         ///< rank r's global numbers: offsets[r] .. offsets[r + 1] - 1
    std::vector<index_type> ghost_global;    ///< each ghost's global number (increasing)
    HaloPlan halo;                           ///< how the ghosts arrive from their owners
    CoarseLattice lattice;                   ///< a grid level's unknowns as lattice points (else empty)
};

}  // namespace gpufem
