#pragma once
// Shared by the LMA tests: one mesh's CSR system (the reference) and the LMA inputs on one
// executor, and the comparison of an LMA apply against the CSR SpMV.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "assembly/boundary_conditions.hpp"
#include "assembly/element_data.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/lma_operator.hpp"
#include "assembly/lma_system.hpp"
#include "assembly/poisson_assembly.hpp"
#include "high_order_meshes.hpp"
#include "linalg/float_copy.hpp"
#include "linalg/format_build.hpp"
#include "random_values.hpp"

namespace gpufem::test {

constexpr ElementType lma_types[] = {ElementType::triangle, ElementType::quadrilateral,
                                     ElementType::tetrahedron, ElementType::hexahedron};

/// Highest order tested per type (3D stops at 3 for speed).
inline int lma_max_order(ElementType type) { return element_dimension(type) == 2 ? 4 : 3; }

/// A small Gmsh mesh of the unit square / cube of this type and order.
inline Mesh lma_mesh(ElementType type, int order)
{
    return unit_box_mesh(type, order, element_dimension(type) == 2 ? 0.25 : 0.5);
}

/// The assembled CSR operator of -div((1 + x y) grad u) = 1 (with u = 0 on the boundary
/// eliminated when dirichlet) and what make_lma_operator needs, all on exec.
template <typename V>
struct LmaProblem {
    std::unique_ptr<LinearOperator<V>> csr;
    Array<index_type> cells;
    Array<V> ke;
    Array<std::uint8_t> mask;  ///< empty without Dirichlet
    int npe = 0;
    index_type num_nodes = 0;
};

template <typename V>
LmaProblem<V> make_lma_problem(const ExecPtr& exec, const Mesh& mesh, bool dirichlet)
{
    ProblemSpec problem;
    problem.kappa = "1 + x*y";
    problem.f = "1";
    if (dirichlet) problem.dirichlet = {{"boundary", "0"}};
    LmaProblem<V> p;
    p.csr = build_format("csr", assemble_poisson<V>(exec, mesh, problem).matrix, FormatOptions{}).op;
    p.npe = mesh.nodes_per_cell;
    p.num_nodes = mesh.num_nodes();
    p.cells = Array<index_type>::from_host(exec, mesh.cells);

    const auto data = make_problem_element_data<V>(exec, mesh, problem);
    const std::size_t cells = mesh.num_cells();
    p.ke = Array<V>(exec, cells * p.npe * p.npe);
    Array<V> fe(exec, cells * p.npe);
    if (exec->is_cuda()) kernels::cuda::element_matrices(*exec, data, p.ke.data(), fe.data());
    else kernels::cpu::element_matrices(*exec, data, p.ke.data(), fe.data());
    if (dirichlet) p.mask = Array<std::uint8_t>::from_host(exec, dirichlet_nodes(mesh, problem.dirichlet).mask);
    exec->synchronize();
    return p;
}

/// Applies op and the reference with the same alpha, x, beta, y (beta == 0: y full of NaN)
/// and expects the results to agree to rounding (float: float_tol, relative).
template <typename V>
void expect_same_apply(const LinearOperator<V>& op, const LinearOperator<V>& reference, V alpha,
                       V beta, unsigned seed, const std::string& what, double float_tol = 2e-5)
{
    const ExecPtr& exec = op.executor();
    const std::size_t n = op.rows();
    const Array<V> x = Array<V>::from_host(exec, random_vector<V>(n, seed));
    std::vector<V> y0 = random_vector<V>(n, seed + 1);
    if (beta == V(0)) y0.assign(n, std::numeric_limits<V>::quiet_NaN());
    Array<V> y = Array<V>::from_host(exec, y0), y_ref = Array<V>::from_host(exec, y0);
    op.apply(alpha, x, beta, y);
    reference.apply(alpha, x, beta, y_ref);
    const std::vector<V> got = y.to_host(), expect = y_ref.to_host();
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(std::isfinite(double(got[i]))) << what << " row " << i;
    const double tol = sizeof(V) == 4 ? float_tol : 1e-12;
    EXPECT_LT(max_rel_diff(got, expect), tol) << what;
}

/// op's float copy (float_copy_of, a float multigrid cycle's fine level) against op: the same
/// format, size and executor, its diagonal op's rounded, its product op's to float's rounding
/// for a random x (seed).
inline void expect_float_copy(const LinearOperator<double>& op, unsigned seed, const std::string& what)
{
    const std::unique_ptr<LinearOperator<float>> copy = float_copy_of(op);
    ASSERT_TRUE(copy) << what;
    EXPECT_EQ(copy->format(), op.format()) << what;
    ASSERT_EQ(copy->rows(), op.rows()) << what;
    EXPECT_EQ(copy->executor(), op.executor()) << what;
    const std::vector<double> diagonal = op.diagonal().to_host();
    EXPECT_EQ(copy->diagonal().to_host(), std::vector<float>(diagonal.begin(), diagonal.end())) << what;
    const ExecPtr& exec = op.executor();
    const std::vector<double> x = random_vector<double>(op.rows(), seed);
    Array<double> y(exec, x.size());
    op.apply(Array<double>::from_host(exec, x), y);
    Array<float> y_float(exec, x.size());
    copy->apply(Array<float>::from_host(exec, std::vector<float>(x.begin(), x.end())), y_float);
    const std::vector<float> got = y_float.to_host();
    EXPECT_LT(max_rel_diff(std::vector<double>(got.begin(), got.end()), y.to_host()), 2e-5) << what;
}

/// check_lma_against_csr's operators in double (every type, order, scatter, storage and the
/// given kernels, with and without Dirichlet nodes) give float copies that apply as they do.
inline void check_lma_float_copies(const ExecPtr& exec, std::span<const LmaKernel> kernels)
{
    const unsigned seed = random_seed();
    unsigned next = seed;
    for (ElementType type : lma_types)
        for (int order = 1; order <= lma_max_order(type); ++order)
            for (bool dirichlet : {false, true}) {
                const LmaProblem<double> p = make_lma_problem<double>(exec, lma_mesh(type, order), dirichlet);
                for (LmaKernel kernel : kernels)
                    for (LmaScatter scatter : {LmaScatter::atomic, LmaScatter::colour})
                        for (bool symmetric : {false, true}) {
                            const auto op = make_lma_operator<double>(exec, p.cells, p.npe, p.num_nodes, p.ke, p.mask,
                                                                      {scatter, symmetric, kernel});
                            expect_float_copy(*op, next++,
                                              std::string(element_type_name(type)) + " order " +
                                                  std::to_string(order) + (dirichlet ? " dirichlet " : " ") +
                                                  op->parameters() + " seed " + std::to_string(seed));
                        }
            }
}

/// The apply kernels a GPU test covers: every one (auto resolves to one of them).
inline constexpr LmaKernel lma_kernels[] = {LmaKernel::cell, LmaKernel::tile, LmaKernel::twin};

/// Every LMA variant (scatter atomic/colour, symmetric no/yes, each kernel given) against the
/// CSR SpMV for every type and order, with and without Dirichlet nodes, on exec.
template <typename V>
void check_lma_against_csr(const ExecPtr& exec, std::span<const LmaKernel> kernels)
{
    unsigned seed = 1;
    for (ElementType type : lma_types)
        for (int order = 1; order <= lma_max_order(type); ++order) {
            const Mesh mesh = lma_mesh(type, order);
            for (bool dirichlet : {false, true}) {
                const LmaProblem<V> p = make_lma_problem<V>(exec, mesh, dirichlet);
                for (LmaKernel kernel : kernels)
                    for (LmaScatter scatter : {LmaScatter::atomic, LmaScatter::colour})
                        for (bool symmetric : {false, true}) {
                            const auto op = make_lma_operator<V>(exec, p.cells, p.npe, p.num_nodes,
                                                                 p.ke, p.mask,
                                                                 {scatter, symmetric, kernel});
                            const std::string what = std::string(element_type_name(type)) +
                                                     " order " + std::to_string(order) +
                                                     (dirichlet ? " dirichlet " : " ") +
                                                     op->parameters();
                            expect_same_apply<V>(*op, *p.csr, V(1.3), V(-0.7), seed++, what);
                            expect_same_apply<V>(*op, *p.csr, V(1), V(0), seed++, what + " beta=0");
                        }
            }
        }
}

/// Random element matrices for the cells of mesh (cell-major, row-major per cell), symmetric
/// or not, entries in [-1, 1].
template <typename V>
std::vector<V> random_element_matrices(const Mesh& mesh, bool symmetric, unsigned seed)
{
    const std::size_t npe = mesh.nodes_per_cell;
    std::vector<V> ke = random_vector<V>(mesh.num_cells() * npe * npe, seed);
    if (symmetric)
        for (std::size_t e = 0; e < mesh.num_cells(); ++e)
            for (std::size_t i = 0; i < npe; ++i)
                for (std::size_t j = 0; j < i; ++j)
                    ke[(e * npe + i) * npe + j] = ke[(e * npe + j) * npe + i];
    return ke;
}

/// A Dirichlet mask with about a quarter of the nodes set (random).
inline std::vector<std::uint8_t> random_mask(index_type num_nodes, unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> mask(num_nodes);
    for (auto& m : mask) m = rng() % 4 == 0;
    return mask;
}

/// Every kernel on exec against the CPU operator (the oracle) on random element matrices
/// (non-symmetric with full storage), a random Dirichlet mask, random x and y, both scatters:
/// for this mesh.
template <typename V>
void check_lma_random_against_cpu(const ExecPtr& exec, const Mesh& mesh,
                                  std::span<const LmaKernel> kernels, unsigned seed)
{
    const ExecPtr cpu = Executor::create_cpu();
    const int npe = mesh.nodes_per_cell;
    const index_type n = mesh.num_nodes();
    for (bool symmetric : {false, true}) {
        const std::vector<V> ke = random_element_matrices<V>(mesh, symmetric, seed++);
        const std::vector<std::uint8_t> mask = random_mask(n, seed++);
        const auto cells_cpu = Array<index_type>::from_host(cpu, mesh.cells);
        const auto cells_dev = Array<index_type>::from_host(exec, mesh.cells);
        const auto ke_cpu = Array<V>::from_host(cpu, ke);
        const auto ke_dev = Array<V>::from_host(exec, ke);
        const auto mask_cpu = Array<std::uint8_t>::from_host(cpu, mask);
        const auto mask_dev = Array<std::uint8_t>::from_host(exec, mask);
        const auto reference = make_lma_operator<V>(cpu, cells_cpu, npe, n, ke_cpu, mask_cpu,
                                                    {LmaScatter::atomic, symmetric});
        const std::vector<V> x = random_vector<V>(n, seed++), y0 = random_vector<V>(n, seed++);
        Array<V> y_ref = Array<V>::from_host(cpu, y0);
        reference->apply(V(0.9), Array<V>::from_host(cpu, x), V(-1.1), y_ref);
        const std::vector<V> expect = y_ref.to_host();
        for (LmaKernel kernel : kernels)
            for (LmaScatter scatter : {LmaScatter::atomic, LmaScatter::colour}) {
                const auto op = make_lma_operator<V>(exec, cells_dev, npe, n, ke_dev, mask_dev,
                                                     {scatter, symmetric, kernel});
                Array<V> y = Array<V>::from_host(exec, y0);
                op->apply(V(0.9), Array<V>::from_host(exec, x), V(-1.1), y);
                const std::string what = std::string(element_type_name(mesh.cell_type)) +
                                         " order " + std::to_string(mesh.degree) + " cells " +
                                         std::to_string(mesh.num_cells()) + " " + op->parameters();
                EXPECT_LT(max_rel_diff(y.to_host(), expect), sizeof(V) == 4 ? 1e-4 : 1e-12) << what;
                EXPECT_LT(max_rel_diff(op->diagonal().to_host(), reference->diagonal().to_host()),
                          sizeof(V) == 4 ? 1e-5 : 1e-13)
                    << what << " diagonal";
            }
    }
}

/// The problem of the LMA system tests: variable kappa and f, Dirichlet on two groups
/// (non-zero values, shared corner nodes), Neumann on a third, Robin on a fourth (its matrix
/// in the element matrices of the cells along it).
inline ProblemSpec lma_system_problem()
{
    ProblemSpec problem;
    problem.kappa = "1 + x*y";
    problem.f = "1 + x - 2*y";
    problem.dirichlet = {{"left", "1 + x + y"}, {"bottom", "2 - x"}};
    problem.neumann = {{"right", "1 + y"}};
    problem.robin = {{"top", "2 + x", "1 - y"}};
    return problem;
}

/// assemble_lma_system against assemble_poisson on exec for every type and order (and, when
/// convection is given, with that term and full storage): same rhs and initial guess to
/// rounding, same Dirichlet count, the operator equal to the eliminated CSR matrix.
template <typename V>
void check_lma_system_against_assembly(const ExecPtr& exec, const std::vector<double>& convection = {})
{
    unsigned seed = 100;
    ProblemSpec problem = lma_system_problem();
    for (ElementType type : lma_types)
        for (int order = 1; order <= lma_max_order(type); ++order) {
            const Mesh mesh = lma_mesh(type, order);
            problem.convection = convection;
            if (!convection.empty()) problem.convection.resize(mesh.dim);
            const LinearSystem<V> assembled = assemble_poisson<V>(exec, mesh, problem);
            const auto csr = build_format("csr", assembled.matrix.clone_to(exec), FormatOptions{}).op;
            for (bool colour : {false, true})
                for (bool symmetric : {false, true}) {
                    if (symmetric && !convection.empty()) continue;
                    LmaOptions options;
                    options.scatter = colour ? LmaScatter::colour : LmaScatter::atomic;
                    options.symmetric = symmetric;
                    const LmaSystem<V> lma = assemble_lma_system<V>(exec, mesh, problem, options);
                    const std::string what = std::string(element_type_name(type)) + " order " +
                                             std::to_string(order) + " " +
                                             lma.format.op->parameters();
                    const double tol = sizeof(V) == 4 ? 2e-5 : 1e-12;
                    EXPECT_LT(max_rel_diff(lma.rhs.to_host(), assembled.rhs.to_host()), tol) << what;
                    EXPECT_EQ(lma.initial_guess.to_host(), assembled.initial_guess.to_host()) << what;
                    EXPECT_EQ(lma.dirichlet_count, assembled.dirichlet_count) << what;
                    EXPECT_GT(lma.dirichlet_count, 0) << what;
                    EXPECT_TRUE(lma.format.permutation.empty()) << what;
                    EXPECT_EQ(lma.format.op->diagonal().size(), static_cast<std::size_t>(mesh.num_nodes()));
                    expect_same_apply<V>(*lma.format.op, *csr, V(1), V(0), seed++, what + " operator");
                }
        }
}

}  // namespace gpufem::test
