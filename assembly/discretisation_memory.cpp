#include "assembly/discretisation_memory.hpp"

#include <cstdlib>

namespace gpufem {

PhaseBytes mesh_memory(const MeshCounts& mesh, bool cuda)
{
    const double nodes = mesh.nodes, cells = mesh.cells, per_cell = mesh.nodes_per_cell;
    const bool generated = !mesh.shape.empty();  // written on the device as it is generated
    const double host = 24 * nodes + 4 * cells * per_cell + 4 * cells +
                        4 * mesh.facet_entries * (generated ? 1.5 : 1.0);
    const double device = cuda && (mesh.on_device || generated) ? 24 * nodes + 4 * cells * per_cell : 0;
    return {host, device};
}

double prewrite_host_bytes(const MemoryChoices& choices, const MeshCounts& mesh)
{
    if (!choices.write_solution || !choices.compressed_output) return 0;
    return 9 * mesh.cells + 0.5 * (24 * mesh.nodes + 4 * mesh.cells * mesh.nodes_per_cell);
}

double flux_field_bytes(const MemoryChoices& choices, const MeshCounts& mesh)
{
    return choices.fluxes ? 8.0 * mesh.dim * (mesh.nodes + mesh.cells) : 0.0;
}

bool is_constant_expression(const std::string& text)
{
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    return end != text.c_str() && *end == '\0';
}

}  // namespace gpufem
