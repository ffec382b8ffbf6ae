#pragma once
// The verdicts of the mesh checks (mesh_validation.hpp) kept beside a mesh cache file, so that a
// rerun on the cached mesh does not check millions of cells again: FILE.gpumesh.checks, JSON.
// A cache file holds Gmsh's mesh, which serves several refinements and degrees; the checks run
// on the final mesh, after gpufem's refinement and degree-k nodes, so each verdict is kept for
// one refinement and degree, and for the case's quality bounds. A verdict is kept only for a
// mesh of one connected part (whether the Dirichlet conditions reach every part depends on the
// case), and any that does not match the cache file's size or the mesh's counts is ignored.
#include <optional>
#include <string>

#include "solver/run/mesh_validation.hpp"

namespace gpufem {

/// What a verdict was found for, besides its cache file and the final mesh's counts: gpufem's
/// refinement and degree of the cached mesh, and the case's quality bounds.
struct CheckedMeshSettings {
    int refine = 0;
    int degree = 1;
    QualityLimits limits;
};

/// The verdict beside `cache_file` for `mesh` (its cell and node counts) and `settings`;
/// nothing otherwise (missing, unreadable or none matching).
std::optional<MeshValidation> read_check_record(const std::string& cache_file, const Mesh& mesh,
                                                const CheckedMeshSettings& settings);

/// Whether the record beside `cache_file` holds a verdict for `settings` (whatever the final
/// mesh's counts, which read_check_record checks once the mesh is made).
bool has_check_record(const std::string& cache_file, const CheckedMeshSettings& settings);

/// Removes the verdicts beside `cache_file`, if any (a cache file just made from a new mesh).
void remove_check_record(const std::string& cache_file);

/// Keeps `checked` beside `cache_file` with the verdicts of other settings found there (a mesh
/// of one part only; returns false without writing otherwise, or when the file cannot be
/// written: the run goes on without it).
bool write_check_record(const std::string& cache_file, const Mesh& mesh, const CheckedMeshSettings& settings,
                        const MeshValidation& checked);

}  // namespace gpufem
