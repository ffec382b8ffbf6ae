#include "mesh/geo_references.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "mesh/geo_lexer.hpp"
#include "mesh/gmsh_session.hpp"

namespace gpufem {
namespace {

namespace fs = std::filesystem;

/// The commands that read a file named by a quoted string, and what comes between the command
/// and the name ("(" for ShapeFromFile) and after it.
struct ReadingCommand {
    const char* name;
    const char* before;  ///< "" or the symbol before the name
    const char* after;   ///< the symbol after the name
    bool merges;         ///< Merge: the file is data when its kind says so, else a script
};
constexpr ReadingCommand reading_commands[] = {
    {"Include", "", ";", false}, {"Merge", "", ";", true}, {"ShapeFromFile", "(", ")", true}};

/// Extensions Gmsh's Merge reads with a CAD or STL reader rather than as a script.
constexpr const char* shape_data_extensions[] = {".step", ".stp", ".brep", ".brp", ".iges", ".igs", ".stl", ".xao",
                                                 ".STEP", ".STP", ".BREP", ".BRP", ".IGES", ".IGS", ".STL", ".XAO"};

/// Whether the file at `path` starts with Gmsh's mesh header.
bool starts_as_mesh(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::string head(11, '\0');
    in.read(head.data(), 11);
    return in.gcount() == 11 && head == "$MeshFormat";
}

/// How Merge reads `path`: its CAD/STL reader by the extension, a mesh by the header, else a script.
MeshInputFile::Kind merged_kind(const fs::path& path)
{
    const std::string extension = path.extension().string();
    if (std::find(std::begin(shape_data_extensions), std::end(shape_data_extensions), extension) !=
        std::end(shape_data_extensions))
        return MeshInputFile::Kind::shape_data;
    return starts_as_mesh(path) ? MeshInputFile::Kind::mesh : MeshInputFile::Kind::script;
}

/// Whether tokens[i] is the symbol `symbol`.
bool is_symbol(const std::vector<GeoToken>& tokens, std::size_t i, const char* symbol)
{
    return i < tokens.size() && tokens[i].kind == GeoToken::Kind::symbol && tokens[i].text == symbol;
}

/// How strictly Gmsh's reading of a file must be checked: a script most.
int strictness(MeshInputFile::Kind kind)
{
    return kind == MeshInputFile::Kind::script ? 2 : kind == MeshInputFile::Kind::mesh ? 1 : 0;
}

/// Collects the files of one mesh input, each once, read as strictly as any reference reads it.
class InputWalk {
public:
    explicit InputWalk(const fs::path& input) : root_(fs::weakly_canonical(fs::absolute(input).parent_path())) {}

    /// Adds `path` (and the FILE.opt Gmsh merges after it), read as `kind`, named by `origin`; a
    /// file met again and now read more strictly (Included after being merged as data) is
    /// upgraded and followed again.
    void add(const fs::path& path, MeshInputFile::Kind kind, const std::string& origin,
             const std::string& options_of = "")
    {
        const std::string canonical = fs::weakly_canonical(fs::absolute(path)).string();
        if (const auto found = index_.find(canonical); found != index_.end()) {
            MeshInputFile& known = files_[found->second];
            if (strictness(kind) <= strictness(known.kind)) return;
            known.kind = kind;
            pending_.push_back(found->second);
            return;
        }
        if (files_.size() == max_mesh_input_files)
            throw MeshSourceError(origin + ": a mesh input may read at most " +
                                  std::to_string(max_mesh_input_files) + " files");
        index_.emplace(canonical, files_.size());
        pending_.push_back(files_.size());
        files_.push_back({path.string(), kind, origin, options_of});
        const fs::path options = path.string() + ".opt";
        std::error_code error;
        if (fs::exists(fs::symlink_status(options, error))) {
            check_inside_root(options, origin, options.string(), false);
            add(options, MeshInputFile::Kind::script, origin, path.string());
        }
    }

    /// Follows every script added or upgraded since the last call (see mesh_input_files).
    void follow_pending()
    {
        while (!pending_.empty()) {
            const std::size_t index = pending_.back();
            pending_.pop_back();
            if (files_[index].kind == MeshInputFile::Kind::script) follow(index);
        }
    }

