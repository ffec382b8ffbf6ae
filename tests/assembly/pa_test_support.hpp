#pragma once
// Shared by the partial-assembly tests: the pa system of a box mesh against the assembled CSR
// system of the same problem (right-hand side, initial guess, diagonal, and the operator
// applied to fresh random vectors), on one executor.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "assembly/lagrange_interpolation.hpp"
#include "assembly/pa_system.hpp"
#include "assembly/pa_transfer.hpp"
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

/// The tests' element size: 0.25 in 2D, 0.5 in 3D, one cell in 3D from order 6.
inline double pa_mesh_size(ElementType type, int order)
{
    return element_dimension(type) == 2 ? 0.25 : order >= 6 ? 1.0 : 0.5;
}

/// The element size of the coarse-operator checks: order 1 coarsens the grid, which needs at
/// least 4 boxes a direction; hexahedra of orders 6 and 8 in 8 cells, so that two of them have
/// no Dirichlet node (the sum-factorised coarse operator's cells) beside six that have.
inline double pa_coarse_check_size(ElementType type, int order)
{
    if (order == 1) return 0.25;
    return type == ElementType::hexahedron && (order == 6 || order == 8) ? 0.5 : pa_mesh_size(type, order);
}

/// The unit box of this type and order (element size h; 0: 0.25 in 2D, 0.5 in 3D, one cell
/// in 3D from order 6, whose assembled element matrices have 343^2 to 729^2 entries), its
/// nodes moved by a multilinear map and, when curved, jittered (cells with curved sides from
/// order 2).
inline Mesh pa_mesh(ElementType type, int order, bool curved, unsigned seed, double h = 0)
{
    if (h <= 0) h = pa_mesh_size(type, order);
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
                expect_same_apply<V>(*pa.op, *csr, V(1.3), V(-0.7), next++, what, tol);
                expect_same_apply<V>(*pa.op, *csr, V(1), V(0), next++, what + " beta=0");
            }
}

}  // namespace gpufem::test

