#pragma once
// The case's mesh checked before assembly, the same for finite elements and finite volumes:
// coordinates (finite; 2D meshes flat), the cells' quality (slivers refused, poor cells
// counted in a warning), conformity (faces of two cells with the same corners, no hanging
// node, no overlap in 2D) and, where the problem has Dirichlet conditions, every connected
// part of the domain reached by one. A bad mesh stops the run with the file, cell and node
// named, before anything is assembled or written.
#include "linalg/executor.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_cache.hpp"
#include "mesh/mesh_conformity.hpp"
#include "mesh/mesh_quality.hpp"
#include "solver/case/case_file.hpp"

namespace gpufem {

/// What the checks found, for the log.
struct MeshValidation {
    QualitySummary quality;
    ConformityReport conformity;
    index_type parts = 1;  ///< connected parts of the domain (as the discretisation couples cells)
    double seconds = 0;
    bool from_record = false;  ///< the verdict kept beside the mesh cache file (mesh_check_record.hpp)
};

/// The checks a uniform refinement keeps, run on the mesh as Gmsh made it, before gpufem
/// refines it: conformity (a refined conforming mesh is conforming, each face split into four,
/// each edge of a 2D mesh into two) and the connected parts the Dirichlet conditions must reach
/// (the same parts). The refined mesh's own checks are then its coordinates and its cells'
/// quality (which the refinement and the snap onto the geometry change).
struct CoarseMeshVerdict {
    ConformityReport conformity;  ///< the coarse mesh's faces
    index_type parts = 1;
    double seconds = 0;
};

/// Checks `coarse` before gpufem refines it (see CoarseMeshVerdict); the face matching runs on
/// exec (null: the CPU). Throws MeshSourceError naming the coarse mesh's cells, as
/// validate_case_mesh does.
CoarseMeshVerdict check_coarse_mesh(const CaseSpec& spec, const Mesh& coarse, const ExecPtr& exec);

/// Whether check_coarse_mesh should run on the case's mesh before its refinement: unless
/// `cache` loaded it from a cache file beside which a verdict for the case's refinement,
/// degree and quality bounds is kept.
bool coarse_checks_needed(const CaseSpec& spec, const MeshCacheStatus& cache);

/// Checks the case's mesh (see the file comment), unless gpufem generated it (a shape: valid by
/// construction) or `cache` loaded it from a cache file beside which the verdict is kept for
/// the case's refinement, degree and quality bounds; the face matching runs on exec (null: the CPU). Keeps the verdict
/// beside a cache file hit or stored. With `coarse`, the verdict of check_coarse_mesh on the
/// mesh it was refined from: only the coordinates and the quality are checked here, the
/// conformity (its face counts scaled by the refinement) and the parts are the coarse mesh's.
/// Throws MeshSourceError naming the mesh, the cell, its face and the node; logs a warning for
/// poor cells and a line with what was checked.
MeshValidation validate_case_mesh(const CaseSpec& spec, const Mesh& mesh, const ExecPtr& exec,
                                  const MeshCacheStatus& cache = {}, const CoarseMeshVerdict* coarse = nullptr);

/// Throws MeshSourceError naming the first part of the domain that no Dirichlet condition
/// reaches (finite elements: cells joined through nodes, a part reached by a node of a
/// Dirichlet facet; finite volumes: cells joined through faces, a part reached by a boundary
/// face of a Dirichlet group), or when a problem without Dirichlet conditions has several
/// parts. faces: the face adjacency (null: none; finite volumes then join cells through
/// nodes). Returns the number of parts.
index_type check_parts_reach_dirichlet(const CaseSpec& spec, const Mesh& mesh, const FaceSlots* faces);

}  // namespace gpufem
