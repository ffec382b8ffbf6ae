#include "mesh/mesh_input_guard.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>
#include <vector>

#include "mesh/geo_lexer.hpp"
#include "mesh/geo_references.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem {
namespace {

/// The first line of a file (at most 80 bytes, printable characters only), for messages.
std::string first_line_of(const std::string& text)
{
    std::string line;
    for (char c : text) {
        if (c == '\n' || c == '\r' || line.size() >= 80) break;
        line += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
    }
    return line;
}

/// The end of every refusal: what gpufem refuses and how to allow it.
constexpr const char* refusal_advice =
    "gpufem does not let a mesh input run programs, write or read other files or end the "
    "program (refused: System, SystemCall, NonBlockingSystemCall, OnelabRun, Save, Print, "
    "Printf > FILE, Exit, Abort, MergeWithBoundingBox, ListFromFile, SendToServer, "
    "StringToName, Sleep, CreateDir, options naming files or programs, %n formats; Include, Merge "
    "and ShapeFromFile read only quoted files in the mesh input's folder); if you trust the "
    "file, set mesh.allow_commands: true in the case";

/// Throws the refusal of `what` at `line` of the file named `file`.
[[noreturn]] void refuse(const std::string& file, int line, const std::string& what)
{
    throw MeshSourceError(file + " line " + std::to_string(line) + ": " + what + " is refused: " +
                          refusal_advice);
}

/// Whether `format` holds a %n conversion (printf's "write the count to memory").
bool has_count_conversion(const std::string& format)
{
    for (std::size_t i = 0; i < format.size(); ++i) {
        if (format[i] != '%') continue;
        std::size_t j = i + 1;
        while (j < format.size() && std::string_view("-+ #0'*.123456789hlLqjzt").find(format[j]) !=
                                        std::string_view::npos)
            ++j;
        if (j < format.size() && format[j] == 'n') return true;
        i = j;  // "%%" and the conversion's letter skipped
    }
    return false;
}

/// Whether tokens[i] is a refused command, or a refused option (a name after '.'); a name
/// before '.' is an option category (Print.Format), not a command.
bool is_refused_name(const std::vector<GeoToken>& tokens, std::size_t i)
{
    const GeoToken& token = tokens[i];
    if (i + 1 < tokens.size() && tokens[i + 1].kind == GeoToken::Kind::symbol && tokens[i + 1].text == ".")
        return false;
    if (token.after_dot)
        return std::any_of(std::begin(geo_refused_option_parts), std::end(geo_refused_option_parts),
                           [&](const char* part) { return token.text.find(part) != std::string::npos; });
    return std::find(std::begin(geo_refused_commands), std::end(geo_refused_commands), token.text) !=
           std::end(geo_refused_commands);
}

/// Whether tokens[i] is Printf whose parenthesis is followed by '>' (Printf(...) > FILE).
bool is_printf_to_file(const std::vector<GeoToken>& tokens, std::size_t i)
{
    if (tokens[i].kind != GeoToken::Kind::name || tokens[i].after_dot || tokens[i].text != "Printf") return false;
    int depth = 0;
    for (std::size_t j = i + 1; j < tokens.size(); ++j) {
        if (tokens[j].kind != GeoToken::Kind::symbol) continue;
        if (tokens[j].text == "(") ++depth;
        if (tokens[j].text == ")" && --depth == 0)
            return j + 1 < tokens.size() && tokens[j + 1].kind == GeoToken::Kind::symbol &&
                   tokens[j + 1].text == ">";
    }
    return false;
}

/// Checks the script at `path`, named `file` in messages (see check_geo_commands).
void check_script(const std::string& path, const std::string& file)
{
    std::vector<GeoToken> tokens;
    try {
        tokens = lex_geo(script_text(path));
    } catch (const GeoLexError& error) {
        refuse(file, error.line, error.reason);
    }
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const GeoToken& token = tokens[i];
        if (token.kind == GeoToken::Kind::string && has_count_conversion(token.text))
            refuse(file, token.line, "a %n format (it makes printf write to memory)");
        if (token.kind != GeoToken::Kind::name) continue;
        if (is_refused_name(tokens, i))
            refuse(file, token.line, "'" + token.text + "'" + (token.after_dot ? " (an option naming a file or program)" : ""));
        if (is_printf_to_file(tokens, i)) refuse(file, token.line, "'Printf(...) > FILE' (it writes a file)");
    }
}

}  // namespace

void check_msh_header(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::string head(64, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    constexpr std::string_view header = "$MeshFormat";
    const bool ok = head.compare(0, header.size(), header) == 0 &&
                    (head.size() == header.size() || head[header.size()] == '\n' ||
                     head[header.size()] == '\r');
    if (!ok)
        throw MeshSourceError("mesh file '" + path +
                              "' is not a Gmsh mesh: its first line must be $MeshFormat (found '" +
                              first_line_of(head) +
                              "'); gpufem reads mesh files only as meshes, never as Gmsh scripts "
                              "(a .geo script goes under mesh.geo)");
}

namespace {

/// Checks every file of `files` (mesh_input_files) after the input itself: scripts by
/// check_script, meshes by their header.
void check_read_files(const std::vector<MeshInputFile>& files)
{
    for (std::size_t i = 1; i < files.size(); ++i) {
        const MeshInputFile& file = files[i];
        if (file.kind == MeshInputFile::Kind::script)
            check_script(file.path, !file.options_of.empty()
                                        ? "options file '" + file.path + "' (Gmsh reads it after '" +
                                              file.options_of + "' as a script)"
                                        : "file '" + file.path + "' (read by " + file.origin + ")");
        else if (file.kind == MeshInputFile::Kind::mesh)
            check_msh_header(file.path);
    }
}

}  // namespace

void check_geo_commands(const std::string& path)
{
    check_script(path, "geometry file '" + path + "'");
    check_read_files(mesh_input_files(path, true));
}

void check_sidecar_options(const std::string& path)
{
    check_read_files(mesh_input_files(path, false));
}

bool mesh_input_guard_bypassed() { return std::getenv("GPUFEM_TEST_BYPASS_MESH_INPUT_GUARD") != nullptr; }

}  // namespace gpufem