    /// The files found so far, the input first.
    std::vector<MeshInputFile>& files() { return files_; }

private:
    /// Adds what the script files_[index] names, checked.
    void follow(std::size_t index)
    {
        const fs::path script = files_[index].path;
        const std::vector<GeoToken> tokens = lex_or_empty(script);
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            if (tokens[i].kind != GeoToken::Kind::name || tokens[i].after_dot) continue;
            for (const ReadingCommand& command : reading_commands)
                if (tokens[i].text == command.name) named_file(script, tokens, i, command);
        }
    }

    /// The tokens of a script; a script the lexer refuses is left to the input guard.
    static std::vector<GeoToken> lex_or_empty(const fs::path& script)
    {
        try {
            return lex_geo(script_text(script.string()));
        } catch (const GeoLexError&) {
            return {};
        }
    }

    /// Adds the file tokens[i] (a reading command) names in `script`.
    void named_file(const fs::path& script, const std::vector<GeoToken>& tokens, std::size_t i,
                    const ReadingCommand& command)
    {
        const std::string where = "'" + script.string() + "' line " + std::to_string(tokens[i].line);
        const std::size_t name = i + 1 + (*command.before ? 1 : 0);
        if ((*command.before && !is_symbol(tokens, i + 1, command.before)) || name >= tokens.size() ||
            tokens[name].kind != GeoToken::Kind::string || !is_symbol(tokens, name + 1, command.after))
            throw MeshSourceError(where + ": " + command.name +
                                  " must name its file by one quoted string (a name computed by the script "
                                  "cannot be checked before Gmsh reads it)");
        const std::string& text = tokens[name].text;
        // Gmsh also reads a backslash as a folder separator and "C:/" as absolute: such names
        // could resolve to another file in Gmsh than here.
        if (text.find('\\') != std::string::npos || (text.size() > 1 && text[1] == ':'))
            throw MeshSourceError(where + ": '" + text + "': a file name with '\\' or a drive letter is refused");
        const fs::path named = text;
        const fs::path path = named.is_absolute() ? named : script.parent_path() / named;
        check_inside_root(path, where, text);
        add(path, command.merges ? merged_kind(path) : MeshInputFile::Kind::script, where);
    }

    /// Refuses `path` unless it is a regular file in the input's folder or below and, when
    /// `refuse_hidden`, outside any hidden folder or file there (.ssh, .config, ...).
    void check_inside_root(const fs::path& path, const std::string& where, const std::string& name,
                           bool refuse_hidden = true) const
    {
        std::error_code error;
        const fs::file_status status = fs::status(path, error);
        if (!fs::exists(status))
            throw MeshSourceError(where + ": the file '" + name + "' it reads does not exist (looked for '" +
                                  path.string() + "')");
        if (!fs::is_regular_file(status))
            throw MeshSourceError(where + ": '" + name + "' is not a regular file");
        const fs::path canonical = fs::weakly_canonical(fs::absolute(path));
        const auto [end, inside] = std::mismatch(root_.begin(), root_.end(), canonical.begin(), canonical.end());
        if (end != root_.end())
            throw MeshSourceError(where + ": '" + name + "' lies outside the mesh input's folder '" +
                                  root_.string() + "'; gpufem lets Gmsh read only files in that folder and "
                                  "below (or set mesh.allow_commands: true if you trust the script)");
        for (auto part = inside; refuse_hidden && part != canonical.end(); ++part)
            if (const std::string text = part->string(); !text.empty() && text.front() == '.')
                throw MeshSourceError(where + ": '" + name + "' is a hidden file or lies in a hidden folder ('" +
                                      text + "'); gpufem does not let Gmsh read those");
    }

    fs::path root_;
    std::vector<MeshInputFile> files_;
    std::map<std::string, std::size_t> index_;  ///< canonical path -> files_ entry
    std::vector<std::size_t> pending_;          ///< files_ entries to follow
};

}  // namespace

std::vector<MeshInputFile> mesh_input_files(const std::string& path, bool script)
{
    try {
        InputWalk walk(path);
        walk.add(path, script ? MeshInputFile::Kind::script : MeshInputFile::Kind::mesh, "the mesh input");
        walk.follow_pending();
        return std::move(walk.files());
    } catch (const fs::filesystem_error& error) {
        throw MeshSourceError("mesh input '" + path + "': " + error.what());
    }
}

}  // namespace gpufem
