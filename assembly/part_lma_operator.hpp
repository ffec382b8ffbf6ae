#pragma once
// The matrix-free (`lma`) system of one rank's part of a distributed problem
// (assembly/part_mesh.hpp: its own cells and the cells around the nodes it owns, owned nodes
// numbered first), split for the halo's overlap: the cells whose nodes are all owned are
// applied while the ghost values travel (the local block), the cells that hold a ghost node
// after they have arrived (linalg/ghost_columns.hpp). Together they are the owned rows of the
// one-rank LMA operator.
#include <memory>

#include "assembly/lma_system.hpp"
#include "linalg/ghost_columns.hpp"
#include "linalg/linear_operator.hpp"

namespace gpufem {

/// A rank's owned rows of the LMA system.
template <typename V>
struct PartLmaSystem {
    /// Owned x owned: the cells whose nodes are all owned (but for up to 31 of them, which
    /// the boundary applies to keep its first slot aligned), the Dirichlet rows, and the owned
    /// rows' diagonal (every cell around them).
    std::unique_ptr<LinearOperator<V>> interior;
    /// The cells that hold a ghost node (and the few interior ones above), their owned rows.
    std::unique_ptr<GhostColumns<V>> boundary;
    Array<V> rhs;            ///< the owned rows' right-hand side, Dirichlet conditions eliminated
    Array<V> initial_guess;  ///< the owned Dirichlet values, 0 elsewhere
    index_type dirichlet_count = 0;  ///< constrained owned rows
    index_type interior_cells = 0;   ///< cells applied before the halo arrives
    index_type boundary_cells = 0;   ///< cells applied after it
    AssemblyTimes times;
};

/// The LMA system of a part (mesh: the part's mesh, nodes 0 .. owned - 1 owned, the others
/// ghosts) on exec: every cell's element matrix and load as assemble_lma_system computes them,
/// the Dirichlet data changed by owners_dirichlet (the ghosts' data as their owners have it)
/// before the elimination. Throws std::invalid_argument for the colour scatter (its colours
/// span both kinds of cells; the atomic scatter runs across ranks).
template <typename V>
PartLmaSystem<V> assemble_part_lma_system(const ExecPtr& exec, const Mesh& mesh, index_type owned,
                                          const ProblemSpec& problem, const LmaOptions& options,
                                          const DirichletAdjustment<V>& owners_dirichlet);

}  // namespace gpufem
