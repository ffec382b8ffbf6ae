// The mesh checked before assembly on the CPU (mesh_check_checks.hpp).
#include "mesh_check_checks.hpp"

using namespace gpufem;

TEST(MeshCheck, TangledFoldedTiltedAndNonFiniteMeshesAreRefused)
{
    test::check_meshes_are_validated(Executor::create_cpu());
}
