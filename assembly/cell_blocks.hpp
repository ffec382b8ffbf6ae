#pragma once
// A mesh of several cell types (Mesh::cell_types) as one block of cells per type, each a
// mesh of that type alone over the same nodes: what the single-type element code
// (geometry, coefficients, element kernels, error integrals) runs on, block by block, while
// the pattern, the boundary conditions and the solution stay those of the whole mesh.
#include <cstdint>
#include <vector>

#include "linalg/array.hpp"
#include "mesh/mesh.hpp"

namespace gpufem {

/// The cells of one type of a mesh.
struct CellBlock {
    /// Those cells (their own nodes_per_cell, unpadded), every node of the mesh (the numbering
    /// unchanged; the coordinates borrowed from the mesh, Mesh::borrowed_coordinates, so the
    /// mesh must outlive the block), their subdomain tags; no boundary groups (the whole mesh's
    /// apply). Its source names the mesh and the type.
    Mesh mesh;
    std::vector<index_type> cells;  ///< each block cell's number in the whole mesh
};

/// One block per cell type present in a mixed mesh, in ElementType order; a mesh of one type
/// is one block (a copy of it without its boundary groups).
std::vector<CellBlock> cell_blocks(const Mesh& mesh);

/// cell_blocks of the cells with keep[c] != 0 alone (one entry per cell of the mesh; empty:
/// every cell); no block for a type none of whose cells is kept.
std::vector<CellBlock> cell_blocks(const Mesh& mesh, const std::vector<std::uint8_t>& keep);

/// The block's cells and coordinates on exec as its device copy (Mesh::device) while this
/// lives, made from the whole mesh's device copy there (its coordinates copied on the device,
/// the block's cells uploaded): the element data made from the block then copy them on the
/// device instead of uploading the mesh's coordinates (hundreds of MB) from the host. Nothing
/// where the whole mesh has no device copy on exec.
class BlockDeviceCopy {
public:
    BlockDeviceCopy(Mesh& block, const Mesh& whole, const ExecPtr& exec);
    ~BlockDeviceCopy() { block_.device.reset(); }
    BlockDeviceCopy(const BlockDeviceCopy&) = delete;
    BlockDeviceCopy& operator=(const BlockDeviceCopy&) = delete;

private:
    Mesh& block_;
};

/// One entry per cell of the mesh, on exec: the cell's number in the block (its place in
/// block.cells), -1 for the cells of other blocks.
Array<index_type> block_cell_map(const ExecPtr& exec, const Mesh& mesh, const CellBlock& block);

}  // namespace gpufem
