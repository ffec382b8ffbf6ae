#pragma once
// Shared by the partial-assembly tests: the pa system of a box mesh against the assembled CSR
// system of the same problem (right-hand side, initial guess, diagonal, and the operator
// applied to fresh random vectors), on one executor.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "assembly/pa_system.hpp"
#include "assembly/pmg_coarse_operators.hpp"
#include "assembly/poisson_assembly.hpp"
#include "high_order_meshes.hpp"
#include "lma_test_support.hpp"
#include "linalg/format_build.hpp"
#include "random_values.hpp"

namespace gpufem::test {

/// The coefficient sets the tests run: a scalar kappa alone; an anisotropic kappa with a
/// variable convection field and a reaction term (non-symmetric operator); a scalar kappa with
/// a Robin group beside a Dirichlet one (facets with fixed and free nodes).
enum class PaTerms { diffusion, all, robin };

/// A problem on the unit box with non-zero Dirichlet data on two groups and a Neumann load on
/// a third; with PaTerms::all also a tensor kappa, b and c varying in space; with
/// PaTerms::robin a Robin condition on the top side (varying h and u_inf).
inline ProblemSpec pa_problem(int dim, PaTerms terms)
{
    ProblemSpec problem;
    problem.kappa = "1 + x*y";
    problem.f = "1 + x - 2*y";
    problem.dirichlet = {{"left", "1 + x + y"}, {"bottom", "2 - x"}};
    problem.neumann = {{"right", "1 + y"}};
    if (terms == PaTerms::all) {
        problem.kappa_tensor = dim == 2 ? std::vector<std::string>{"2 + x", "0.3*y", "1 + y"}
                                        : std::vector<std::string>{"2 + x", "0.3*y", "0.1", "1 + y", "0.2*x", "1.5"};
        problem.convection_field = dim == 2 ? std::vector<std::string>{"1 + y", "-0.5*x"}
                                            : std::vector<std::string>{"1 + y", "-0.5*x", "0.25*z"};
        problem.reaction = "0.5 + x*x";
    }
    if (terms == PaTerms::robin) problem.robin = {{"top", "2 + x", "1 - y"}};
    return problem;
}

/// The highest order the tests run (GLL nodes from order 5).
inline constexpr int pa_highest_order = 8;

/// The unit box of this type and order (element size h; 0: 0.25 in 2D, 0.5 in 3D, one cell
/// in 3D from order 6, whose assembled element matrices have 343^2 to 729^2 entries), its
/// nodes moved by a multilinear map and, when curved, jittered (cells with curved sides from
/// order 2).
inline Mesh pa_mesh(ElementType type, int order, bool curved, unsigned seed, double h = 0)
{
    if (h <= 0) h = element_dimension(type) == 2 ? 0.25 : order >= 6 ? 1.0 : 0.5;
    Mesh mesh = unit_box_mesh(type, order, h);
    map_multilinearly(mesh);
    if (curved) jitter_nodes(mesh, 0.02 / order, seed);
    return mesh;
}

/// assemble_pa_system against assemble_poisson on exec for quadrilaterals and hexahedra of
/// orders 1..8, straight and curved: same rhs and initial guess to rounding, same Dirichlet
/// count, the diagonal equal to the eliminated matrix's, and y = alpha A x + beta y equal to
/// the CSR SpMV's for random x and y.
template <typename V>
void check_pa_system_against_assembly(const ExecPtr& exec, PaTerms terms)
{
    const unsigned seed = random_seed();
    unsigned next = seed;
    const double tol = sizeof(V) == 4 ? 2e-5 : 1e-12;
    for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron})
        for (int order = 1; order <= pa_highest_order; ++order)
            for (bool curved : {false, true}) {
                const Mesh mesh = pa_mesh(type, order, curved, next++);
                const ProblemSpec problem = pa_problem(mesh.dim, terms);
                const LinearSystem<V> assembled = assemble_poisson<V>(exec, mesh, problem);
                const auto csr = build_format("csr", assembled.matrix.clone_to(exec), FormatOptions{}).op;
                const PaSystem<V> pa = assemble_pa_system<V>(exec, mesh, problem);
                const std::string what = std::string(element_type_name(type)) + " order " + std::to_string(order) +
                                         (curved ? " curved " : " ") + pa.op->parameters() + " seed " +
                                         std::to_string(seed);
                EXPECT_LT(max_rel_diff(pa.rhs.to_host(), assembled.rhs.to_host()), tol) << what;
                EXPECT_EQ(pa.initial_guess.to_host(), assembled.initial_guess.to_host()) << what;
                EXPECT_EQ(pa.dirichlet_count, assembled.dirichlet_count) << what;
                EXPECT_GT(pa.dirichlet_count, 0) << what;
                EXPECT_LT(max_rel_diff(pa.op->diagonal().to_host(), csr->diagonal().to_host()), tol) << what;
                expect_same_apply<V>(*pa.op, *csr, V(1.3), V(-0.7), next++, what);
                expect_same_apply<V>(*pa.op, *csr, V(1), V(0), next++, what + " beta=0");
            }
}

}  // namespace gpufem::test

