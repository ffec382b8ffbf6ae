#pragma once
// The byte layout of a Mesh, shared by the mesh worker's reply pipe (mesh_worker.cpp) and the
// mesh cache's files (mesh_cache.hpp): transfer_mesh names every field once, in one order, for
// the writing side (Sender) and the reading side (Receiver). Arrays go as their length and
// then their bytes, so that a reader copies each array in one piece.
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "mesh/mesh.hpp"

namespace gpufem {

/// Collects bytes in memory (a request kept to compare with a later one).
struct ByteSink {
    std::string bytes;
    void write_bytes(const void* data, std::size_t count) { bytes.append(static_cast<const char*>(data), count); }
};

/// Counts the bytes written without keeping them (the length of a payload before it is sent).
struct ByteCounter {
    std::uint64_t bytes = 0;
    void write_bytes(const void*, std::size_t count) { bytes += count; }
};

/// Reads bytes from a block of memory; reading past its end throws std::length_error.
class MemoryReader {
public:
    MemoryReader(const char* data, std::size_t size) : at_(data), left_(size) {}

    void read_bytes(void* data, std::size_t bytes)
    {
        if (bytes > left_)
            throw std::length_error("the data ends " + std::to_string(bytes - left_) + " bytes early");
        if (bytes > 0) std::memcpy(data, at_, bytes);
        at_ += bytes;
        left_ -= bytes;
    }
    /// The bytes not read yet.
    std::size_t readable_bytes() const { return left_; }

private:
    const char* at_;
    std::size_t left_;
};

/// Writes values to a channel (anything with write_bytes): the writing side of the
/// transfer_* functions.
template <typename Out>
struct Sender {
    Out& channel;
    template <typename T>
    void value(const T& v)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        channel.write_bytes(&v, sizeof(T));
    }
    template <typename List>
    void count(const List& list)
    {
        value(static_cast<std::uint64_t>(list.size()));
    }
    /// A string or array: its length, then its bytes.
    template <typename Vector>
    void array(const Vector& v)
    {
        count(v);
        channel.write_bytes(v.data(), v.size() * sizeof(v[0]));
    }
    void text(const std::string& v) { array(v); }
};
/// `Sender sender{channel}` (clang before 17 deduces no aggregate's template arguments).
template <typename Out>
Sender(Out&) -> Sender<Out>;

/// Reads values from a channel (anything with read_bytes): the reading side of the transfer_*
/// functions. A channel that knows how many bytes are left (MemoryReader) has every length
/// checked against them before anything is allocated.
template <typename In>
struct Receiver {
    In& channel;
    template <typename T>
    void value(T& v)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        channel.read_bytes(&v, sizeof(T));
    }
    /// A length, then the list resized to it; each entry takes at least `bytes_each` bytes.
    template <typename List>
    void count(List& list, std::size_t bytes_each = 1)
    {
        std::uint64_t size = 0;
        value(size);
        if constexpr (requires { channel.readable_bytes(); }) {
            if (size > channel.readable_bytes() / bytes_each)
                throw std::length_error("a length of " + std::to_string(size) + " runs past the end of the data");
        }
        list.resize(size);
    }
    template <typename Vector>
    void array(Vector& v)
    {
        count(v, sizeof(v[0]));
        channel.read_bytes(v.data(), v.size() * sizeof(v[0]));
    }
    void text(std::string& v) { array(v); }
};
/// `Receiver receiver{channel}` (clang before 17 deduces no aggregate's template arguments).
template <typename In>
Receiver(In&) -> Receiver<In>;

/// The fields of a physical group, in one order for both sides.
template <typename Io, typename Group>
void transfer_group(Io& io, Group& group)
{
    io.text(group.name);
    io.value(group.dim);
    io.value(group.tag);
}

/// The fields of a CadBoundary, in one order for both sides.
template <typename Io, typename Cad>
void transfer_cad_fields(Io& io, Cad& cad)
{
    io.value(cad.facet_type);
    io.value(cad.facet_degree);
    io.value(cad.refinements);
    io.value(cad.lattice_order);
    io.array(cad.facets);
    io.array(cad.points);
    io.value(cad.projected);
    io.value(cad.kept);
}

/// The fields of a CellGeometry, in one order for both sides.
template <typename Io, typename Geometry>
void transfer_curved_fields(Io& io, Geometry& geometry)
{
    io.value(geometry.order);
    io.value(geometry.nodes_per_row);
    io.array(geometry.coordinates);
    io.array(geometry.cells);
}

/// A mesh's optional part (Mesh::cad_boundary, Mesh::curved_cells): whether there is one,
/// then its fields as `fields` transfers them (the writing side).
template <typename Out, typename T, typename Fields>
void transfer_optional(Sender<Out>& io, const std::shared_ptr<const T>& part, Fields fields)
{
    io.value(part != nullptr);
    if (part) fields(io, *part);
}

/// A mesh's optional part: the reading side.
template <typename In, typename T, typename Fields>
void transfer_optional(Receiver<In>& io, std::shared_ptr<const T>& part, Fields fields)
{
    bool present = false;
    io.value(present);
    part = nullptr;
    if (!present) return;
    auto read = std::make_shared<T>();
    fields(io, *read);
    part = std::move(read);
}

/// The mesh, every field Gmsh's part of loading fills, in one order for both sides (Mesh or
/// const Mesh).
template <typename Io, typename MeshT>
void transfer_mesh(Io& io, MeshT& mesh)
{
    io.value(mesh.dim);
    io.value(mesh.cell_type);
    io.value(mesh.degree);
    io.value(mesh.nodes_per_cell);
    io.array(mesh.coordinates);
    io.array(mesh.cells);
    io.array(mesh.cell_types);
    io.array(mesh.cell_group);
    io.count(mesh.subdomains);
    for (auto& group : mesh.subdomains) transfer_group(io, group);
    io.count(mesh.boundaries);
    for (auto& facets : mesh.boundaries) {
        transfer_group(io, facets.group);
        io.value(facets.type);
        io.value(facets.degree);
        io.value(facets.nodes_per_facet);
        io.value(facets.mixed_triangles);
        io.array(facets.connectivity);
    }
    io.count(mesh.ignored_boundaries);
    for (auto& ignored : mesh.ignored_boundaries) {
        io.text(ignored.name);
        io.text(ignored.reason);
    }
    io.count(mesh.cell_fields);
    for (auto& field : mesh.cell_fields) {
        io.text(field.name);
        io.text(field.file);
        io.value(field.components);
        io.array(field.values);
        io.value(field.missing);
        io.value(field.first_missing);
    }
    transfer_optional(io, mesh.cad_boundary, [](auto& on, auto& cad) { transfer_cad_fields(on, cad); });
    transfer_optional(io, mesh.curved_cells, [](auto& on, auto& maps) { transfer_curved_fields(on, maps); });
    io.text(mesh.source);
    io.value(mesh.build_times);
}

}  // namespace gpufem
