#include "assembly/poisson_assembly.hpp"

#include <chrono>
#include <variant>
#include <vector>

#include "assembly/boundary_conditions.hpp"
#include "assembly/boundary_data.hpp"
#include "assembly/csr_pattern.hpp"
#include "assembly/dirichlet.hpp"
#include "assembly/element_data.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/mesh_check.hpp"
#include "linalg/blas1.hpp"

namespace gpufem {
namespace {

/// Seconds since start after waiting for exec's queued work.
double elapsed(const Executor& exec, std::chrono::steady_clock::time_point start)
{
    exec.synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int assembly_quadrature_degree(ElementType type, int order)
{
    const bool box = type == ElementType::quadrilateral || type == ElementType::hexahedron;
    return box ? 2 * order + 1 : 2 * order;
}

namespace {

/// The mesh's reference element with the assembly quadrature.
ReferenceElement assembly_reference_element(const Mesh& mesh)
{
    return make_reference_element(mesh.cell_type, mesh.degree,
                                  assembly_quadrature_degree(mesh.cell_type, mesh.degree));
}

}  // namespace

template <typename V>
ElementData<V> make_problem_element_data(const ExecPtr& exec, const Mesh& mesh,
                                         const ProblemSpec& problem)
{
    const ReferenceElement ref = assembly_reference_element(mesh);
    return make_element_data<V>(exec, mesh, ref, Expression(problem.kappa), Expression(problem.f),
                                problem.convection);
}

template <typename V>
ElementData<V> timed_problem_element_data(const ExecPtr& exec, const Mesh& mesh,
                                          const ProblemSpec& problem, AssemblyTimes& times)
{
    using clock = std::chrono::steady_clock;
    const ReferenceElement ref = assembly_reference_element(mesh);
    auto start = clock::now();
    ElementData<V> data = make_geometry_data<V>(exec, mesh, ref);
    check_mesh_geometry(mesh, data);
    times.geometry = elapsed(*exec, start);
    start = clock::now();
    add_coefficients(data, mesh, ref, Expression(problem.kappa), Expression(problem.f),
                     problem.convection);
    times.coefficients = elapsed(*exec, start);
    return data;
}

template <typename V>
LinearSystem<V> assemble_poisson(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                                 CsrOffsets offsets)
{
    using clock = std::chrono::steady_clock;
    check_boundary_groups(mesh, problem);
    LinearSystem<V> system;
    const index_type n = mesh.num_nodes();

    const ElementData<V> data = timed_problem_element_data<V>(exec, mesh, problem, system.times);

    auto start = clock::now();
    AnyCsrPattern any_pattern =
        build_any_csr_pattern(n, data.cells, mesh.nodes_per_cell, offsets == CsrOffsets::wide);
    system.times.pattern = elapsed(*exec, start);

    start = clock::now();
    system.rhs = Array<V>(exec, n);
    fill(system.rhs, V(0));
    if (auto* pattern = std::get_if<CsrPattern>(&any_pattern)) {
        system.matrix.values = Array<V>(exec, pattern->nnz());
        fill(system.matrix.values, V(0));
        GPUFEM_DISPATCH(*exec, assemble_csr(*exec, data, pattern->cell_to_csr.data(),
                                            system.matrix.values.data(), system.rhs.data()));
        system.matrix.rows = n;
        system.matrix.cols = n;
        system.matrix.row_ptr = std::move(pattern->row_ptr);
        system.matrix.col_idx = std::move(pattern->col_idx);
    } else {
        WideCsrPattern& wide = std::get<WideCsrPattern>(any_pattern);
        WideCsr<V>& matrix = system.wide_matrix.emplace();
        matrix.values = Array<V>(exec, wide.nnz());
        fill(matrix.values, V(0));
        GPUFEM_DISPATCH(*exec, assemble_wide_csr(*exec, data, wide.row_ptr.data(), wide.col_idx.data(),
                                                 matrix.values.data(), system.rhs.data()));
        matrix.rows = n;
        matrix.cols = n;
        matrix.row_ptr = std::move(wide.row_ptr);
        matrix.col_idx = std::move(wide.col_idx);
    }
    any_pattern = CsrPattern{};  // the cell-to-CSR map goes before the boundary data
    system.times.values = elapsed(*exec, start);

    start = clock::now();
    Array<double> coordinate_storage;
    const double* coordinates = double_coordinates(mesh, data, coordinate_storage);
    add_neumann_load(mesh, coordinates, problem.neumann, system.rhs);
    DirichletData<V> dirichlet = dirichlet_data<V>(exec, mesh, coordinates, problem.dirichlet);
    system.dirichlet_count = dirichlet.count;
    if (dirichlet.count > 0) {
        if (system.wide_matrix)
            GPUFEM_DISPATCH(*exec, apply_dirichlet(*exec, *system.wide_matrix, dirichlet.mask.data(),
                                                   dirichlet.values.data(), system.rhs.data()));
        else
            GPUFEM_DISPATCH(*exec, apply_dirichlet(*exec, system.matrix, dirichlet.mask.data(),
                                                   dirichlet.values.data(), system.rhs.data()));
    }
    system.initial_guess = std::move(dirichlet.values);
    system.times.boundary = elapsed(*exec, start);
    return system;
}

template <typename V>
void widen_offsets(LinearSystem<V>& system)
{
    if (system.wide_matrix) return;
    Csr<V>& a = system.matrix;
    const ExecPtr exec = a.executor();
    const std::vector<index_type> narrow = a.row_ptr.to_host();
    WideCsr<V>& wide = system.wide_matrix.emplace();
    wide.rows = a.rows;
    wide.cols = a.cols;
    wide.row_ptr = Array<wide_offset_type>::from_host(exec, std::vector<wide_offset_type>(narrow.begin(), narrow.end()));
    wide.col_idx = std::move(a.col_idx);
    wide.values = std::move(a.values);
    a = Csr<V>{};
}

template ElementData<float> make_problem_element_data(const ExecPtr&, const Mesh&,
                                                      const ProblemSpec&);
template ElementData<double> make_problem_element_data(const ExecPtr&, const Mesh&,
                                                       const ProblemSpec&);
template ElementData<float> timed_problem_element_data(const ExecPtr&, const Mesh&,
                                                       const ProblemSpec&, AssemblyTimes&);
template ElementData<double> timed_problem_element_data(const ExecPtr&, const Mesh&,
                                                        const ProblemSpec&, AssemblyTimes&);
template LinearSystem<float> assemble_poisson(const ExecPtr&, const Mesh&, const ProblemSpec&, CsrOffsets);
template LinearSystem<double> assemble_poisson(const ExecPtr&, const Mesh&, const ProblemSpec&, CsrOffsets);
template void widen_offsets(LinearSystem<float>&);
template void widen_offsets(LinearSystem<double>&);

}  // namespace gpufem
