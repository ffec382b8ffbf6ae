#pragma once
// Finite-volume tests: a case run through the pipeline's stages (mesh, discretisation, system,
// solve, output) with everything kept for inspection, and Gmsh geometries for unstructured
// meshes.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "assembly/fv_discretisation.hpp"
#include "solver/case/case_file.hpp"
#include "solver/run/pipeline.hpp"
#include "tests/mesh/mesh_test_support.hpp"

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
/// after the system. Gmsh meshes on one thread unless the case says otherwise: a fresh mesh on
/// several threads varies from run to run, and with it the errors that rate tests compare.
/// The flux fields are held in double unless the case says otherwise (output.flux_precision),
/// so that tests compare them to the solver's tolerance.
template <typename V = double>
std::unique_ptr<FvCaseRun<V>> run_fv_case(const std::string& yaml, const ExecPtr& exec,
                                          const std::filesystem::path& dir = {}, bool solve = true)
{
    auto run = std::make_unique<FvCaseRun<V>>();
    run->spec = parse_case_text(yaml, "fv_test.yaml", dir);
    if (yaml.find("gmsh_threads") == std::string::npos) run->spec.mesh.gmsh_threads = 1;
    if (yaml.find("flux_precision") == std::string::npos) run->spec.output.flux_precision = Precision::float64;
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

/// A .geo of a mixed mesh with cells of size about h and the groups "rest" (all but x = 0)
/// and "left" (x = 0), in dir. 2D: the unit square in triangles (x < 0.5) and
/// structured quadrilaterals (x > 0.5). 3D: the unit cube in prisms (z < 0.3), tetrahedra
/// with pyramids on the quadrilaterals they meet (0.3 < z < 0.7) and hexahedra (z > 0.7),
/// as cases/meshes/cube_layers.geo. (Gmsh 4.8's pyramids overlap their tetrahedra at some
/// sizes, h = 0.1 among them; 0.14 and 0.07 are good.)
inline std::filesystem::path write_mixed_box(const std::filesystem::path& dir, int dim, double h)
{
    const std::filesystem::path path = dir / (dim == 2 ? "mixed_square.geo" : "mixed_cube.geo");
    std::ofstream geo(path);
    const int n = static_cast<int>(std::lround(1.0 / h));
    geo << "lc = " << h << ";\n";
    if (dim == 2) {
        geo << "Point(1) = {0, 0, 0, lc}; Point(2) = {0.5, 0, 0, lc}; Point(3) = {1, 0, 0, lc};\n"
               "Point(4) = {1, 1, 0, lc}; Point(5) = {0.5, 1, 0, lc}; Point(6) = {0, 1, 0, lc};\n"
               "Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 5}; Line(5) = {5, 6};\n"
               "Line(6) = {6, 1}; Line(7) = {2, 5};\n"
               "Curve Loop(1) = {1, 7, 5, 6}; Plane Surface(1) = {1};\n"
               "Curve Loop(2) = {2, 3, 4, -7}; Plane Surface(2) = {2};\n"
            << "Transfinite Curve{2, 4} = " << (n + 1) / 2 + 1 << ";\nTransfinite Curve{3, 7} = " << n + 1 << ";\n"
            << "Transfinite Surface{2};\nRecombine Surface{2};\n"
               "Physical Surface(\"domain\") = {1, 2};\nPhysical Curve(\"left\") = {6};\n"
               "Physical Curve(\"rest\") = {1, 2, 3, 4, 5};\n";
        return path;
    }
    const int layers = std::max(1, static_cast<int>(std::lround(0.3 / h)));
    geo << "Point(1) = {0, 0, 0.3, lc}; Point(2) = {1, 0, 0.3, lc}; Point(3) = {1, 1, 0.3, lc}; Point(4) = {0, 1, 0.3, lc};\n"
           "Point(5) = {0, 0, 0.7, lc}; Point(6) = {1, 0, 0.7, lc}; Point(7) = {1, 1, 0.7, lc}; Point(8) = {0, 1, 0.7, lc};\n"
           "Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};\n"
           "Line(5) = {5, 6}; Line(6) = {6, 7}; Line(7) = {7, 8}; Line(8) = {8, 5};\n"
           "Line(9) = {1, 5}; Line(10) = {2, 6}; Line(11) = {3, 7}; Line(12) = {4, 8};\n"
           "Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
           "Curve Loop(2) = {5, 6, 7, 8}; Plane Surface(2) = {2};\n"
           "Curve Loop(3) = {1, 10, -5, -9}; Plane Surface(3) = {3};\n"
           "Curve Loop(4) = {2, 11, -6, -10}; Plane Surface(4) = {4};\n"
           "Curve Loop(5) = {3, 12, -7, -11}; Plane Surface(5) = {5};\n"
           "Curve Loop(6) = {4, 9, -8, -12}; Plane Surface(6) = {6};\n"
           "Surface Loop(1) = {1, 2, 3, 4, 5, 6};\nVolume(1) = {1};\n"
        << "Transfinite Curve{5, 6, 7, 8} = " << n + 1 << ";\nTransfinite Surface{2};\nRecombine Surface{2};\n"
        << "low[] = Extrude {0, 0, -0.3} { Surface{1}; Layers{" << layers << "}; Recombine; };\n"
        << "high[] = Extrude {0, 0, 0.3} { Surface{2}; Layers{" << layers << "}; Recombine; };\n"
        << "Mesh.Algorithm3D = 1;\n"
           "Physical Volume(\"domain\") = {1, low[1], high[1]};\n"
           "Physical Surface(\"left\") = {6, low[5], high[5]};\n"
           "Physical Surface(\"rest\") = {3, 4, 5, low[0], low[2], low[3], low[4], high[0], high[2], high[3], high[4]};\n";
    return path;
}

}  // namespace gpufem::test
