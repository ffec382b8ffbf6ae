#include "solver/run/part_payload.hpp"

#include "linalg/byte_stream.hpp"

namespace gpufem {
namespace {

void pack_group(ByteWriter& out, const PhysicalGroup& group)
{
    out.text(group.name);
    out.value(group.dim);
    out.value(group.tag);
}

PhysicalGroup unpack_group(ByteReader& in)
{
    PhysicalGroup group;
    group.name = in.text();
    group.dim = in.value<int>();
    group.tag = in.value<int>();
    return group;
}

void pack_boundary(ByteWriter& out, const BoundaryFacets& facets)
{
    pack_group(out, facets.group);
    out.value(facets.type);
    out.value(facets.degree);
    out.value(facets.nodes_per_facet);
    out.values(facets.connectivity);
    out.value(facets.mixed_triangles);
}

BoundaryFacets unpack_boundary(ByteReader& in)
{
    BoundaryFacets facets;
    facets.group = unpack_group(in);
    facets.type = in.value<ElementType>();
    facets.degree = in.value<int>();
    facets.nodes_per_facet = in.value<int>();
    in.values(facets.connectivity);
    facets.mixed_triangles = in.value<bool>();
    return facets;
}

/// A part's curved geometry for refinement (Mesh::cad_boundary), or its absence.
void pack_cad_boundary(ByteWriter& out, const CadBoundary* cad)
{
    out.value(cad != nullptr);
    if (!cad) return;
    out.value(cad->facet_type);
    out.value(cad->facet_degree);
    out.value(cad->refinements);
    out.value(cad->lattice_order);
    out.values(cad->facets);
    out.values(cad->points);
}

std::shared_ptr<const CadBoundary> unpack_cad_boundary(ByteReader& in)
{
    if (!in.value<bool>()) return nullptr;
    auto cad = std::make_shared<CadBoundary>();
    cad->facet_type = in.value<ElementType>();
    cad->facet_degree = in.value<int>();
    cad->refinements = in.value<int>();
    cad->lattice_order = in.value<int>();
    in.values(cad->facets);
    in.values(cad->points);
    return cad;
}

/// The mesh's host data (not its device copy, grid or refinement history, which stay with the
/// whole mesh on rank 0).
void pack_mesh(ByteWriter& out, const Mesh& mesh)
{
    out.value(mesh.dim);
    out.values(mesh.coordinates);
    out.value(mesh.cell_type);
    out.value(mesh.degree);
    out.value(mesh.nodes_per_cell);
    out.values(mesh.cells);
    out.values(mesh.cell_types);
    out.values(mesh.cell_group);
    out.value<std::uint64_t>(mesh.subdomains.size());
    for (const PhysicalGroup& group : mesh.subdomains) pack_group(out, group);
    out.value<std::uint64_t>(mesh.boundaries.size());
    for (const BoundaryFacets& facets : mesh.boundaries) pack_boundary(out, facets);
    out.value<std::uint64_t>(mesh.ignored_boundaries.size());
    for (const IgnoredGroup& ignored : mesh.ignored_boundaries) {
        out.text(ignored.name);
        out.text(ignored.reason);
    }
    out.value<std::uint64_t>(mesh.cell_fields.size());
    for (const CellField& field : mesh.cell_fields) {
        out.text(field.name);
        out.text(field.file);
        out.value(field.components);
        out.values(field.values);
    }
    out.text(mesh.source);
    pack_cad_boundary(out, mesh.cad_boundary.get());
}

Mesh unpack_mesh(ByteReader& in)
{
    Mesh mesh;
    mesh.dim = in.value<int>();
    in.values(mesh.coordinates);
    mesh.cell_type = in.value<ElementType>();
    mesh.degree = in.value<int>();
    mesh.nodes_per_cell = in.value<int>();
    in.values(mesh.cells);
    in.values(mesh.cell_types);
    in.values(mesh.cell_group);
    for (auto n = in.value<std::uint64_t>(); n > 0; --n) mesh.subdomains.push_back(unpack_group(in));
    for (auto n = in.value<std::uint64_t>(); n > 0; --n) mesh.boundaries.push_back(unpack_boundary(in));
    for (auto n = in.value<std::uint64_t>(); n > 0; --n) {
        IgnoredGroup ignored;
        ignored.name = in.text();
        ignored.reason = in.text();
        mesh.ignored_boundaries.push_back(std::move(ignored));
    }
    for (auto n = in.value<std::uint64_t>(); n > 0; --n) {
        CellField field;
        field.name = in.text();
        field.file = in.text();
        field.components = in.value<int>();
        in.values(field.values);
        mesh.cell_fields.push_back(std::move(field));
    }
    mesh.source = in.text();
    mesh.cad_boundary = unpack_cad_boundary(in);
    return mesh;
}

void pack_halo(ByteWriter& out, const HaloPlan& halo)
{
    out.value<std::uint64_t>(halo.sends.size());
    for (const HaloPlan::Send& send : halo.sends) {
        out.value(send.peer);
        out.values(send.local);
    }
    out.values(halo.receives);
}

HaloPlan unpack_halo(ByteReader& in)
{
    HaloPlan halo;
    for (auto n = in.value<std::uint64_t>(); n > 0; --n) {
        HaloPlan::Send send;
        send.peer = in.value<int>();
        in.values(send.local);
        halo.sends.push_back(std::move(send));
    }
    in.values(halo.receives);
    return halo;
}

}  // namespace

std::vector<std::byte> pack_part(const PartPayload& payload)
{
    ByteWriter out;
    const Mesh& mesh = payload.part.mesh;
    std::size_t facets = 0;
    for (const BoundaryFacets& group : mesh.boundaries) facets += group.connectivity.size();
    // The large arrays, and room for the rest.
    out.reserve(sizeof(double) * mesh.node_coordinates().size() +
                sizeof(index_type) * (mesh.cells.size() + facets + payload.part.global_cells.size() +
                                      payload.part.global_nodes.size() + payload.numbering.global.size()) +
                sizeof(int) * mesh.cell_group.size() + mesh.cell_types.size() + (std::size_t{1} << 20));
    pack_mesh(out, payload.part.mesh);
    out.value(payload.part.own_cells);
    out.values(payload.part.global_cells);
    out.values(payload.part.global_nodes);
    out.value(payload.numbering.part);
    out.value(payload.numbering.layout.owned);
    out.values(payload.numbering.layout.ghost_blocks);
    out.values(payload.numbering.global);
    pack_halo(out, payload.halo);
    return std::move(out.bytes());
}

PartPayload unpack_part(std::span<const std::byte> bytes)
{
    ByteReader in(bytes);
    PartPayload payload;
    payload.part.mesh = unpack_mesh(in);
    payload.part.own_cells = in.value<index_type>();
    in.values(payload.part.global_cells);
    in.values(payload.part.global_nodes);
    payload.numbering.part = in.value<int>();
    payload.numbering.layout.owned = in.value<index_type>();
    in.values(payload.numbering.layout.ghost_blocks);
    in.values(payload.numbering.global);
    payload.halo = unpack_halo(in);
    if (!in.done()) throw std::runtime_error("a rank's part of the mesh has bytes past its end");
    return payload;
}

std::vector<std::byte> pack_coarse_layer(const CoarseLayer& layer)
{
    ByteWriter out;
    pack_mesh(out, layer.mesh);
    out.values(layer.global_cells);
    out.values(layer.cell_part);
    out.value(layer.parts);
    return std::move(out.bytes());
}

CoarseLayer unpack_coarse_layer(std::span<const std::byte> bytes)
{
    ByteReader in(bytes);
    CoarseLayer layer;
    layer.mesh = unpack_mesh(in);
    in.values(layer.global_cells);
    in.values(layer.cell_part);
    layer.parts = in.value<int>();
    if (!in.done()) throw std::runtime_error("a rank's coarse cells have bytes past their end");
    return layer;
}

}  // namespace gpufem
