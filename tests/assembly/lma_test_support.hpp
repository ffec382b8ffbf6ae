#pragma once
// Shared by the LMA tests: one mesh's CSR system (the reference) and the LMA inputs on one
// executor, and the comparison of an LMA apply against the CSR SpMV.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "assembly/boundary_conditions.hpp"
#include "assembly/element_data.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/lma_operator.hpp"
#include "assembly/poisson_assembly.hpp"
#include "high_order_meshes.hpp"
#include "linalg/format_build.hpp"

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

    const ReferenceElement ref = make_reference_element(
        mesh.cell_type, mesh.order, assembly_quadrature_degree(mesh.cell_type, mesh.order));
    const auto data = make_element_data<V>(exec, mesh, ref, Expression(problem.kappa),
                                           Expression(problem.f));
    const std::size_t cells = mesh.num_cells();
    p.ke = Array<V>(exec, cells * p.npe * p.npe);
    Array<V> fe(exec, cells * p.npe);
    if (exec->is_cuda()) kernels::cuda::element_matrices(*exec, data, p.ke.data(), fe.data());
    else kernels::cpu::element_matrices(*exec, data, p.ke.data(), fe.data());
    if (dirichlet) p.mask = Array<std::uint8_t>::from_host(exec, dirichlet_nodes(mesh, problem.dirichlet).mask);
    exec->synchronize();
    return p;
}

template <typename V>
std::vector<V> random_vector(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<V> v(n);
    for (V& value : v) value = static_cast<V>(dist(rng));
    return v;
}

/// max |a - b| / max |b|
template <typename V>
double max_rel_diff(const std::vector<V>& a, const std::vector<V>& b)
{
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, std::abs(double(a[i]) - double(b[i])));
        scale = std::max(scale, std::abs(double(b[i])));
    }
    return diff / std::max(scale, 1e-300);
}

/// Applies op and the reference with the same alpha, x, beta, y (beta == 0: y full of NaN)
/// and expects the results to agree to rounding.
template <typename V>
void expect_same_apply(const LinearOperator<V>& op, const LinearOperator<V>& reference, V alpha,
                       V beta, unsigned seed, const std::string& what)
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
    const double tol = sizeof(V) == 4 ? 2e-5 : 1e-12;
    EXPECT_LT(max_rel_diff(got, expect), tol) << what;
}

/// Every LMA variant (scatter atomic/colour, symmetric no/yes) against the CSR SpMV for every
/// type and order, with and without Dirichlet nodes, on exec.
template <typename V>
void check_lma_against_csr(const ExecPtr& exec)
{
    unsigned seed = 1;
    for (ElementType type : lma_types)
        for (int order = 1; order <= lma_max_order(type); ++order) {
            const Mesh mesh = lma_mesh(type, order);
            for (bool dirichlet : {false, true}) {
                const LmaProblem<V> p = make_lma_problem<V>(exec, mesh, dirichlet);
                for (LmaScatter scatter : {LmaScatter::atomic, LmaScatter::colour})
                    for (bool symmetric : {false, true}) {
                        const auto op = make_lma_operator<V>(exec, p.cells, p.npe, p.num_nodes,
                                                             p.ke, p.mask, {scatter, symmetric});
                        const std::string what = std::string(element_type_name(type)) +
                                                 " order " + std::to_string(order) +
                                                 (dirichlet ? " dirichlet " : " ") + op->parameters();
                        expect_same_apply<V>(*op, *p.csr, V(1.3), V(-0.7), seed++, what);
                        expect_same_apply<V>(*op, *p.csr, V(1), V(0), seed++, what + " beta=0");
                    }
            }
        }
}

}  // namespace gpufem::test
