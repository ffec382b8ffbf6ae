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

/// The payload as bytes (linalg/byte_stream.hpp).
std::vector<std::byte> pack_part(const PartPayload& payload);

/// The payload back from pack_part's bytes; throws std::runtime_error when they are cut short.
PartPayload unpack_part(std::span<const std::byte> bytes);

}  // namespace gpufem
