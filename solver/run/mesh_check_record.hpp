#pragma once
// The verdict of the mesh checks (mesh_validation.hpp) kept beside a mesh cache file, so that a
// rerun on the cached mesh does not check millions of cells again: FILE.gpumesh.checks, JSON.
// A cache file stands for one final mesh (its key covers the inputs, size, refinement and
// degree), so the verdict holds while the case's quality bounds are the same; it is kept only
// for a mesh of one connected part (whether the Dirichlet conditions reach every part depends
// on the case), and any record that does not match the mesh's counts is ignored.
#include <optional>
#include <string>

#include "solver/run/mesh_validation.hpp"

namespace gpufem {

/// The record beside `cache_file` when there is one for `mesh` (its cell and node counts) and
/// the quality bounds `limits`; nothing otherwise (missing, unreadable or mismatching).
std::optional<MeshValidation> read_check_record(const std::string& cache_file, const Mesh& mesh,
                                                const QualityLimits& limits);

/// Removes the record beside `cache_file`, if any (a cache file just made from a new mesh).
void remove_check_record(const std::string& cache_file);

/// Keeps `checked` beside `cache_file` (a mesh of one part only; returns false without writing
/// otherwise, or when the file cannot be written: the run goes on without it).
bool write_check_record(const std::string& cache_file, const Mesh& mesh, const QualityLimits& limits,
                        const MeshValidation& checked);

}  // namespace gpufem
