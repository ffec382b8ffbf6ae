// case_file_reference(): the documentation of every case-file key (also in docs/case-reference.md). The
// format and preconditioner parts are generated from their registries.
#include "solver/case/case_file.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "assembly/operator_levels.hpp"

namespace gpufem {
namespace {

/// Words of text wrapped into lines of at most width characters, each line after the first
/// indented by indent spaces.
std::string wrap(const std::string& text, std::size_t indent, std::size_t width)
{
    std::string out, line;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(start, end - start);
        if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
            out += line + "\n" + std::string(indent, ' ');
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        start = end + 1;
    }
    return out + line;
}

/// The solver's `preconditioner` entry, from the preconditioner registry.
std::string preconditioner_reference()
{
    constexpr std::size_t column = 27, width = 96;
    const PreconditionerRegistry& registry = preconditioner_registry();
    std::string choices;
    for (const PreconditionerEntry& p : registry.entries())
        choices += (choices.empty() ? "" : " | ") + p.name + (p.summary.empty() ? "" : " (" + p.summary + ")");
    const std::string key = "  preconditioner: " + default_preconditioner().name;
    return fmt::format("{:<{}}", key, column) +
           wrap("(string, default " + default_preconditioner().name + ") " + choices, column, width) + "\n";
}

/// The `format` and `format_options` entries, from the registry.
std::string format_reference()
{
    constexpr std::size_t column = 27, width = 96;
    std::string s = "format: csr                (string, default csr) storage format of the matrix:\n";
    std::size_t name_width = 0;
    for (const OperatorEntryBase& f : operator_entries()) name_width = std::max(name_width, f.name.size());
    for (const OperatorEntryBase& f : operator_entries()) {
        const std::string name = fmt::format("{:<{}} ", f.name, name_width);
        s += std::string(column, ' ') + name + wrap(f.summary, column + name_width + 1, width) + "\n";
    }
    s += std::string(column, ' ') + fmt::format("{:<{}} ", "auto", name_width) +
         wrap("chosen on the matrix before the solve: every assembled format the backend has is "
              "built and timed over a few SpMVs, each conversion counted against the SpMVs the "
              "solve is expected to take (a short run of the solver extrapolated, 15 iterations "
              "for amg/pmg, or auto_iterations); the decision table is logged and in report.json",
              column + name_width + 1, width) + "\n";
    s += "auto_iterations: N        (integer > 0, default: estimated) format: auto: the iterations the\n"
         "                           conversions are counted against\n"
         "reorder: none              (string, default none) none | rcm | cm: a symmetric reordering of\n"
         "                           the assembled matrix before it is converted into any format\n"
         "                           (reverse Cuthill-McKee or Cuthill-McKee of its graph, Boost.Graph,\n"
         "                           on the host); the solver works in the new numbering, the solution\n"
         "                           is permuted back and times.reorder reports the cost; bdia and\n"
         "                           staircase apply their own order after it. Not with lma or pa\n"
         "                           (matrix-free: they keep the mesh's numbering)\n";
    s += "format_options:            (map, all optional) each format's own options, under its "
         "name:\n"
         "                           format_options: {sellp: {slice: 64}, csr: {coop: 4}}\n"
         "                           (the flat keys of earlier versions, format_options: {slice: "
         "64},\n"
         "                           are still read, with a warning)\n";
    for (const OperatorEntryBase& f : operator_entries()) {
        if (f.options.keys.empty()) continue;
        s += "  " + f.name + ":\n";
        for (const FormatOptionInfo& o : f.options.keys) {
            const std::string key = fmt::format("    {}: {}", o.key, o.default_text);
            s += fmt::format("{:<{}}", key, column) + wrap(o.help, column, width) + "\n";
        }
    }
    return s + "\n";
}

/// The reference's opening: what a case file is.
std::string reference_introduction()
{
    return R"REF(Case file reference (YAML)

A case file is one YAML map. Only `mesh` (or `matrix`) is required; every other key has a
default. Unknown keys, wrong types and bad values are errors that name the file, the line and
the key.
)REF";
}

