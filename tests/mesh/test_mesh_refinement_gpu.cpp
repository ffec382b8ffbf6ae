// gpufem's refinement and node numbering on a CUDA device give the CPU's meshes exactly: the
// same numbers, the same coordinates bit for bit (the device code runs without fused
// multiply-adds), the same boundary groups, and the device copy equal to the host arrays.
#include <gtest/gtest.h>

#include <fstream>
#include <utility>

#include "gpu_test.hpp"
#include "mesh/mesh_refinement.hpp"
#include "mesh/mesh_source.hpp"
#include "mesh/mesh_worker.hpp"
#include "tests/mesh/mesh_refinement_support.hpp"
#include "tests/mixed_mesh_geometries.hpp"

namespace gpufem {
namespace {

/// Expects two meshes to be identical, and the CUDA one's device arrays (where it has them) to
/// equal its host's.
void expect_identical(const Mesh& cpu, const Mesh& cuda)
{
    EXPECT_EQ(cpu.cell_types, cuda.cell_types);
    ASSERT_EQ(cpu.degree, cuda.degree);
    ASSERT_EQ(cpu.cells.size(), cuda.cells.size());
    for (std::size_t i = 0; i < cpu.cells.size(); ++i) ASSERT_EQ(cpu.cells[i], cuda.cells[i]) << i;
    ASSERT_EQ(cpu.coordinates.size(), cuda.coordinates.size());
    for (std::size_t i = 0; i < cpu.coordinates.size(); ++i)
        ASSERT_EQ(cpu.coordinates[i], cuda.coordinates[i]) << i;
    EXPECT_EQ(cpu.cell_group, cuda.cell_group);
    ASSERT_EQ(cpu.boundaries.size(), cuda.boundaries.size());
    for (std::size_t b = 0; b < cpu.boundaries.size(); ++b)
        EXPECT_EQ(cpu.boundaries[b].connectivity, cuda.boundaries[b].connectivity) << b;
    if (cuda.first_order_only() && !cuda.device) return;  // prisms, pyramids, mixed: merged on the host
    ASSERT_NE(cuda.device, nullptr);
    const std::vector<index_type> cells = cuda.device->cells.to_host();
    const std::vector<double> coordinates = cuda.device->coordinates.to_host();
    EXPECT_TRUE(std::equal(cells.begin(), cells.end(), cuda.cells.begin(), cuda.cells.end()));
    EXPECT_TRUE(std::equal(coordinates.begin(), coordinates.end(), cuda.coordinates.begin(),
                           cuda.coordinates.end()));
}

TEST(RefinementGpu, CudaRefinesAndNumbersAsTheCpu)
{
    GPUFEM_REQUIRE_GPU();
    const ExecPtr cpu = Executor::create_cpu(), cuda = Executor::create_cuda();
    test::TempFolder folder;
    for (ElementType type : {ElementType::triangle, ElementType::quadrilateral,
                             ElementType::tetrahedron, ElementType::hexahedron}) {
        const bool plane = element_dimension(type) == 2;
        const auto geo = test::write_box_geo(folder, type);
        for (int g : {1, 2}) {
            SCOPED_TRACE(std::string(element_type_name(type)) + " order " + std::to_string(g));
            MeshSpec spec = test::box_geo_spec(geo, plane ? 0.05 : 0.15, g);
            spec.gmsh_nodes = true;  // Gmsh's mesh as it comes
            const Mesh coarse = load_mesh(spec);
            const Mesh on_cpu = refine_uniformly(refine_uniformly(coarse, cpu), cpu);
            const Mesh on_cuda = refine_uniformly(refine_uniformly(coarse, cuda), cuda);
            expect_identical(on_cpu, on_cuda);
            for (int k = 1; k <= max_lagrange_degree(type); ++k)  // boxes: GLL nodes from 5
                expect_identical(with_degree(on_cpu, k, cpu), with_degree(on_cuda, k, cuda));
        }
    }
}

TEST(RefinementGpu, CudaNumbersAndRefinesPrismsPyramidsAndMixedMeshesAsTheCpu)
{
    // Faces of two kinds (offsets by face), cells of several types (blocks, offsets by cell),
    // their refinement (children per shape, merged on the host).
    GPUFEM_REQUIRE_GPU();
    const test::MeshWorkerForTest worker;  // Gmsh's pyramids need a fresh Gmsh
    const ExecPtr cpu = Executor::create_cpu(), cuda = Executor::create_cuda();
    test::TempFolder folder;
    for (const auto& [geo, highest] : {std::pair{folder.write("prisms.geo", test::cube_prisms(4)), 4},
                                       std::pair{folder.write("four.geo", test::cube_four_types(6)), 2},
                                       std::pair{folder.write("square.geo", test::square_triangles_quadrilaterals(6)), 4}}) {
        const Mesh linear = load_mesh_isolated(test::box_geo_spec(geo, 0, 1));
        for (int k = 2; k <= highest; ++k) {
            SCOPED_TRACE(geo.filename().string() + " degree " + std::to_string(k));
            expect_identical(with_degree(linear, k, cpu), with_degree(linear, k, cuda));
        }
        // Refined twice (prisms into 8, pyramids into 6 pyramids and 4 tetrahedra), then degree 2.
        SCOPED_TRACE(geo.filename().string() + " refined");
        const Mesh on_cpu = refine_uniformly(refine_uniformly(linear, cpu), cpu);
        const Mesh on_cuda = refine_uniformly(refine_uniformly(linear, cuda), cuda);
        expect_identical(on_cpu, on_cuda);
        expect_identical(with_degree(on_cpu, 2, cpu), with_degree(on_cuda, 2, cuda));
    }
}

TEST(RefinementGpu, CurvedPrismsPyramidsAndMixedMeshesAsTheCpu)
{
    // Cells of several types read at order 2: their maps place the new nodes on the device as
    // on the CPU, refined twice (the children's maps cut on the device too), the side's
    // vertices and maps' nodes moved onto the cylinder there, P1 and P2.
    GPUFEM_REQUIRE_GPU();
    const test::MeshWorkerForTest worker;
    test::TempFolder folder;
    for (const auto& geo : {folder.write("prisms.geo", test::cylinder_extruded(0.35, false)),
                            folder.write("four.geo", test::cylinder_four_types(0.4))}) {
        MeshSpec spec = test::box_geo_spec(geo, 0, 2, 2);
        spec.cache = false;
        const Mesh coarse = load_gmsh_mesh_isolated(spec);
        ASSERT_TRUE(coarse.curved_cells);
        ASSERT_TRUE(coarse.cad_boundary);
        for (int k : {1, 2}) {
            SCOPED_TRACE(geo.filename().string() + " degree " + std::to_string(k));
            spec.degree = k;
            expect_identical(load_mesh_isolated(spec), load_mesh_isolated(spec, Executor::create_cuda()));
        }
    }
}

TEST(RefinementGpu, LoadMeshRefinesOnTheDevice)
{
    GPUFEM_REQUIRE_GPU();
    // The ball: curved (order 2 from Gmsh), refined twice onto the sphere, P1 (the last
    // refinement straight to first-order cells), P2 and P3.
    for (int k : {1, 2, 3}) {
        MeshSpec spec;
        spec.kind = MeshSpec::Kind::geo;
        spec.path = GPUFEM_SOURCE_DIR "/cases/meshes/ball.geo";
        spec.size = 0.4;
        spec.refine = 2;
        spec.degree = k;
        const Mesh on_cpu = load_mesh(spec);
        const Mesh on_cuda = load_mesh(spec, Executor::create_cuda());
        expect_identical(on_cpu, on_cuda);
    }
    // A box with a cylindrical hole, its refined boundary nodes moved onto the cylinder (and
    // across its seam) on the device as on the CPU.
    test::TempFolder folder;
    const MeshSpec hole = test::box_geo_spec(folder.write("box_with_hole.geo", test::box_with_hole_geo), 0, 2, 2);
    ASSERT_TRUE(load_gmsh_mesh(hole).cad_boundary);
    expect_identical(load_mesh(hole), load_mesh(hole, Executor::create_cuda()));
    // Generated grids of degree 5 to 8 (GLL nodes placed by the grid).
    for (const char* shape : {"unit_square", "unit_cube"})
        for (int k = 5; k <= 8; ++k) {
            SCOPED_TRACE(std::string(shape) + " degree " + std::to_string(k));
            MeshSpec spec;
            spec.kind = MeshSpec::Kind::shape;
            spec.shape = shape;
            spec.elements = std::string(shape) == "unit_square" ? "quadrilateral" : "hexahedron";
            spec.size = 0.25;
            spec.degree = k;
            expect_identical(load_mesh(spec), load_mesh(spec, Executor::create_cuda()));
        }
}

}  // namespace
}  // namespace gpufem
