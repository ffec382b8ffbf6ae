#pragma once
// p-multigrid's lower-degree spaces on one rank's part of a mesh (solver/multigrid/
// part_space.hpp): each degree's unknowns numbered across the ranks, the ghosts' global
// numbers from their owners, and the transfers in those numberings.
#include <vector>

#include "linalg/communicator.hpp"
#include "solver/multigrid/part_space.hpp"
#include "solver/run/part_payload.hpp"

namespace gpufem {

/// The part's lower-degree spaces, finest first (degree k/2 then 1 for even k >= 4, else 1),
/// on exec; empty at degree 1 and on a mesh of several cell types. permutation: the operator's
/// numbering of the owned nodes (new -> part-local; empty: the part's order), which the first
/// transfer's rows follow. Collective over host.
template <typename V>
std::vector<PartSpace<V>> part_spaces(const PartPayload& part, const Array<index_type>& permutation,
                                      const ExecPtr& exec, const Communicator& host);

}  // namespace gpufem