/// The `mesh` map.
std::string mesh_reference()
{
    return R"REF(
mesh:                      (map, required) where the mesh comes from: exactly one of file, geo, shape
  file: PATH               (string) a Gmsh .msh file; relative paths are relative to the case
                           file's folder; the file must exist
  geo: PATH                (string) a Gmsh .geo file, meshed by Gmsh; same path rules as file.
                           Volumes are meshed with Gmsh's HXT algorithm unless the file sets
                           Mesh.Algorithm3D, on mesh.gmsh_threads threads (default all of
                           the host's; 1: the same mesh every run)
  shape: NAME              (string) a built-in shape: unit_square | unit_cube | l_shape | disk
                           (unit_cube is 3D, the others 2D). gpufem generates unit_square,
                           unit_cube and l_shape itself: a grid of n = ceil(1/size) boxes per
                           unit length, triangles splitting each square along its diagonal
                           from the lower-left corner, tetrahedra splitting each cube into the
                           6 around its diagonal from (0,0,0) (Kuhn); Gmsh meshes the disk
  elements: TYPE           (string, shape only; default quadrilateral in 2D, hexahedron in 3D)
                           triangle | quadrilateral (2D), tetrahedron | hexahedron (3D);
                           tri, quad, tet, hex are accepted as aliases
  size: H                  (number > 0, geo and shape only; default 0.1 for a shape, the .geo
                           file's own sizes for geo) target element size
  refine: N                (integer 0..10 or a list of them, default 0) uniform refinements
                           after meshing; each halves the element size (a generated shape is
                           generated 2^N times finer, which is what refining it gives). Meshes
                           from Gmsh are refined by gpufem on the backend (the GPU with
                           cuda): 4 children per triangle or quadrilateral, 8 per hexahedron,
                           8 per tetrahedron (the inner octahedron along its shortest
                           diagonal); new nodes come from each parent's geometric map, and
                           those on the boundary of a geo or disk go onto the model's curved
                           surfaces and curves (refine_onto_geometry). A list ([0, 1, 2]) runs
                           the case once per level (a sweep)
  refine_onto_geometry: true  (boolean, geo and shape: disk) with refine, the boundary nodes
                           refinement makes lie on the geometry's curved surfaces (3D) or
                           curves (2D), as Gmsh's own nodes do, so a coarse model refined keeps
                           its holes round; false: on the coarse cells' maps (for a mesh file
                           always: it holds no geometry)
  geometry_order: K        (integer 1..4, Gmsh meshes only; default: 1 when every curve and
                           surface of the geometry is a line or a plane, and for first-order
                           .msh files; else the degree, at least 2 when refined) the order of
                           the cells Gmsh makes, nodes on the geometry's curves and surfaces;
                           their maps place every node gpufem adds (refinement, degree);
                           prisms, pyramids and several cell types: 2 at most
  size_scales_with_degree: false  (boolean, geo and shape only) use size * degree as the element
                           size, so that a degree sweep keeps the number of unknowns about fixed
  gmsh_threads: 0          (integer >= 0, Gmsh meshes only) threads Gmsh meshes on (.geo
                           volumes: its HXT algorithm); 0: all of the host's, fastest on large
                           volumes, but a fresh mesh then varies by a few cells from run to run
                           (the mesh cache keeps reruns identical); 1 repeats most meshes bit
                           for bit, and with Mesh.Algorithm3D = 1 (Delaunay) in the script
                           every 3D one
  cache: true              (boolean; file and geo) keep Gmsh's mesh in .gpufem-cache/ beside the
                           mesh file and load it from there on the next run, skipping Gmsh,
                           while the file, its FILE.opt, the files it includes or merges,
                           Gmsh's version and the options that reach Gmsh (size,
                           geometry_order, gmsh_threads) are unchanged; refine and degree are
                           applied after loading, and change Gmsh's mesh only on curved
                           geometry, where Gmsh's cells take the degree's order (at least 2
                           when refined). A damaged or mismatching cache file is refused with
                           a warning and made again. false (or `gpufem run --no-mesh-cache`):
                           neither read nor write it. Built-in shapes are never cached
  min_quality: 1e-8        (0..1; file and geo) refuse the mesh when a cell's quality (its area
                           or volume against an ideal cell's with the same longest edge: 1 for
                           an equilateral triangle or a cube, near 0 for a sliver) is below it,
                           naming the cell; slivers' entries swamp the system. 0: refuse none
  warn_quality: 1e-3       (0..1, at least min_quality; file and geo) count the cells below it
                           in a warning with the worst one
  time_limit: 1800         (seconds > 0) how long Gmsh may read, mesh and refine (files, .geo
                           files, the disk): it runs in a separate process, ended after that
  script_time_limit: 60    (seconds > 0, geo only) how long Gmsh may evaluate the .geo script
                           before meshing (a loop in it is stopped there); within time_limit
  allow_commands: false    (boolean, geo only) run Gmsh outside its sandbox and let the .geo
                           script run System, SystemCall, OnelabRun, Save, Print, Printf > FILE,
                           Exit, Abort, ListFromFile, Sleep, file commands and options naming
                           files or programs, and read files anywhere (a warning says so). By
                           default Gmsh runs in a sandbox (no programs, no writes, reads of the
                           mesh files only) and these are refused, named with their line; so is
                           a FILE.opt beside the file that uses them. Include "f";, Merge "f";
                           and ShapeFromFile("f") of a quoted name in the .geo file's folder (or
                           below) are read, each file checked in turn and covered by the cache. A file: must be a
                           Gmsh mesh (first line $MeshFormat); it is never read as a script
)REF";
}

