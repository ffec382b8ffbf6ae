// gpufem-mesh-worker: the process gpufem runs Gmsh in (mesh/mesh_worker.hpp), on its own:
// it links the mesh library and Gmsh only, none of the CUDA and VTK libraries the gpufem
// program maps at start-up, so a mesh from Gmsh does not pay that start-up a second time.
// gpufem starts it when it lies next to the gpufem program; `gpufem --mesh-worker` does the
// same work otherwise.
#include <cstdio>
#include <string>

#include "mesh/mesh_worker.hpp"

int main(int argc, char** argv)
{
    if (argc == 2 && std::string(argv[1]) == gpufem::mesh_worker_argument) return gpufem::run_mesh_worker();
    std::fprintf(stderr, "gpufem-mesh-worker: started by gpufem with %s (a request on stdin), not by hand\n",
                 gpufem::mesh_worker_argument);
    return 2;
}
