#pragma once
// Shared by the element-matrix tests: CPU element matrices of a mesh, matrix comparison, and
// exact integrals of monomials over the reference shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "assembly/element_data.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/poisson_assembly.hpp"

namespace gpufem::test {

/// The assembled patch test's residual A u - rhs (rhs empty: zero) at the nodes on no boundary
/// facet: the largest |(A u - rhs)_i| there, the largest |rhs_i| + sum_k |a_ik u_k| over all
/// rows, and how many interior nodes there are.
struct PatchResidual {
    double worst = 0, scale = 0;
    int interior = 0;
};

inline PatchResidual interior_residual(const Mesh& mesh, const Csr<double>& matrix, const std::vector<double>& u,
                                       const std::vector<double>& rhs = {})
{
    const auto ptr = matrix.row_ptr.to_host(), col = matrix.col_idx.to_host();
    const auto val = matrix.values.to_host();
    std::set<index_type> boundary;
    for (const BoundaryFacets& facets : mesh.boundaries)
        boundary.insert(facets.connectivity.begin(), facets.connectivity.end());
    PatchResidual r;
    for (index_type i = 0; i < mesh.num_nodes(); ++i) {
        double y = rhs.empty() ? 0.0 : -rhs[i], row_scale = rhs.empty() ? 0.0 : std::abs(rhs[i]);
        for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) {
            y += val[k] * u[col[k]];
            row_scale += std::abs(val[k] * u[col[k]]);
        }
        r.scale = std::max(r.scale, row_scale);
        if (boundary.count(i)) continue;
        ++r.interior;
        r.worst = std::max(r.worst, std::abs(y));
    }
    return r;
}

/// Element matrices (row-major per cell) and loads of every cell of a mesh.
struct ElementResult {
    std::vector<double> ke, fe;
};

/// The CPU element matrices and loads of the mesh's cells (order mesh.degree, the assembly's
/// quadrature) for -div(kappa grad u) + b . grad u = f (b = convection; empty: none).
inline ElementResult cpu_element(const Mesh& mesh, const std::string& kappa, const std::string& f,
                                 const std::vector<double>& convection = {})
{
    const auto exec = Executor::create_cpu();
    const ReferenceElement ref = make_reference_element(
        mesh.cell_type, mesh.degree, assembly_quadrature_degree(mesh.cell_type, mesh.degree));
    const auto data = make_element_data<double>(exec, mesh, ref, Expression(kappa), Expression(f),
                                                convection);
    const std::size_t n = mesh.nodes_per_cell;
    Array<double> ke(exec, n * n * mesh.num_cells()), fe(exec, n * mesh.num_cells());
    kernels::cpu::element_matrices(*exec, data, ke.data(), fe.data());
    return {ke.to_host(), fe.to_host()};
}

/// Expects got == expect * scale entry by entry (absolute tolerance tol).
inline void expect_matrix(const std::vector<double>& got, const std::vector<double>& expect,
                          double scale, const char* what, double tol = 1e-14)
{
    ASSERT_EQ(got.size(), expect.size());
    for (std::size_t k = 0; k < got.size(); ++k)
        EXPECT_NEAR(got[k], expect[k] * scale, tol) << what << " entry " << k;
}

/// Exact integral of x^a y^b z^c over Gmsh's reference shape (line and boxes [-1,1]^d,
/// simplices the unit simplex).
inline double reference_monomial_integral(ElementType type, int a, int b, int c)
{
    auto fact = [](int n) { double f = 1; for (int i = 2; i <= n; ++i) f *= i; return f; };
    auto line = [](int p) { return p % 2 ? 0.0 : 2.0 / (p + 1); };  // over [-1, 1]
    switch (type) {
    case ElementType::line: return line(a);
    case ElementType::quadrilateral: return line(a) * line(b);
    case ElementType::hexahedron: return line(a) * line(b) * line(c);
    case ElementType::triangle: return fact(a) * fact(b) / fact(a + b + 2);
    case ElementType::tetrahedron: return fact(a) * fact(b) * fact(c) / fact(a + b + c + 3);
    case ElementType::prism: return fact(a) * fact(b) / fact(a + b + 2) * line(c);
    case ElementType::pyramid:  // the square of half-width 1 - z at height z
        return line(a) * line(b) * fact(c) * fact(a + b + 2) / fact(a + b + c + 3);
    }
    return 0;
}

}  // namespace gpufem::test
