#pragma once
// The pieces of a run's memory that a discretisation owns: its mesh, its assembly, what it
// holds while the system is solved, its error norms and its output, phase by phase, from the
// mesh's counts and what the run chose (the operator's memory from its format or level entry,
// the preconditioner's from its entry). The application's memory estimate
// (solver/run/memory_estimate.cpp) adds these pieces to the solve's own and to the baseline.
#include "linalg/format_registry.hpp"
#include "mesh/mesh_source.hpp"

namespace gpufem {

/// Bytes on the host and on the device (0 on the CPU backend).
struct PhaseBytes {
    double host = 0;
    double device = 0;
};

/// What the run chose that a discretisation's memory depends on.
struct MemoryChoices {
    bool cuda = false;            ///< a CUDA run (else the CPU backend)
    double value_bytes = 8;       ///< 4 (float) or 8 (double)
    FormatMemory format;          ///< the operator's memory for the discretisation's matrix
    double wide_extra = 0;        ///< what 64-bit row offsets add to a CSR (0 with 32-bit ones)
    bool wide_offsets = false;    ///< the matrix is held with 64-bit row offsets
    bool matrix_free = false;     ///< an operator level (no assembled matrix unless keep_matrix)
    bool keep_matrix = false;     ///< the assembled CSR is kept beside the operator
    bool element_pmg = false;     ///< the preconditioner's coarse operators come from the elements
    bool element_matrices_stored = false;  ///< the operator gives pmg's coarse operators (no copy)
    bool space_hierarchy = false; ///< the preconditioner asks for the discretisation's coarser spaces
    /// A float multigrid cycle smooths with a float copy of the (matrix-free) operator.
    bool float_operator_copy = false;
    double preconditioner_kept = 0;   ///< the preconditioner entry's memory: kept for the solve
    double preconditioner_setup = 0;  ///< and held at once by its setup
    bool write_solution = true;   ///< result.vtu is written
    bool fluxes = false;          ///< the solution's fluxes and flux fields are computed
    bool compressed_output = false;   ///< result.vtu is compressed (CUDA runs write its mesh early)
};

/// A discretisation's memory for one run: its own pieces of each phase (beside the process's
/// baseline, which the estimate adds) and what the solve works on.
struct DiscretisationMemory {
    PhaseBytes mesh;      ///< the mesh (or the read system), held in every phase
    PhaseBytes loading;   ///< the mesh phase's own, beside the mesh (reading a file)
    PhaseBytes assembly;  ///< the assembly phase's, beside the mesh
    PhaseBytes resident;  ///< held beside the mesh through the solve (scratch, state, correction)
    PhaseBytes errors;    ///< the error phase's, beside the mesh
    PhaseBytes output;    ///< the output phase's, beside the mesh
    double system = 0;    ///< what the assembly leaves for the solve: operator, rhs, guess
    double vector = 0;    ///< one vector of unknowns
    double kept = 0;      ///< the preconditioner's kept bytes, coarser spaces included
    double setup = 0;     ///< the preconditioner's setup bytes, coarser spaces included
};

/// The mesh's bytes: on the host, coordinates (3 doubles per node), cells, their groups and
/// the boundary facets (generated shapes grow these lists: up to 1.5 x); on a CUDA device
/// the coordinates and cells of meshes made or refined there.
PhaseBytes mesh_memory(const MeshCounts& mesh, bool cuda);

/// Host bytes of result.vtu's mesh written during a CUDA run (start_vtu_prewrite): VTK's
/// offsets, types and groups, and the compressed blocks in flight (about half the raw arrays
/// at most); 0 when the run writes no compressed result.vtu.
double prewrite_host_bytes(const MemoryChoices& choices, const MeshCounts& mesh);

/// Host bytes of the flux fields (the mesh's dimension's components at the nodes and per
/// cell, in double); 0 without output.fluxes.
double flux_field_bytes(const MemoryChoices& choices, const MeshCounts& mesh);

/// True when an expression is a plain number (kept as one value, not per quadrature point).
bool is_constant_expression(const std::string& text);

}  // namespace gpufem
