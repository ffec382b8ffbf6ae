#pragma once
// Meshing through Gmsh in a separate process: gpufem-mesh-worker, installed beside gpufem and
// started by it (`gpufem-mesh-worker --mesh-worker`, not for users), reads a MeshSpec on its
// standard input, loads the mesh with load_gmsh_mesh and writes it back on its standard
// output; only the worker links Gmsh's libraries. Why:
// - Gmsh keeps state between meshes in one process: its parallel 3D algorithm (HXT) made a
//   different mesh of the same .geo file for the second point of a degree sweep than for the
//   first; every mesh now starts from a fresh Gmsh (HXT itself may still vary by a few cells
//   between runs; Gmsh's Delaunay does not);
// - a crash or out-of-memory inside Gmsh (its OpenMP meshing aborts the process) ends the worker,
//   not the run, and is reported as an error naming the mesh;
// - the worker's address space is limited to the machine's physical memory, so that a mesh too
//   large for the machine fails instead of driving the host into swap;
// - Gmsh evaluates .geo scripts, which can run programs and read, write and delete files: the
//   worker puts itself in an operating-system sandbox (worker_sandbox.hpp) before Gmsh reads
//   anything, unless the case sets mesh.allow_commands; a script is stopped after
//   mesh.script_time_limit, meshing after mesh.time_limit;
// - the worker is killed when gpufem ends (its parent-death signal), even by SIGKILL.
#include <string>
#include <vector>

#include "mesh/gmsh_mesh.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_cache.hpp"
#include "mesh/mesh_source.hpp"

namespace gpufem {

/// The argument that starts the worker: `gpufem-mesh-worker --mesh-worker`.
inline constexpr const char* mesh_worker_argument = "--mesh-worker";

/// Sets the executable that load_mesh_isolated starts as its worker ("" = none: meshes are
/// made by the in-process Gmsh, set_in_process_gmsh). gpufem's main sets gpufem-mesh-worker
/// beside its own program. A prestarted worker of another executable is ended.
void set_mesh_worker(const std::string& executable);

/// How a process that links Gmsh (the gpufem_gmsh library: the worker, the tests) makes a mesh
/// through Gmsh when no worker is set: load_gmsh_mesh_and_order (gmsh_mesh.hpp).
using InProcessGmsh = GmshMesh (*)(const MeshSpec& spec);

/// Sets the in-process Gmsh (null: none). Without a worker and without it, a mesh through Gmsh
/// is a MeshSourceError naming the missing worker. The gpufem_gmsh_in_process object library
/// sets load_gmsh_mesh_and_order when the program starts.
void set_in_process_gmsh(InProcessGmsh load);

/// Starts meshing spec in a worker now, for a later load_mesh_isolated of the same spec, when
/// that will need one (a worker is set, the mesh goes through Gmsh and has no cache file):
/// the worker's start
/// (mostly loading Gmsh's libraries, ~0.1 s) and Gmsh's meshing overlap the caller's own
/// start-up (e.g. creating the CUDA context). The next load of that spec (with the host's
/// threads) takes its reply; a load of another spec ends it and starts its own, as does
/// set_mesh_worker; unused, it is ended at exit. A worker that cannot be started is reported
/// by the load.
void prestart_mesh_worker(const MeshSpec& spec);

/// load_mesh(spec, device): the Gmsh part (load_gmsh_mesh) in a worker (with the host's
/// threads) when one is set and the mesh goes through Gmsh (mesh_needs_gmsh), the rest
/// (finish_gmsh_mesh: refinement and node numbering on `device`) in this process. With
/// spec.cache, the Gmsh part comes from its cache file when that matches, and no worker is
/// started; else it is stored there (mesh_cache.hpp). `cache`, when given, gets what the
/// cache did.
Mesh load_mesh_isolated(const MeshSpec& spec, const ExecPtr& device = nullptr, MeshCacheStatus* cache = nullptr);

/// load_mesh_isolated without finish_gmsh_mesh: the mesh as Gmsh made or read it (or its
/// cache file), unrefined; spec must go through Gmsh. For runs whose ranks refine their parts.
Mesh load_coarse_mesh_isolated(const MeshSpec& spec, MeshCacheStatus* cache = nullptr);

/// The Gmsh part of load_mesh alone (load_gmsh_mesh: the mesh as Gmsh reads or makes it,
/// unrefined, its cells of their geometric order), in a worker when one is set; spec must go
/// through Gmsh (a file or a .geo). Throws as load_mesh_in_worker.
Mesh load_gmsh_mesh_isolated(const MeshSpec& spec);

/// Loads the Gmsh part of the mesh of `spec` (load_gmsh_mesh) in a worker started from
/// `executable` (an absolute path, normally gpufem-mesh-worker beside gpufem) with `threads` host threads for
/// Gmsh. Throws MeshSourceError with the worker's message, naming the signal that ended it
/// (SIGSYS: the sandbox stopped a program's start) or the time limit it passed; std::bad_alloc
/// when it ran out of memory. The worker gets SIGKILL when the calling thread ends: call it
/// from a thread that outlives the load (gpufem's main thread).
Mesh load_mesh_in_worker(const MeshSpec& spec, const std::string& executable, int threads);

/// The environment the worker starts with: `environment` (this process's, as `environ` lists
/// it: "NAME=value" entries) with glibc's malloc asked to back large blocks by transparent huge
/// pages (glibc.malloc.hugetlb=1 in GLIBC_TUNABLES, added to the tunables there unless they
/// set hugetlb already). Gmsh's API zero-fills the vectors it hands the cells in on one
/// thread, and the page faults of 4 KiB pages were most of a large mesh's extraction.
std::vector<std::string> mesh_worker_environment(const char* const* environment);

/// The worker's side: reads the request from standard input, enters the sandbox (unless the
/// request allows commands), writes the mesh or the error to standard output (and, for a
/// .geo, a note once the script is evaluated). Returns the process exit code (0, or 1 when the
/// request could not be read).
int run_mesh_worker();

}  // namespace gpufem
