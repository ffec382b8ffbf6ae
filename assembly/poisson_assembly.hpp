#pragma once
// Assembly of -div(kappa grad u) = f with Dirichlet and Neumann conditions into a CSR system
// on one executor (pattern, values and boundary elimination all on that executor).
#include <optional>

#include "assembly/element_data.hpp"
#include "assembly/problem_spec.hpp"
#include "linalg/csr.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// Wall-clock seconds of the assembly phases (each ends with a device synchronisation).
struct AssemblyTimes {
    double geometry = 0;      ///< the mesh (coordinates, cells) and reference tables on the
                              ///< executor, and the mesh check
    double coefficients = 0;  ///< kappa and f evaluated at the quadrature points on the executor
    double pattern = 0;       ///< sparsity pattern and cell-to-CSR map
    double values = 0;        ///< element kernels scattered into CSR and rhs
    double boundary = 0;      ///< Neumann load, Dirichlet values and elimination
    double total() const { return geometry + coefficients + pattern + values + boundary; }
};

/// The row offsets an assembled matrix gets.
enum class CsrOffsets {
    fit,   ///< 32-bit while its entries fit them, 64-bit past 2^31 - 1 (LinearSystem::wide_matrix)
    wide,  ///< 64-bit at any size (format_options.csr.offsets: 64)
};

/// The assembled system A u = b with Dirichlet rows eliminated symmetrically.
template <typename V>
struct LinearSystem {
    Csr<V> matrix;  ///< the matrix with 32-bit offsets; empty (0 x 0) when wide_matrix holds it
    /// The matrix with 64-bit row offsets: past 2^31 - 1 entries, or when asked for
    /// (CsrOffsets::wide); only formats that take one are built from it.
    std::optional<WideCsr<V>> wide_matrix;
    Array<V> rhs;
    Array<V> initial_guess;  ///< Dirichlet values on constrained nodes, 0 elsewhere
    index_type dirichlet_count = 0;
    AssemblyTimes times;
};

/// The geometry of the mesh on exec with the reference tables of assembly_quadrature_degree
/// (make_geometry_data) and checked (check_mesh_geometry), timed into times.geometry; then
/// kappa and f evaluated into it (add_coefficients), timed into times.coefficients.
template <typename V>
ElementData<V> timed_problem_element_data(const ExecPtr& exec, const Mesh& mesh,
                                          const ProblemSpec& problem, AssemblyTimes& times);

/// The same with the reference element given (assembly_reference_element of the mesh). Without
/// check_signs only the coordinates are checked (check_mesh_coordinates): the caller checks
/// det J itself (check_jacobian_signs), as pa does with its point factors.
template <typename V>
ElementData<V> timed_problem_element_data(const ExecPtr& exec, const Mesh& mesh, const ReferenceElement& ref,
                                          const ProblemSpec& problem, AssemblyTimes& times, bool check_signs = true);

/// The reference element the assembly tabulates for the mesh's cells: their type and order at
/// assembly_quadrature_degree.
ReferenceElement assembly_reference_element(const Mesh& mesh);

/// Quadrature degree the stiffness and load use for cells of this type and Lagrange order k:
/// 2k on simplices (exact for the stiffness of straight-sided cells with kappa of degree <= 2
/// and for the load with f of degree <= k), 2k+1 on boxes (k+1 Gauss points per direction:
/// exact for the stiffness and load of parallelogram/parallelepiped cells with constant
/// coefficients; the standard rule for mapped and curved cells, whose integrands are
/// rational). Curved (isoparametric) cells are never integrated exactly; these rules keep the
/// optimal rates.
int assembly_quadrature_degree(ElementType type, int order);

/// The element data of the problem on the mesh, on exec: the reference element of the
/// assembly quadrature, kappa and f at its points, the convection velocity. What both the
/// assembled path and the LMA path feed to the element kernels.
template <typename V>
ElementData<V> make_problem_element_data(const ExecPtr& exec, const Mesh& mesh,
                                         const ProblemSpec& problem);

/// Assembles the problem on exec with Lagrange elements of the mesh's order (mesh.degree:
/// isoparametric, the cells' high-order nodes define the geometry). Throws naming the problem
/// key on bad coefficients or unknown physical groups.
/// offsets: CsrOffsets::fit gives LinearSystem::matrix while the pattern's entries fit 32-bit
/// offsets and wide_matrix past them (counted once, in the pattern); wide always wide_matrix.
template <typename V>
LinearSystem<V> assemble_poisson(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                                 CsrOffsets offsets = CsrOffsets::fit);

/// system's matrix with 64-bit row offsets (a copy of the 32-bit one's offsets widened, on its
/// executor; the columns and values moved): for discretisations that assemble 32-bit
/// offsets only, when 64-bit ones are asked for. Nothing when it has them already.
template <typename V>
void widen_offsets(LinearSystem<V>& system);

}  // namespace gpufem
