// libFuzzer target: bytes given as a case's mesh.geo, loaded as `gpufem run` loads one: the
// input guard, Gmsh evaluating and meshing the script in the sandboxed mesh worker
// (gpufem-mesh-worker next to this program, or $GPUFEM_MESH_WORKER), then the mesh's
// finishing in this process. Any input must end in a mesh or a std::runtime_error; a crash, a
// sanitizer report or a hang of this process, or another exception, is a finding.
// It is also the sandbox's oracle: inputs of odd length run with the input guard bypassed
// (GPUFEM_TEST_BYPASS_MESH_INPUT_GUARD), so that hostile commands reach Gmsh,
// and after every input the process aborts if a file appeared beside the script or in a
// watched folder outside it, or a file there changed. @MARKER@, @VICTIM@ and @OUTSIDE@ in an
// input become the paths of a marker that must never exist, a file that must keep its
// content and the watched folder, so that the fixed seeds of tests/fuzz/corpus/geo aim there.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "mesh/mesh_source.hpp"
#include "mesh/mesh_worker.hpp"
#include "tests/fuzz/fuzz_worker.hpp"

namespace {

namespace fs = std::filesystem;

/// A new folder under the temporary directory, named after `prefix`; aborts when it cannot.
fs::path new_temporary_folder(const std::string& prefix)
{
    std::string pattern = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    return pattern;
}

/// A file's whole content ("" when missing).
std::string content_of(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Writes `text` as the whole file at `path`.
void write_file(const fs::path& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

/// The names of the entries of `folder`.
std::set<std::string> entries_of(const fs::path& folder)
{
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
    return names;
}

/// The folder outside every case folder that no input may change: a victim file, a script
/// that tries to create the marker (for Include and Merge of @OUTSIDE@/evil.geo), and the
/// marker's place. Made once per process.
struct Watched {
    fs::path folder = new_temporary_folder("gpufem_fuzz_geo_outside_");
    fs::path marker = folder / "marker";
    fs::path victim = folder / "victim.txt";
    fs::path evil = folder / "evil.geo";
    std::string victim_text = "victim content\n";
    std::string evil_text = "System \"touch " + marker.string() + "\";\n";

    Watched()
    {
        write_file(victim, victim_text);
        write_file(evil, evil_text);
    }
    ~Watched() { fs::remove_all(folder); }  // kept after a finding (abort skips this)
    Watched(const Watched&) = delete;
    Watched& operator=(const Watched&) = delete;

    /// `text` with @MARKER@, @VICTIM@ and @OUTSIDE@ replaced by the watched paths.
    std::string expand(std::string text) const
    {
        const std::pair<std::string, std::string> names[] = {
            {"@MARKER@", marker.string()}, {"@VICTIM@", victim.string()}, {"@OUTSIDE@", folder.string()}};
        for (const auto& [name, value] : names)
            for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + value.size()))
                text.replace(at, name.size(), value);
        return text;
    }

    /// Aborts, a libFuzzer finding, when the sandbox let the last input change the watched
    /// folder or create a file in the case folder beside `script`.
    void check_untouched(const fs::path& script) const
    {
        const char* breach = nullptr;
        if (fs::exists(marker)) breach = "the marker was created";
        else if (content_of(victim) != victim_text) breach = "the victim file was changed or deleted";
        else if (content_of(evil) != evil_text) breach = "evil.geo was changed or deleted";
        else if (entries_of(folder) != std::set<std::string>{"victim.txt", "evil.geo"})
            breach = "a file was created in the watched folder";
        else if (entries_of(script.parent_path()) != std::set<std::string>{script.filename().string()})
            breach = "a file was created in the case folder";
        if (breach == nullptr) return;
        std::fprintf(stderr, "fuzz_geo: the mesh worker's sandbox did not hold: %s\n", breach);
        std::abort();
    }
};

/// Whether an input runs with the input guard bypassed: those of odd length, half of them,
/// decided by the bytes alone, so that a saved input replays the same way.
bool guard_bypassed_for(std::size_t size) { return size % 2 == 1; }

/// Sets GPUFEM_TEST_BYPASS_MESH_INPUT_GUARD (which the worker inherits) for one scope, when asked.
class GuardBypass {
public:
    explicit GuardBypass(bool bypass) : bypass_(bypass)
    {
        if (bypass_) ::setenv("GPUFEM_TEST_BYPASS_MESH_INPUT_GUARD", "1", 1);
    }
    ~GuardBypass()
    {
        if (bypass_) ::unsetenv("GPUFEM_TEST_BYPASS_MESH_INPUT_GUARD");
    }
    GuardBypass(const GuardBypass&) = delete;
    GuardBypass& operator=(const GuardBypass&) = delete;

private:
    bool bypass_;
};

/// The spec `gpufem run` makes of a case's `mesh: {geo: mesh.geo}`, but with short time limits
/// (a loop or a huge mesh ends the worker within a few seconds), one Gmsh thread and no cache
/// file (every input is a new folder).
gpufem::MeshSpec geo_spec(const fs::path& script)
{
    gpufem::MeshSpec spec;
    spec.kind = gpufem::MeshSpec::Kind::geo;
    spec.path = script.string();
    spec.script_time_limit = 2;
    spec.time_limit = 5;
    spec.gmsh_threads = 1;
    spec.cache = false;
    return spec;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    gpufem::fuzz::use_sibling_mesh_worker();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const Watched watched;
    const fs::path folder = new_temporary_folder("gpufem_fuzz_geo_case_");
    const fs::path script = folder / "mesh.geo";
    write_file(script, watched.expand(std::string(reinterpret_cast<const char*>(data), size)));
    {
        const GuardBypass bypass(guard_bypassed_for(size));
        try {
            gpufem::load_mesh_isolated(geo_spec(script));
        } catch (const std::runtime_error&) {
            // a clear error naming the file
        } catch (const std::bad_alloc&) {
            // the worker ran out of memory, which gpufem reports as such (this process's own
            // large allocations are libFuzzer's -malloc_limit_mb findings)
        }
    }
    watched.check_untouched(script);
    fs::remove_all(folder);
    return 0;
}