namespace gpufem::test {

/// The unit box of this type and order (sizes as pa_mesh), its nodes moved by one affine map
/// (a shear and a stretch): every cell stays a parallelogram or parallelepiped.
inline Mesh affine_pa_mesh(ElementType type, int order, double h = 0)
{
    if (h <= 0) h = pa_mesh_size(type, order);
    Mesh mesh = unit_box_mesh(type, order, h);
    for (index_type i = 0; i < mesh.num_nodes(); ++i) {
        double* x = &mesh.coordinates[3 * static_cast<std::size_t>(i)];
        const double x0 = x[0], y0 = x[1], z0 = x[2];
        x[0] = 1.5 * x0 + 0.3 * y0 + 0.1 * z0;
        x[1] = 0.8 * y0 - 0.2 * x0 + 0.2 * z0;
        if (mesh.dim == 3) x[2] = z0 + 0.25 * x0;
    }
    return mesh;
}

/// The problem of pa_problem with every coefficient of the operator constant (a tensor kappa,
/// with all: a constant convection and reaction); the load still varies.
inline ProblemSpec constant_pa_problem(int dim, bool all)
{
    ProblemSpec problem = pa_problem(dim, PaTerms::diffusion);
    problem.kappa = "2.5";
    if (!all) return problem;
    problem.kappa_tensor = dim == 2 ? std::vector<std::string>{"2", "0.3", "1.5"}
                                    : std::vector<std::string>{"2", "0.3", "0.1", "1.5", "0.2", "1.2"};
    problem.convection_field =
        dim == 2 ? std::vector<std::string>{"1", "-0.5"} : std::vector<std::string>{"1", "-0.5", "0.25"};
    problem.reaction = "0.5";
    return problem;
}

/// On affine meshes (affine_pa_mesh) with constant coefficients the pa operator keeps its
/// factors per cell ("per cell" in its parameters) and still equals the assembled system (rhs,
/// diagonal, products with random vectors) and gives pmg the coarse operators of the element
/// matrices (to 1e-12; float 2e-5, 5e-5 from order 7), for quadrilaterals and hexahedra of
/// orders 1..8 (in float from order 3 either way: its factors' rounding decides); with kappa
/// varying in space, or on the multilinearly mapped mesh, it keeps them per point.
template <typename V>
void check_pa_cell_factors(const ExecPtr& exec)
{
    const unsigned seed = random_seed();
    unsigned next = seed;
    for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron})
        for (int order = 1; order <= pa_highest_order; ++order)
            for (bool all : {false, true}) {
                // Float sums over up to 729 points a cell on the sheared boxes: the GPU's order
                // of summation gave 2.2e-5 on the diagonal and 2.4e-5 on a product at order 8.
                const double tol = sizeof(V) == 8 ? 1e-12 : order >= 7 ? 5e-5 : 2e-5;
                const Mesh mesh = affine_pa_mesh(type, order, pa_coarse_check_size(type, order));
                const ProblemSpec problem = constant_pa_problem(mesh.dim, all);
                const LinearSystem<V> assembled = assemble_poisson<V>(exec, mesh, problem);
                const auto csr = build_format("csr", assembled.matrix.clone_to(exec), FormatOptions{}).op;
                const PaSystem<V> pa = assemble_pa_system<V>(exec, mesh, problem);
                const std::string what = std::string(element_type_name(type)) + " order " + std::to_string(order) +
                                         " " + pa.op->parameters() + " seed " + std::to_string(seed);
                // In float the factors' own rounding at high degree can exceed the check's 1e-5.
                if (sizeof(V) == 8 || order <= 2)
                    EXPECT_NE(pa.op->parameters().find("per cell"), std::string::npos) << what;
                if (sizeof(V) == 8)  // a float cycle's copy keeps them per cell
                    EXPECT_NE(pa.op->float_copy()->parameters().find("per cell"), std::string::npos) << what;
                EXPECT_LT(max_rel_diff(pa.rhs.to_host(), assembled.rhs.to_host()), tol) << what;
                EXPECT_LT(max_rel_diff(pa.op->diagonal().to_host(), csr->diagonal().to_host()), tol) << what;
                expect_same_apply<V>(*pa.op, *csr, V(1.3), V(-0.7), next++, what, tol);
                const std::vector<Csr<V>> from_factors = pmg_coarse_operators<V>(exec, mesh, problem, pa.op.get());
                const std::vector<Csr<V>> reference = pmg_coarse_operators<V>(Executor::create_cpu(), mesh, problem);
                ASSERT_EQ(from_factors.size(), reference.size()) << what;
                for (std::size_t level = 0; level < reference.size(); ++level) {
                    EXPECT_EQ(from_factors[level].col_idx.to_host(), reference[level].col_idx.to_host()) << what;
                    EXPECT_LT(max_rel_diff(from_factors[level].values.to_host(), reference[level].values.to_host()), tol)
                        << what << " level " << level;
                }
                ProblemSpec varying = problem;
                varying.kappa_tensor.clear();
                varying.kappa = "1 + x*y";
                const PaSystem<V> per_point = assemble_pa_system<V>(exec, mesh, varying);
                EXPECT_NE(per_point.op->parameters().find("per point"), std::string::npos) << what;
                const PaSystem<V> mapped = assemble_pa_system<V>(exec, pa_mesh(type, order, false, next++), problem);
                EXPECT_NE(mapped.op->parameters().find("per point"), std::string::npos) << what;
            }
}

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
            const Mesh mesh = pa_mesh(type, order, order > 1, seed + order, pa_coarse_check_size(type, order));
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

/// y = alpha T x + beta y by op and by reference (a stored matrix's operator) for random x and
/// y (beta == 0: y full of NaN): the same to rounding.
template <typename V>
void expect_same_rectangular_apply(const LinearOperator<V>& op, const LinearOperator<V>& reference, V alpha, V beta,
                                   unsigned seed, const std::string& what)
{
    ASSERT_EQ(op.rows(), reference.rows()) << what;
    ASSERT_EQ(op.cols(), reference.cols()) << what;
    const ExecPtr& exec = op.executor();
    const Array<V> x = Array<V>::from_host(exec, random_vector<V>(op.cols(), seed));
    std::vector<V> y0 = random_vector<V>(op.rows(), seed + 1);
    if (beta == V(0)) y0.assign(y0.size(), std::numeric_limits<V>::quiet_NaN());
    Array<V> y = Array<V>::from_host(exec, y0), y_ref = Array<V>::from_host(exec, y0);
    op.apply(alpha, x, beta, y);
    reference.apply(alpha, x, beta, y_ref);
    const std::vector<V> got = y.to_host(), expect = y_ref.to_host();
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(std::isfinite(double(got[i]))) << what << " row " << i;
    EXPECT_LT(max_rel_diff(got, expect), sizeof(V) == 4 ? 2e-5 : 1e-12) << what;
}

