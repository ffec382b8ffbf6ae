#pragma once
// The tokens of a Gmsh .geo script as Gmsh's lexer (Parser/Gmsh.l) forms them, for the input
// guard (mesh_input_guard.hpp): comments (// and /* */) skipped, strings in double or single
// quotes without escapes (a "'" inside "..." and a '"' inside '...' are plain characters),
// names of letters, digits and '_'.
#include <string>
#include <vector>

namespace gpufem {

/// One token of a .geo script.
struct GeoToken {
    enum class Kind { name, string, symbol };
    Kind kind = Kind::symbol;
    std::string text;        ///< the name, the string's content, or the symbol's character
    int line = 1;            ///< where it starts
    bool after_dot = false;  ///< a name right after '.': an option (Mesh.SaveAll), not a command
};

/// The longest string Gmsh reads whole (its buffer); past it, Gmsh ends the string and reads
/// the rest of it as script.
inline constexpr std::size_t gmsh_max_string_length = 1023;

/// Thrown by lex_geo for text Gmsh would not read as written (a NUL byte, a string too long).
struct GeoLexError {
    int line;
    std::string reason;
};

/// The tokens of `text`. Throws GeoLexError.
std::vector<GeoToken> lex_geo(const std::string& text);

/// The whole text of the script at `path` ("" when it cannot be read: Gmsh reports that).
std::string script_text(const std::string& path);

}  // namespace gpufem