/// The `matrix` map (an external system).
std::string matrix_reference()
{
    return R"REF(
matrix:                    (map, instead of mesh) an external linear system A x = b from Matrix
                           Market files; every format, solver, preconditioner, precision and
                           benchmark works on it; the solution is written as solution.mtx and
                           report.json as for a mesh (no result.vtu). degree and problem are not
                           used with it
  file: PATH               (string, required) A: coordinate real | integer | pattern, general |
                           symmetric | skew-symmetric, square; relative to the case file's folder
  rhs: PATH                (string, default none) b: an array (n x 1) or coordinate vector; none:
                           b = A 1, and the error of the solution against 1 is reported (errors:
                           l2 = ||u - 1||_2, max_nodal = max |u_i - 1|, relative to sqrt(n))
)REF";
}

/// `degree` and the `problem` map.
std::string problem_reference()
{
    return R"REF(
degree: 1                  (integer 1..8 or a list of them, default 1) polynomial degree of the
                           Lagrange elements (P1-P4 on simplices, Q1-Q8 on boxes, with GLL nodes
                           from Q5, whose geometry is Gmsh's cells of order 4 at most;
                           isoparametric;
                           the nodes numbered by gpufem from the mesh's vertices, edges, faces
                           and cells, placed by the cells' geometric maps, or on the grid of a
                           generated shape). A list ([1, 2, 3, 4]) runs every
                           degree; with a refine list, every combination, and prints one table
                           (degree, mesh, unknowns, nnz, iterations, times, errors and rates);
                           results go to d<degree>_r<refine>/ with a result.pvd collection

problem:                   (map) -div(kappa grad u) + b . grad u + c u = f with boundary
                           conditions. kappa, f, c and convection may each be given per region:
                           a map from physical groups of the mesh's dimension (volumes in 3D,
                           surfaces in 2D) to values, {steel: 50, insulation: "0.04*(1 + x)"};
                           every cell must then lie in a region the map names (else an error
                           names the groups left out and their cells). kappa, f and c (or a
                           region's value) may also be cell data, one value per cell:
                           {cell_data: NAME} is the field NAME of the mesh file's $ElementData,
                           {cell_data: NAME, file: F.vtu} a cell array of a .vtu on the same
                           mesh (its cells matched by centroid, in any order; the cells as read,
                           before mesh.refine, whose children take their parent's value); a
                           mesh from mesh.file or mesh.geo only. Every cell needs a finite
                           value (kappa > 0, c >= 0), one component
  kappa: EXPR              (number or expression, a list of them, a tensor or a map of regions,
                           default 1) diffusion coefficient; a constant must be > 0. A tensor
                           {xx: A, xy: B, yy: C} (3D also xz, yz, zz; off-diagonals default 0):
                           an anisotropic kappa, symmetric positive definite everywhere (finite
                           elements only), everywhere or as a region's value. A list ([1, "1 + 100*x*y"]) is
                           a coefficient sweep (up to 64 entries; with degree and refine lists,
                           every combination): the points of one mesh and degree share the
                           mesh, and with amg (or pmg on an assembled matrix) the first point's
                           hierarchy is updated with each new kappa's values (its aggregates and
                           transfers kept, the numeric setup again: the table's setup s with u);
                           results go to d<degree>_r<refine>_k<entry>/. f, exact and the
                           boundary conditions are the same for every entry
  f: EXPR                  (number or expression, or a map of regions, default 0) right-hand side
  c: EXPR                  (number or expression, or a map of regions, default 0) reaction
                           coefficient c >= 0 of the term c u
  exact: EXPR              (expression, default none) exact solution: when given, the error
                           against it is reported and written next to u
  convection: [BX, BY(, BZ)] (list of numbers or expressions, or a map of regions to such
                           lists, default none) velocity b of a convection term b . grad u (one
                           component per mesh dimension; a third 0 is allowed in 2D). The
                           operator is then non-symmetric: use solver.method: bicgstab
  dirichlet:               (map group -> expression, default none) u = value on each named
    GROUP: EXPR            boundary physical group; on nodes shared by several groups the one
                           written last wins
  neumann:                 (map group -> expression, default none) kappa du/dn = value (outward
    GROUP: EXPR            normal) on each named group; a group may not have both conditions
  robin:                   (map group -> {h, u_inf}, default none) -kappa du/dn = h (u - u_inf)
    GROUP: {h: H, u_inf: U} (outward normal): a convective transfer with coefficient h >= 0 to
                           the ambient value u_inf (default 0), each a number or expression; in
                           the operator of every format (lma and pmg's coarse levels too) and
                           in finite volumes; one condition per group
  Expressions are functions of x, y, z written for muParser, e.g. "sin(pi*x)*sin(pi*y)",
  "1 + x^2", "x < 0.5 ? 1 : 2"; constants pi and e; operators + - * / ^ < <= > >= == != &&
  || and c ? a : b; functions sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh
  atanh exp log (= ln) log2 log10 sqrt abs sign rint, and min max sum avg of any number of
  arguments. kappa, f, exact and the boundary values run where the data is (on the GPU with
  --backend cuda: a stack-machine program translated from muParser's bytecode). Numbers may
  be written unquoted.
  Group names are checked against the mesh when the case runs; a physical group without a
  name in the mesh file is called group<tag> (group5 for tag 5).
)REF";
}

/// `discretisation` and the `fv` map.
std::string discretisation_reference()
{
    return R"REF(
discretisation: fe         (string, default fe) fe: Lagrange finite elements of the given degree
                           | fv: cell-centred finite volumes, one unknown per cell (degree 1;
                           triangles, quadrilaterals, tetrahedra, hexahedra): the two-point flux
                           with kappa at the centroids and its harmonic mean on faces, f at the
                           centroids, boundary values at the face centres, upwind convection;
                           built on the backend (the GPU with cuda), one matrix row per cell
                           (no lma, no pmg). u, u_exact and error are cell data; the error is
                           the cell-centred L2 norm sqrt(sum V_c (u_c - u(x_c))^2). Without a
                           Dirichlet condition the data must balance (sum f V + boundary
                           fluxes = 0 within 1% of its size: the midpoint rule's rest is removed
                           evenly by volume); u = 0 in cell 0 fixes the constant and the
                           solution is shifted to zero mean
fv:                        (map, discretisation: fv only)
  nonorthogonal_correctors: 50 (integer 0..200, default 50) 0: the plain two-point flux,
                           inconsistent on non-orthogonal meshes; otherwise the explicit part
                           of the over-relaxed non-orthogonal split (least-squares cell
                           gradients, interpolated to the faces) is brought in as
                           fv.correction says (orthogonal meshes, e.g. structured boxes, need
                           none: the correction is 0); with deferred, at most this many solves
                           after the first
  correction_limit: 1      (number 0..1, default 1) OpenFOAM's limiter psi: each face's
                           correction is at most psi / (1 - psi) times its implicit part (1:
                           unlimited, 0.5: at most equal, 0: none)
  correction: implicit     (string, default implicit with solver.preconditioner: amg and
                           correction_limit 1, else deferred) implicit: one BiCGSTAB solve
                           (whatever solver.method says: the corrected operator is not
                           symmetric) of A - C, the correction C applied with every product
                           (a product costs several SpMVs) and the two-point matrix A's
                           preconditioner; Gmsh tetrahedra (up to 67 degrees) take 13 AMG
                           iterations; if it fails, deferred runs | deferred: solves with A,
                           the correction of the previous solution on the right-hand side, each
                           warm-started to two decades below the residual it starts from, the
                           iterates Anderson-mixed (depth 5), until the solution meets its
                           corrected right-hand side to solver.tolerance; Gmsh triangles and
                           tetrahedra take 15-25 solves

)REF";
}

/// The `solver` map before the preconditioners (method, variant).
std::string solver_reference()
{
    return R"REF(solver:                    (map) the Krylov solver
  method: cg               (string, default cg) cg (symmetric positive definite systems) |
                           bicgstab (any non-singular system, e.g. with problem.convection)
  variant: merged          (string, default merged) merged: vector updates fused with the dot
                           products, scalars kept on the device, the host reading the residual
                           every check_every iterations | single_reduction (cg only): the
                           merged kernels rearranged so that each iteration ends in one
                           reduction (r.r, r.z and z.Az together; A p by recurrence): one
                           kernel fewer per iteration and, on several processes, one all-reduce
                           instead of two (three with amg or pmg) | reference: one library
                           call per vector operation (cuBLAS on the GPU), every dot read by the
                           host
)REF";
}

