#pragma once
// What rank 0 sends each rank of a distributed run: its part of the mesh, the numbering of
// its unknowns and its halo, as one message (linalg/rank_messages.hpp).
#include <cstddef>
#include <span>
#include <vector>

#include "assembly/part_mesh.hpp"
#include "linalg/halo.hpp"

namespace gpufem {

/// One rank's share of a partitioned mesh.
struct PartPayload {
    PartMesh part;
    PartNumbering numbering;
    HaloPlan halo;
};

/// What rank 0 sends each rank when the ranks refine a coarse mesh part by part: the coarse
/// cells within two layers of the rank's own (cells sharing a node with them, and the cells
/// sharing a node with those), from which the rank's refined part and the owners of all its
/// nodes follow (solver/run/refined_parts.hpp).
struct CoarseLayer {
    Mesh mesh;                             ///< those cells, their nodes in the whole mesh's order
    std::vector<index_type> global_cells;  ///< each cell's number in the whole coarse mesh
    std::vector<int> cell_part;            ///< each cell's part
    int parts = 1;
};

/// The layer as bytes, and back (throws std::runtime_error when they are cut short).
std::vector<std::byte> pack_coarse_layer(const CoarseLayer& layer);
CoarseLayer unpack_coarse_layer(std::span<const std::byte> bytes);

/// The payload as bytes (linalg/byte_stream.hpp).
std::vector<std::byte> pack_part(const PartPayload& payload);

/// The payload back from pack_part's bytes; throws std::runtime_error when they are cut short.
PartPayload unpack_part(std::span<const std::byte> bytes);

}  // namespace gpufem