namespace gpufem::test {

/// p-multigrid's coarse operators computed from a pa operator's factors on exec against those
/// from element matrices made for them (pmg_coarse_operators without a fine operator) on the
/// CPU, for
/// quadrilaterals and hexahedra of orders 1..8 (order 1: the coarser grid), with the problem's
/// terms: the same patterns and values to rounding.
template <typename V>
void check_pa_coarse_operators(const ExecPtr& exec, PaTerms terms)
{
    const unsigned seed = random_seed();
    const double tol = sizeof(V) == 4 ? 2e-5 : 1e-12;
    for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron})
        for (int order = 1; order <= pa_highest_order; ++order) {
            // Order 1 coarsens the grid, which needs at least 4 boxes a direction; hexahedra of
            // orders 6 and 8 in 8 cells, so that two of them have no Dirichlet node (the sum-
            // factorised coarse operator's cells) beside six that have.
            const bool eight_hexahedra = type == ElementType::hexahedron && (order == 6 || order == 8);
            const Mesh mesh = pa_mesh(type, order, order > 1, seed + order, order == 1 ? 0.25 : eight_hexahedra ? 0.5 : 0);
            const ProblemSpec problem = pa_problem(mesh.dim, terms);
            const PaSystem<V> pa = assemble_pa_system<V>(exec, mesh, problem);
            const std::vector<Csr<V>> from_factors = pmg_coarse_operators<V>(exec, mesh, problem, pa.op.get());
            // The reference on the CPU: on a GPU the element matrices' products (npe x ncl per
            // cell in shared memory) stop at hexahedra of degree 5.
            const std::vector<Csr<V>> reference = pmg_coarse_operators<V>(Executor::create_cpu(), mesh, problem);
            const std::string what = std::string(element_type_name(type)) + " order " + std::to_string(order) +
                                     " seed " + std::to_string(seed);
            ASSERT_EQ(from_factors.size(), reference.size()) << what;
            EXPECT_FALSE(reference.empty()) << what;
            for (std::size_t level = 0; level < reference.size(); ++level) {
                EXPECT_EQ(from_factors[level].row_ptr.to_host(), reference[level].row_ptr.to_host()) << what;
                EXPECT_EQ(from_factors[level].col_idx.to_host(), reference[level].col_idx.to_host()) << what;
                EXPECT_LT(max_rel_diff(from_factors[level].values.to_host(), reference[level].values.to_host()), tol)
                    << what << " level " << level;
            }
        }
}

}  // namespace gpufem::test

namespace gpufem::test {

/// The float copy of a double pa operator (a float multigrid cycle's fine level) on exec, for
/// quadrilaterals and hexahedra of orders 1..8 with every set of terms: the same format and
/// size, its diagonal the double one rounded, its product the double one's to float's rounding.
inline void check_pa_float_copy(const ExecPtr& exec)
{
    const unsigned seed = random_seed();
    unsigned next = seed;
    for (PaTerms terms : {PaTerms::diffusion, PaTerms::all, PaTerms::robin})
        for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron})
            for (int order = 1; order <= pa_highest_order; ++order) {
                const Mesh mesh = pa_mesh(type, order, true, next++);
                const PaSystem<double> pa = assemble_pa_system<double>(exec, mesh, pa_problem(mesh.dim, terms));
                const std::string what = std::string(element_type_name(type)) + " order " + std::to_string(order) +
                                         " terms " + std::to_string(static_cast<int>(terms)) + " seed " +
                                         std::to_string(seed);
                expect_float_copy(*pa.op, next++, what);
            }
}

}  // namespace gpufem::test
