#include "mesh/mesh_input_guard.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>

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

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

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

void check_geo_commands(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    int line = 1;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            ++i;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            while (i < text.size() && text[i] != '\n') ++i;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            i += 2;
            while (i < text.size() && !(text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/')) {
                line += text[i] == '\n';
                ++i;
            }
            i += 2;
        } else if (c == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i) {
                if (text[i] == '\\') ++i;
                else line += text[i] == '\n';
            }
            ++i;
        } else if (is_identifier_start(c)) {
            const std::size_t start = i;
            while (i < text.size() && is_identifier_char(text[i])) ++i;
            // A name after '.' is an option (Mesh.SaveAll), not a command.
            std::size_t before = start;
            while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
            if (before > 0 && text[before - 1] == '.') continue;
            const std::string_view word(text.data() + start, i - start);
            const auto refused = std::find(std::begin(geo_refused_commands),
                                           std::end(geo_refused_commands), word);
            if (refused != std::end(geo_refused_commands))
                throw MeshSourceError(
                    "geometry file '" + path + "' line " + std::to_string(line) + ": '" +
                    std::string(word) +
                    "' is refused: gpufem does not let a mesh input run commands, write or read "
                    "other files or end the program (refused: System, SystemCall, "
                    "NonBlockingSystemCall, OnelabRun, Save, Print, Exit, Abort, Include, Merge, "
                    "Sleep, CreateDir, DeleteFile, RenameFile); if you trust the file, set "
                    "mesh.allow_commands: true in the case");
        } else {
            ++i;
        }
    }
}

}  // namespace gpufem