/// The transpose of p (on p's executor), formed on the host.
template <typename V>
Csr<V> transposed(const Csr<V>& p)
{
    const std::vector<index_type> ptr = p.row_ptr.to_host(), col = p.col_idx.to_host();
    const std::vector<V> val = p.values.to_host();
    std::vector<index_type> tptr(static_cast<std::size_t>(p.cols) + 1, 0), tcol(col.size());
    std::vector<V> tval(val.size());
    for (const index_type c : col) ++tptr[c + 1];
    for (index_type c = 0; c < p.cols; ++c) tptr[c + 1] += tptr[c];
    std::vector<index_type> at(tptr.begin(), tptr.end() - 1);
    for (index_type r = 0; r < p.rows; ++r)  // rows ascending: each transposed row stays sorted
        for (index_type k = ptr[r]; k < ptr[r + 1]; ++k) {
            tcol[at[col[k]]] = r;
            tval[at[col[k]]++] = val[k];
        }
    const ExecPtr& exec = p.executor();
    return Csr<V>{p.cols, p.rows, Array<index_type>::from_host(exec, tptr), Array<index_type>::from_host(exec, tcol),
                  Array<V>::from_host(exec, tval)};
}

/// pa_first_transfer on exec against the stored lagrange_interpolation (and its transpose) to
/// the first lower degree, for quadrilaterals and hexahedra of orders 2..8 in several cells
/// (shared nodes: each must be written and read once), curved: the same products of random
/// vectors with and without beta.
template <typename V>
void check_pa_first_transfer(const ExecPtr& exec)
{
    const unsigned seed = random_seed();
    unsigned next = seed;
    for (ElementType type : {ElementType::quadrilateral, ElementType::hexahedron})
        for (int order = 2; order <= pa_highest_order; ++order) {
            const Mesh mesh = pa_mesh(type, order, true, next++, element_dimension(type) == 2 ? 0.25 : 0.5);
            const int coarse = pmg_coarse_degrees(order, true).front();  // as pa's pmg: 7 -> 3
            const std::optional<TransferOperators<V>> transfer = pa_first_transfer<V>(mesh, exec, coarse);
            ASSERT_TRUE(transfer) << element_type_name(type) << " order " << order;
            const Csr<V> p = lagrange_interpolation<V>(mesh, coarse, exec);
            const auto stored_p = build_format("csr", p.clone_to(exec), FormatOptions{}).op;
            const auto stored_r = build_format("csr", transposed(p), FormatOptions{}).op;
            const std::string what = std::string(element_type_name(type)) + " order " + std::to_string(order) + " " +
                                     transfer->prolongation->parameters() + " seed " + std::to_string(seed);
            expect_same_rectangular_apply<V>(*transfer->prolongation, *stored_p, V(1.3), V(-0.7), next++, what + " P");
            expect_same_rectangular_apply<V>(*transfer->prolongation, *stored_p, V(1), V(0), next++, what + " P beta=0");
            expect_same_rectangular_apply<V>(*transfer->restriction, *stored_r, V(0.6), V(1), next++, what + " R");
            expect_same_rectangular_apply<V>(*transfer->restriction, *stored_r, V(1), V(0), next++, what + " R beta=0");
            if constexpr (std::is_same_v<V, double>) {  // a float cycle's copies against the float matrices
                const Csr<float> pf = lagrange_interpolation<float>(mesh, coarse, exec);
                const auto stored_pf = build_format("csr", pf.clone_to(exec), FormatOptions{}).op;
                const auto stored_rf = build_format("csr", transposed(pf), FormatOptions{}).op;
                expect_same_rectangular_apply<float>(*float_copy_of(*transfer->prolongation), *stored_pf, 1.3f,
                                                     -0.7f, next++, what + " float copy of P");
                expect_same_rectangular_apply<float>(*float_copy_of(*transfer->restriction), *stored_rf, 0.6f, 1.0f,
                                                     next++, what + " float copy of R");
            }
        }
}

}  // namespace gpufem::test