/// The `solver` map after the preconditioners (tolerance to amg).
std::string solver_settings_reference()
{
    return R"REF(  tolerance: 1e-8          (number, 0 < tolerance < 1, default 1e-8) stop when
                           ||b - A x|| / ||b|| <= tolerance
  max_iterations: 10000    (integer > 0, default 10000) stop after this many iterations
  check_every: 10          (integer > 0, default 10) merged on cuda: iterations between two
                           reads of the residual by the host (at most check_every - 1 iterations
                           run as no-ops after convergence; after an amg or pmg cycle the
                           residual is read every iteration; near convergence no batch is
                           queued before the last is read)
  cuda_graph: auto         (string, default auto) auto | on | off: merged on cuda: replay
                           check_every iterations as one CUDA graph (removes launch gaps; auto:
                           below 2,097,152 unknowns). Per-SpMV times are not recorded in a graph
  time_spmv: true          (boolean, default true) record every SpMV between CUDA events (read
                           once after the solve) for spmv_timings.csv
  fused_dot: true          (boolean, default true) merged CG: the product computes p.Ap in its
                           own pass where the format offers it (bdia, ell, ellr), instead of a
                           second pass over p and q (2 fewer vector reads an iteration); the
                           report's solver.fused_dot says whether it did
  fused_direction: false   (boolean, default false) merged CG with fused_dot, Jacobi or no
                           preconditioner, one process: the product also makes the new
                           direction and one kernel does the rest (two kernels an iteration
                           instead of four; slower on an H100 at 0.26M and 4.2M unknowns: the
                           product reads more than the launches save); report:
                           solver.fused_direction
  resident_cg: off         (string, default off) auto | on | off: merged CG with bdia, Jacobi
                           or no preconditioner, one process: the whole solve as one kernel
                           whose blocks stay resident on the GPU and meet at grid-wide barriers
                           (two an iteration), each row's vectors in registers; for systems
                           whose iterations are bound by kernel launches (auto: on cuda below
                           2,097,152 unknowns when the rows fit the device's resident blocks,
                           about 270,000 on an H100; on: wherever it can run, the cpu backend
                           too); report: solver.resident_cg
  amg:                     (map) algebraic multigrid (preconditioner amg, and pmg's levels)
    strength_threshold: 0.02 (number, 0 <= t < 1, default 0.02) a_ij is a strong coupling
                           when |a_ij| > t sqrt(|a_ii a_jj|), or when it is its row's (or
                           column's) strongest; aggregates grow over strong couplings only
    smoother: chebyshev    (string, default chebyshev) chebyshev (polynomial in D^-1 A over
                           [lambda_max / 10, lambda_max], lambda_max = 1.1 x a Lanczos
                           estimate) | jacobi (damped, weight 4 / (3 lambda_max))
    eigen_steps: 10        (integer 3..50, default 10) Lanczos steps of each level's
                           lambda_max estimate (each one product with the level's operator);
                           fewer make a shorter setup, an estimate further below lambda_max
    degree: 2              (integer 1..10, default 2) Chebyshev degree or Jacobi sweeps, before
                           and after the coarse correction
    coarse_size: 500       (integer 1..2048, default 500) a level of at most this many rows is
                           solved directly (dense inverse formed once on the host)
    max_levels: 25         (integer > 0, default 25) at most this many levels
    cycle: v               (string, default v) v | w: each level visits the next coarser one
                           once (V-cycle) or twice (W-cycle: fewer iterations for more work on
                           the coarse levels; symmetric, so CG stays valid)
    coarsening: aggregation (string, default aggregation) aggregation | classical: each level's
                           coarse space by smoothed aggregation, or by classical AMG's C/F
                           splitting (PMIS) and extended+i interpolation, as hypre's BoomerAMG:
                           about half the iterations on unstructured triangles and tetrahedra
                           at P1 to P3, denser coarse levels (operator complexity 1.4-1.8
                           against 1.03-1.16), on the GPU a setup 1.3-2 times aggregation's:
                           as fast to the tolerance at P2-P3, slower at P1; Chebyshev over
                           [lambda_max / 5, lambda_max]; one process
    classical_threshold: 0.25 (number, 0 < t < 1, default 0.25) classical: a_ij of the opposite
                           sign to a_ii is strong when |a_ij| >= t times the row's largest
    interpolation_entries: 4 (integer >= 0, default 4) classical: at most this many entries in
                           a row of the interpolation, the largest, scaled to keep the row's
                           sum (0: all; more make denser coarse levels for few iterations)
    aggregation: distance2 (string, default distance2) distance2 | distance1: aggregate roots
                           at least 3 (distance2) or 2 (distance1) strong hops apart; distance1
                           makes aggregates of a root and its neighbours, about 4 nodes on 2D
                           triangles against 10: fewer iterations, more levels and denser
                           coarse operators (too dense in 3D)
    prolongator: full      (string, default full) full | filtered: the matrix of the Jacobi
                           step that smooths the aggregates' prolongator: A, or A's strong
                           couplings with the weak ones added to the diagonal (row sums kept),
                           so that a strength_threshold above the default drops couplings from
                           the coarse operators instead of filling them
    gather_rows: 200000    (integer > 0, default 200000) under mpirun: the levels below the
                           first with at most this many rows in all are gathered onto every
                           rank and set up and cycled there as on one process (a redundant
                           coarse solve: no messages inside it); the levels above stay split
                           among the ranks, each aggregating its own rows
    precision: double      (string, default double) double | float: with precision: double,
                           float stores the hierarchy (a float copy of the fine matrix, the
                           coarse levels, transfers and smoothers) and runs its cycle in single
                           precision inside the double Krylov method: half the bytes per cycle,
                           the solution still to the double tolerance (amg and pmg from an
                           assembled format, or pmg with pa or lma from the operator's float
                           copy; on one process)
    pa_coarse: factors     (string, default factors) factors | assembled: pmg on pa at degrees
                           4, 6, 7 and 8, its first lower degree (2, 3, 3, 4) applied by sum
                           factorisation from the operator's own quadrature-point factors (its
                           coarse Dirichlet nodes held at zero; no setup beyond its diagonal),
                           or assembled as the element Galerkin product in CSR (more setup and
                           memory; cheaper cycles where a sparse product costs less than the
                           contractions, as on a few CPU cores; degree 7 then goes straight to
                           degree 1)
    through_degree_two: false (boolean, default false) pmg on triangles and tetrahedra of degree
                           3: a level of degree 2 between 3 and 1 (each edge midpoint's unknown
                           named by one of the two edge nodes beside it): on unstructured
                           tetrahedra about 40% fewer iterations (13-14 against 22), a setup
                           about twice as long and cycles a third dearer, so about the same
                           time to the tolerance on a CPU; on triangles little or no gain
)REF";
}

