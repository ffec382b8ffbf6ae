#pragma once
// Per-cell data given with a mesh (Mesh::cell_fields): which fields a case asks for, their
// checks, and the fields carried along when cells are refined, partitioned or split by type.
#include <span>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"

namespace gpufem {

/// What every value of a requested field must be (a coefficient's own rule).
enum class CellFieldCheck { finite, positive, nonnegative };

/// A field a case uses: `name` in the mesh file's $ElementData (file "") or a cell array of
/// the .vtu `file` on the same mesh; `key` names the case key that uses it in messages.
struct CellFieldRequest {
    std::string name;
    std::string file;
    std::string key;
    CellFieldCheck check = CellFieldCheck::finite;
};

/// Keeps in mesh.cell_fields the requested fields alone (read from the .vtu files where
/// asked), each checked: present, one component, a value for every cell, each value passing
/// its check. Throws MeshSourceError naming the key, the file and the field, and the first
/// cell that fails (its number and centroid). Fields are read once for several requests.
void resolve_cell_fields(Mesh& mesh, const std::vector<CellFieldRequest>& requests);

/// The fields for a mesh whose cell i is cell from[i] of the fields' mesh.
std::vector<CellField> cell_fields_of(const std::vector<CellField>& fields, std::span<const index_type> from);

/// The fields of the mesh's first `count` cells.
std::vector<CellField> cell_fields_prefix(const std::vector<CellField>& fields, index_type count);

/// The mesh's field `name` read from `file` ("" = the mesh's own), or nullptr.
const CellField* find_cell_field(const Mesh& mesh, const std::string& name, const std::string& file);

/// The file a field came from, for messages: its .vtu, or the mesh's own file.
std::string cell_field_file(const Mesh& mesh, const CellField& field);

/// The mean of cell c's corner nodes (its centroid for messages and matching).
void cell_corner_centroid(const Mesh& mesh, index_type c, double (&x)[3]);

}  // namespace gpufem
