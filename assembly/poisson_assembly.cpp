#include "assembly/poisson_assembly.hpp"

#include <chrono>
#include <span>
#include <type_traits>
#include <variant>
#include <vector>

#include "assembly/boundary_conditions.hpp"
#include "assembly/phase_clock.hpp"
#include "assembly/boundary_data.hpp"
#include "assembly/cell_blocks.hpp"
#include "assembly/csr_pattern.hpp"
#include "assembly/dirichlet.hpp"
#include "assembly/element_data.hpp"
#include "assembly/element_kernels.hpp"
#include "assembly/mesh_check.hpp"
#include "mesh/mesh_quality.hpp"
#include "assembly/robin_data.hpp"
#include "linalg/blas1.hpp"

namespace gpufem {

int assembly_quadrature_degree(ElementType type, int order)
{
    const bool box = type == ElementType::quadrilateral || type == ElementType::hexahedron ||
                     type == ElementType::prism;
    if (type == ElementType::pyramid) return 2 * order + 2;  // a rational basis: one more point a direction
    return box ? 2 * order + 1 : 2 * order;
}

ReferenceElement assembly_reference_element(const Mesh& mesh)
{
    return make_reference_element(mesh.cell_type, mesh.degree,
                                  assembly_quadrature_degree(mesh.cell_type, mesh.degree));
}

template <typename V>
ElementData<V> make_problem_element_data(const ExecPtr& exec, const Mesh& mesh,
                                         const ProblemSpec& problem)
{
    const ReferenceElement ref = assembly_reference_element(mesh);
    return make_element_data<V>(exec, mesh, ref, problem);
}

template <typename V>
ElementData<V> timed_problem_element_data(const ExecPtr& exec, const Mesh& mesh,
                                          const ProblemSpec& problem, AssemblyTimes& times)
{
    return timed_problem_element_data<V>(exec, mesh, assembly_reference_element(mesh), problem, times);
}

template <typename V>
ElementData<V> timed_problem_element_data(const ExecPtr& exec, const Mesh& mesh, const ReferenceElement& ref,
                                          const ProblemSpec& problem, AssemblyTimes& times, bool check_signs)
{
    auto start = phase_clock::now();
    ElementData<V> data = make_geometry_data<V>(exec, mesh, ref);
    if (check_signs) check_mesh_geometry(mesh, data);
    else check_mesh_coordinates(mesh);
    times.geometry = phase_seconds(*exec, start);
    start = phase_clock::now();
    add_coefficients(data, mesh, ref, problem);
    times.coefficients = phase_seconds(*exec, start);
    return data;
}

template <typename V>
LinearSystem<V> assemble_poisson(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                                 CsrOffsets offsets)
{
    using clock = phase_clock;
    check_boundary_groups(mesh, problem);
    LinearSystem<V> system;
    const index_type n = mesh.num_nodes();

    // The element data of the mesh, or of each cell type's block of a mesh of several types.
    std::vector<ElementData<V>> blocks;
    if (!mesh.is_mixed()) {
        blocks.push_back(timed_problem_element_data<V>(exec, mesh, problem, system.times));
    } else {
        for (CellBlock& block : cell_blocks(mesh)) {
            const BlockDeviceCopy on_device(block.mesh, mesh, exec);
            AssemblyTimes times;
            blocks.push_back(timed_problem_element_data<V>(exec, block.mesh, problem, times));
            system.times.geometry += times.geometry;
            system.times.coefficients += times.coefficients;
        }
    }

    auto start = clock::now();
    // A mixed mesh's pattern from its rows (each type's nodes, then -1: no node).
    const Array<index_type> rows =
        mesh.is_mixed() ? Array<index_type>::from_host(exec, std::span<const index_type>(mesh.cells.data(), mesh.cells.size()))
                        : Array<index_type>();
    AnyCsrPattern any_pattern = build_any_csr_pattern(n, mesh.is_mixed() ? rows : blocks.front().cells,
                                                      mesh.nodes_per_cell, offsets == CsrOffsets::wide,
                                                      /*positions=*/!mesh.is_mixed());
    system.times.pattern = phase_seconds(*exec, start);

    start = clock::now();
    system.rhs = Array<V>(exec, n);
    fill(system.rhs, V(0));
    // Each block's element matrices into the matrix: through the cell-to-CSR map where the
    // pattern has one (a mesh of one type, 32-bit offsets), else by searching each entry's row.
    const auto add_blocks = [&](auto& matrix, auto& pattern) {
        matrix.values = Array<V>(exec, pattern.nnz());
        fill(matrix.values, V(0));
        for (const ElementData<V>& data : blocks) {
            if constexpr (std::is_same_v<std::decay_t<decltype(pattern)>, CsrPattern>) {
                if (!pattern.cell_to_csr.empty()) {
                    GPUFEM_DISPATCH(*exec, assemble_csr(*exec, data, pattern.cell_to_csr.data(),
                                                        matrix.values.data(), system.rhs.data()));
                    continue;
                }
            }
            GPUFEM_DISPATCH(*exec, assemble_csr_searched(*exec, data, pattern.row_ptr.data(), pattern.col_idx.data(),
                                                         matrix.values.data(), system.rhs.data()));
        }
        matrix.rows = n;
        matrix.cols = n;
        matrix.row_ptr = std::move(pattern.row_ptr);
        matrix.col_idx = std::move(pattern.col_idx);
    };
    if (auto* pattern = std::get_if<CsrPattern>(&any_pattern)) add_blocks(system.matrix, *pattern);
    else add_blocks(system.wide_matrix.emplace(), std::get<WideCsrPattern>(any_pattern));
    any_pattern = CsrPattern{};  // the cell-to-CSR map goes before the boundary data
    system.times.values = phase_seconds(*exec, start);

    start = clock::now();
    Array<double> coordinate_storage;
    const double* coordinates = double_coordinates(mesh, blocks.front(), coordinate_storage);
    add_neumann_load(mesh, coordinates, problem.neumann, system.rhs);
    const RobinFacets robin = robin_facets(mesh, coordinates, problem.robin, system.rhs);
    if (system.wide_matrix) add_robin_to_csr(robin, *system.wide_matrix);
    else add_robin_to_csr(robin, system.matrix);
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
    system.times.boundary = phase_seconds(*exec, start);
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
template ElementData<float> timed_problem_element_data(const ExecPtr&, const Mesh&, const ReferenceElement&,
                                                       const ProblemSpec&, AssemblyTimes&, bool);
template ElementData<double> timed_problem_element_data(const ExecPtr&, const Mesh&, const ReferenceElement&,
                                                        const ProblemSpec&, AssemblyTimes&, bool);
template LinearSystem<float> assemble_poisson(const ExecPtr&, const Mesh&, const ProblemSpec&, CsrOffsets);
template LinearSystem<double> assemble_poisson(const ExecPtr&, const Mesh&, const ProblemSpec&, CsrOffsets);
template void widen_offsets(LinearSystem<float>&);
template void widen_offsets(LinearSystem<double>&);

}  // namespace gpufem