/// `precision`, `backend`, `output`, the overrides and an example.
std::string run_settings_reference()
{
    return R"REF(
precision: double          (string, default double) double | float: value type of the matrix,
                           vectors and solver

backend: auto              (string, default auto) auto | cpu | cuda: auto uses CUDA when a
                           device is present, else the CPU

output:                    (map) what the run writes besides report.json and spmv_timings.csv
  compression: lz4         (string, default lz4) lz4 | zlib | none: compression of result.vtu
                           (lz4: fast; zlib: smaller, several times slower; none: raw)
  write: true              (boolean, default true) false: no result.vtu (benchmarks, timing
                           runs); report.json and spmv_timings.csv are still written
  fluxes: auto             (auto | true | false, default auto: as write) the flux -kappa grad u
                           (flux_x, flux_y, flux_z in result.vtu: each cell's mean, and at the
                           nodes the mean of their cells' values, weighted by |det J| there;
                           finite volumes: the cells' gradients, volume-weighted at the nodes),
                           the flux out through each boundary group with a condition (Dirichlet
                           groups: the residual of the unconstrained system at their nodes), each
                           region's integrals of u, f, c u and b . grad u, and the balance of the
                           boundary fluxes against the source, in report.json ("fluxes") and the
                           summary
  flux_precision: float    (string, default float) float | double: how result.vtu stores the
                           flux fields (Float32 or Float64; the solution u is always Float64,
                           the report's sums double). float halves the bytes the fluxes add
                           to the file (and those copied from the GPU: the fields are rounded
                           there); it keeps 7 digits, more than the fluxes' discretisation
                           error

Overrides: --set KEY=VALUE sets a value before validation, with a dotted key
(mesh.refine=3, solver.tolerance=1e-10, problem.dirichlet.left=0, "problem.f=sin(x)");
VALUE is read as YAML, maps on the way are created, and errors in an overridden value
name the override instead of a line. Mesh paths set this way are relative to the case
file's folder too. To switch the mesh source, replace the whole map:
--set "mesh={file: other.msh}".

Example:
  mesh: {shape: unit_square, elements: quadrilateral, size: 0.05}
  problem:
    f: "2*pi^2*sin(pi*x)*sin(pi*y)"
    exact: "sin(pi*x)*sin(pi*y)"
    dirichlet: {boundary: 0}
  solver: {tolerance: 1e-10}
)REF";
}

}  // namespace

std::string case_file_reference()
{
    return reference_introduction() + mesh_reference() + matrix_reference() + problem_reference() +
           discretisation_reference() + format_reference() + solver_reference() + preconditioner_reference() +
           solver_settings_reference() + run_settings_reference();
}

}  // namespace gpufem
