#pragma once
// Finite-volume tests: a case run through the pipeline's stages (mesh, discretisation, system,
// solve, output) with everything kept for inspection, and Gmsh geometries for unstructured
// meshes.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "assembly/fv_discretisation.hpp"
#include "solver/case_file.hpp"
#include "solver/pipeline.hpp"

namespace gpufem::test {

/// One finite-volume case, run stage by stage on an executor (every stage kept).
template <typename V = double>
struct FvCaseRun {
    CaseSpec spec;
    CaseMesh input;
    std::unique_ptr<Discretisation<V>> disc;
    DiscreteSystem<V> system;
    SystemSolution<V> solved;
    SolutionOutput output;

    /// The finite-volume discretisation.
    const FiniteVolumeDiscretisation<V>& fv() const
    {
        return dynamic_cast<const FiniteVolumeDiscretisation<V>&>(*disc);
    }
};

/// Parses `yaml` (relative paths against `dir`) and runs it on exec; with solve = false stops
/// after the system.
template <typename V = double>
std::unique_ptr<FvCaseRun<V>> run_fv_case(const std::string& yaml, const ExecPtr& exec,
                                          const std::filesystem::path& dir = {}, bool solve = true)
{
    auto run = std::make_unique<FvCaseRun<V>>();
    run->spec = parse_case_text(yaml, "fv_test.yaml", dir);
    run->input = load_case_mesh(run->spec, exec);
    run->disc = make_discretisation<V>(run->spec, run->input);
    run->system = build_case_system(exec, *run->disc, run->spec);
    if (!solve) return run;
    run->solved = solve_system(run->system, run->spec.solver, run->disc.get());
    run->output = run->disc->solution_output(run->solved.x);
    return run;
}

/// A .geo of the unit square (triangles, Gmsh's Frontal-Delaunay) or cube (tetrahedra,
/// Delaunay) at size h with the groups "boundary" (all) and "left" (x = 0), in dir.
inline std::filesystem::path write_unstructured_box(const std::filesystem::path& dir, int dim, double h)
{
    const std::filesystem::path path = dir / (dim == 2 ? "square.geo" : "cube.geo");
    std::ofstream geo(path);
    geo << "SetFactory(\"OpenCASCADE\");\nMesh.MeshSizeFromPoints = 0;\n"
        << "Mesh.MeshSizeMax = " << h << ";\nMesh.MeshSizeMin = " << h << ";\n";
    if (dim == 2)
        geo << "Rectangle(1) = {0, 0, 0, 1, 1};\nPhysical Surface(\"domain\") = {1};\n"
               "Physical Curve(\"left\") = {4};\nPhysical Curve(\"rest\") = {1, 2, 3};\n"
               "Mesh.Algorithm = 6;\n";
    else
        geo << "Box(1) = {0, 0, 0, 1, 1, 1};\nPhysical Volume(\"domain\") = {1};\n"
               "Physical Surface(\"left\") = {1};\nPhysical Surface(\"rest\") = {2, 3, 4, 5, 6};\n"
               "Mesh.Algorithm3D = 1;\n";
    return path;
}

}  // namespace gpufem::test
