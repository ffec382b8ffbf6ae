#include "assembly/poisson_assembly.hpp"

#include <chrono>

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
LinearSystem<V> assemble_poisson(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem)
{
    using clock = std::chrono::steady_clock;
    check_boundary_groups(mesh, problem);
    LinearSystem<V> system;
    const index_type n = mesh.num_nodes();

    const ElementData<V> data = timed_problem_element_data<V>(exec, mesh, problem, system.times);

    auto start = clock::now();
    CsrPattern pattern = build_csr_pattern(n, data.cells, mesh.nodes_per_cell);
    system.times.pattern = elapsed(*exec, start);

    start = clock::now();
    system.matrix.rows = n;
    system.matrix.cols = n;
    system.matrix.values = Array<V>(exec, pattern.nnz());
    system.rhs = Array<V>(exec, n);
    fill(system.matrix.values, V(0));
    fill(system.rhs, V(0));
    GPUFEM_DISPATCH(*exec, assemble_csr(*exec, data, pattern.cell_to_csr.data(),
                                        system.matrix.values.data(), system.rhs.data()));
    system.matrix.row_ptr = std::move(pattern.row_ptr);
    system.matrix.col_idx = std::move(pattern.col_idx);
    system.times.values = elapsed(*exec, start);

    start = clock::now();
    Array<double> coordinate_storage;
    const double* coordinates = double_coordinates(mesh, data, coordinate_storage);
    add_neumann_load(mesh, coordinates, problem.neumann, system.rhs);
    DirichletData<V> dirichlet = dirichlet_data<V>(exec, mesh, coordinates, problem.dirichlet);
    system.dirichlet_count = dirichlet.count;
    if (dirichlet.count > 0)
        GPUFEM_DISPATCH(*exec, apply_dirichlet(*exec, system.matrix, dirichlet.mask.data(),
                                               dirichlet.values.data(), system.rhs.data()));
    system.initial_guess = std::move(dirichlet.values);
    system.times.boundary = elapsed(*exec, start);
    return system;
}

template ElementData<float> make_problem_element_data(const ExecPtr&, const Mesh&,
                                                      const ProblemSpec&);
template ElementData<double> make_problem_element_data(const ExecPtr&, const Mesh&,
                                                       const ProblemSpec&);
template ElementData<float> timed_problem_element_data(const ExecPtr&, const Mesh&,
                                                       const ProblemSpec&, AssemblyTimes&);
template ElementData<double> timed_problem_element_data(const ExecPtr&, const Mesh&,
                                                        const ProblemSpec&, AssemblyTimes&);
template LinearSystem<float> assemble_poisson(const ExecPtr&, const Mesh&, const ProblemSpec&);
template LinearSystem<double> assemble_poisson(const ExecPtr&, const Mesh&, const ProblemSpec&);

}  // namespace gpufem
