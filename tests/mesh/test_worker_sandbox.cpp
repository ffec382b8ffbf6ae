// The mesh worker's operating-system sandbox holds on its own: hostile Gmsh input, with the
// friendly input guard bypassed (GPUFEM_TEST_BYPASS_MESH_INPUT_GUARD), runs in the real
// gpufem-mesh-worker and must never create a marker file, delete or change a victim file or
// show a secret file's content; each run ends in a clear error. Also: a script loop stops at
// mesh.script_time_limit, the worker dies with its parent, the cases' .geo files mesh the
// same in the sandboxed worker as without the sandbox, and seccomp and Landlock each hold alone.
#include <cerrno>
#include <cmath>
#include <chrono>
#include <csignal>
#include <functional>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_worker.hpp"
#include "mesh/worker_sandbox.hpp"
#include "tests/mesh/mesh_test_support.hpp"

namespace gpufem {
namespace {

namespace fs = std::filesystem;

/// The gpufem-mesh-worker built next to this test.
std::string real_worker()
{
    return (fs::read_symlink("/proc/self/exe").parent_path() / "gpufem-mesh-worker").string();
}

/// A file's whole content ("" when missing).
std::string content_of(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Sets the test-only variable that skips the friendly input guard, for one scope.
class GuardBypassed {
public:
    GuardBypassed() { ::setenv("GPUFEM_TEST_BYPASS_MESH_INPUT_GUARD", "1", 1); }
    ~GuardBypassed() { ::unsetenv("GPUFEM_TEST_BYPASS_MESH_INPUT_GUARD"); }
    GuardBypassed(const GuardBypassed&) = delete;
    GuardBypassed& operator=(const GuardBypassed&) = delete;
};

/// A case folder for the hostile input and, outside it, the files it must not touch.
struct HostileSetting {
    test::TempFolder case_folder, outside;
    fs::path marker = outside / "marker";
    fs::path victim = outside.write("victim.txt", "victim content\n");
    std::string secret_text = "8675309 424242 SECRET_TOKEN_71";
    fs::path secret = outside.write("secret.txt", secret_text + "\n");

    /// `text` with {MARKER}, {VICTIM}, {SECRET} and {OUTSIDE} replaced by the paths.
    std::string expand(std::string text) const
    {
        const std::pair<std::string, std::string> names[] = {
            {"{MARKER}", marker.string()}, {"{VICTIM}", victim.string()},
            {"{SECRET}", secret.string()}, {"{OUTSIDE}", outside.path().string()}};
        for (const auto& [name, value] : names)
            for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name))
                text.replace(at, name.size(), value);
        return text;
    }
};

/// The message of meshing `spec` in the real worker ("" when it meshed).
std::string worker_message(const MeshSpec& spec)
{
    try {
        load_mesh_in_worker(spec, real_worker(), 1);
    } catch (const MeshSourceError& error) {
        return error.what();
    }
    return "";
}

/// Runs a .geo script (its {NAMES} expanded) through the worker with the guard bypassed and
/// checks that the sandbox held; returns the message.
std::string run_hostile_geo(const HostileSetting& setting, const std::string& script,
                            const std::string& options = "")
{
    // (Gmsh skips a last statement without its end of line.)
    const fs::path geo = setting.case_folder.write("hostile.geo", setting.expand(script) + "\n");
    if (!options.empty()) setting.case_folder.write("hostile.geo.opt", setting.expand(options) + "\n");
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = geo.string();
    spec.time_limit = 60;
    spec.script_time_limit = 20;
    const GuardBypassed bypass;
    const std::string message = worker_message(spec);
    EXPECT_FALSE(fs::exists(setting.marker)) << "the marker was created";
    EXPECT_EQ(content_of(setting.victim), "victim content\n") << "the victim was changed or deleted";
    EXPECT_EQ(message.find("SECRET_TOKEN_71"), std::string::npos) << message;
    EXPECT_EQ(message.find("8675309"), std::string::npos) << message;
    EXPECT_EQ(message.find("/proc/self/fd"), std::string::npos) << message;  // files by their names
    return message;
}

/// A square geometry, so that what fails is the hostile line and not a missing surface.
const std::string square_geo = R"(
Point(1) = {0, 0, 0, 0.5}; Point(2) = {1, 0, 0, 0.5}; Point(3) = {1, 1, 0, 0.5}; Point(4) = {0, 1, 0, 0.5};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
Physical Curve("boundary") = {1, 2, 3, 4}; Physical Surface("domain") = {1};
)";

TEST(WorkerSandbox, ProgramsAreNeverRun)
{
    const HostileSetting setting;
    for (const std::string script : {
             "System \"touch {MARKER}\";", "SystemCall \"touch {MARKER}\";",
             "NonBlockingSystemCall \"touch {MARKER}\";", "OnelabRun(\"x\", \"touch {MARKER}\");",
             "StringToName[StrCat(\"Sys\", \"tem\")] \"touch {MARKER}\";",
             // What hid System from the old lexer: escapes, quotes and comment openers in strings.
             "s = \"a\\\"; System \"touch {MARKER}\"; t = \"b\";",
             "s = 'a\"'; System \"touch {MARKER}\"; t = '\"';",
             "s = '//'; System \"touch {MARKER}\";", "s = '/*'; System \"touch {MARKER}\"; t = '*/';"}) {
        SCOPED_TRACE(script);
        const std::string message = run_hostile_geo(setting, square_geo + script);
        EXPECT_NE(message.find("'" + (setting.case_folder / "hostile.geo").string() + "'"), std::string::npos)
            << message;
        // OnelabRun connects to a socket first, which the sandbox refuses.
        EXPECT_TRUE(message.find("sandbox forbids") != std::string::npos ||
                    message.find("Couldn't create socket") != std::string::npos)
            << message;
    }
}

TEST(WorkerSandbox, GmshMessagesNameTheFile)
{
    // Gmsh reads the input through /proc/self/fd/N in the sandbox; its messages name the file.
    const HostileSetting setting;
    const std::string message = run_hostile_geo(setting, square_geo + "Point(9) = {0, 0;");
    const std::string geo = (setting.case_folder / "hostile.geo").string();
    EXPECT_NE(message.find("Gmsh error: '" + geo + "', line 6"), std::string::npos) << message;
}

TEST(WorkerSandbox, FilesAreNeverWrittenOrDeleted)
{
    const HostileSetting setting;
    for (const std::string script : {
             "Printf(\"pwned\") > \"{MARKER}\";", "Printf(\"pwned\") >> \"{VICTIM}\";",
             "Save \"{MARKER}\";", "Save \"{VICTIM}\";", "Print \"{MARKER}\";",
             // Commands of later Gmsh versions (unknown to 4.8, an error there).
             "DeleteFile \"{VICTIM}\";", "RenameFile \"{VICTIM}\" \"{MARKER}\";"}) {
        SCOPED_TRACE(script);
        const std::string message = run_hostile_geo(setting, square_geo + script);
        EXPECT_NE(message.find("Gmsh error"), std::string::npos) << message;
    }
    // Gmsh ignores a folder it could not create: the mesh is made, without the folder.
    run_hostile_geo(setting, square_geo + "CreateDir \"{MARKER}\";");
    // Gmsh deletes General.TmpFileName (relative to the home folder) when it ends.
    const std::string home = std::getenv("HOME") != nullptr ? std::getenv("HOME") : "/";
    const std::string up = fs::relative("/", home).string();
    SCOPED_TRACE("General.TmpFileName");
    run_hostile_geo(setting, square_geo + "General.TmpFileName = \"" + up + "{VICTIM}\";");
}

TEST(WorkerSandbox, FilesOutsideTheInputAreNeverRead)
{
    const HostileSetting setting;
    setting.outside.write("evil.geo", setting.expand("System \"touch {MARKER}\";\n"));
    for (const std::string script : {
             "x() = ListFromFile[\"{SECRET}\"]; Printf(\"%g\", x(0));",
             "Include \"{OUTSIDE}/evil.geo\";", "Merge \"{OUTSIDE}/evil.geo\";",
             "MergeWithBoundingBox \"{OUTSIDE}/evil.geo\";",
             "SetFactory(\"OpenCASCADE\"); v() = ShapeFromFile(\"{OUTSIDE}/evil.geo\");",
             "Include \"{SECRET}\";"}) {
        SCOPED_TRACE(script);
        // Without Landlock (an older kernel) reads are not confined: only the friendly guard
        // refuses these.
        EXPECT_NE(run_hostile_geo(setting, script), "");
    }
}

TEST(WorkerSandbox, IncludedFilesAreReadAndNoOtherFileOfTheFolder)
{
    const HostileSetting setting;
    setting.case_folder.write("size.geo", "h = 0.25;\n");
    setting.case_folder.write("hidden.geo", "h = 0.25;\n");
    std::string sized = square_geo;  // the square with its size from the variable h
    for (std::size_t at = sized.find("0.5}"); at != std::string::npos; at = sized.find("0.5}"))
        sized.replace(at, 4, "h}");
    const fs::path geo = setting.case_folder.write("sized.geo", "Include \"size.geo\";\n" + sized + "\n");
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = geo.string();
    const Mesh included = load_mesh_in_worker(spec, real_worker(), 1);
    spec.path = setting.case_folder.write("plain.geo", square_geo + "\n").string();
    EXPECT_GT(included.num_cells(), 2 * load_mesh_in_worker(spec, real_worker(), 1).num_cells());
    // A name the script makes at run time is not among the files the sandbox lets Gmsh read,
    // even in the input's own folder: h stays unknown.
    const std::string message = run_hostile_geo(setting, "Include StrCat(\"hid\", \"den.geo\");\n" + sized);
    if (landlock_abi_version() > 0) EXPECT_NE(message, "") << "hidden.geo was read";
    // Outside the sandbox (mesh.allow_commands) the same script reads it and meshes.
    spec.path = (setting.case_folder / "hostile.geo").string();
    spec.allow_commands = true;
    EXPECT_GT(load_mesh_in_worker(spec, real_worker(), 1).num_cells(), 0);
}

TEST(WorkerSandbox, CadFilesBesideTheScriptAreMergedInTheSandbox)
{
    // A STEP file beside the script (written by Gmsh outside the sandbox), imported by Merge
    // and by ShapeFromFile: OpenCASCADE reads it inside the sandbox.
    const HostileSetting setting;
    const fs::path maker = setting.case_folder.write(
        "make.geo", "SetFactory(\"OpenCASCADE\");\nBox(1) = {0, 0, 0, 1, 1, 1};\nSave \"part.step\";\n"
                    "Physical Volume(\"solid\") = {1};\n");
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = maker.string();
    spec.allow_commands = true;
    load_mesh_in_worker(spec, real_worker(), 1);
    ASSERT_TRUE(fs::is_regular_file(setting.case_folder / "part.step"));
    spec.allow_commands = false;
    for (const std::string& import : {std::string("Merge \"part.step\";\nv() = {1};"),
                                      std::string("v() = ShapeFromFile(\"part.step\");")}) {
        SCOPED_TRACE(import);
        spec.path = setting.case_folder
                        .write("import.geo", "SetFactory(\"OpenCASCADE\");\n" + import +
                                                 "\nMesh.MeshSizeMax = 0.25;\nPhysical Volume(\"solid\") = {v(0)};\n")
                        .string();
        const Mesh mesh = load_mesh_in_worker(spec, real_worker(), 1);
        EXPECT_GT(mesh.num_cells(), 50);
        double volume = 0;  // the unit box, from its tetrahedra
        for (index_type c = 0; c < mesh.num_cells(); ++c) {
            const index_type* v = &mesh.cells[static_cast<std::size_t>(c) * mesh.nodes_per_cell];
            const double* p[4];
            for (int k = 0; k < 4; ++k) p[k] = &mesh.coordinates[3 * static_cast<std::size_t>(v[k])];
            const double a[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
            const double b[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
            const double d[3] = {p[3][0] - p[0][0], p[3][1] - p[0][1], p[3][2] - p[0][2]};
            volume += std::abs(a[0] * (b[1] * d[2] - b[2] * d[1]) - a[1] * (b[0] * d[2] - b[2] * d[0]) +
                               a[2] * (b[0] * d[1] - b[1] * d[0])) / 6;
        }
        EXPECT_NEAR(volume, 1.0, 1e-9);
    }
}

TEST(WorkerSandbox, SidecarOptionsAreNeverRunUnchecked)
{
    const HostileSetting setting;
    const std::string message = run_hostile_geo(setting, square_geo, "System \"touch {MARKER}\";");
    EXPECT_NE(message.find("sandbox forbids"), std::string::npos) << message;
    // With the guard, the options file is named.
    const fs::path geo = setting.case_folder / "hostile.geo";
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = geo.string();
    const std::string refused = worker_message(spec);
    EXPECT_NE(refused.find("options file '" + geo.string() + ".opt'"), std::string::npos) << refused;
    EXPECT_NE(refused.find("line 1: 'System' is refused"), std::string::npos) << refused;
    EXPECT_FALSE(fs::exists(setting.marker));
}

TEST(WorkerSandbox, MeshFileSidecarAndScriptInAMeshFile)
{
    const HostileSetting setting;
    // A .msh made by Gmsh from the square, with a hostile FILE.opt next to it.
    test::TempFolder made;
    const fs::path msh = made / "square.msh";
    {
        const fs::path geo = made.write("square.geo", square_geo + "Mesh 2; Save \"" + msh.string() + "\";\n");
        MeshSpec spec;
        spec.kind = MeshSpec::Kind::geo;
        spec.path = geo.string();
        spec.allow_commands = true;
        EXPECT_EQ(worker_message(spec), "");
    }
    ASSERT_TRUE(fs::exists(msh));
    const fs::path copy = setting.case_folder / "square.msh";
    fs::copy_file(msh, copy);
    setting.case_folder.write("square.msh.opt", setting.expand("Printf(\"x\") > \"{MARKER}\";"));
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::file;
    spec.path = copy.string();
    {
        const GuardBypassed bypass;
        const std::string message = worker_message(spec);
        EXPECT_NE(message.find("Gmsh error"), std::string::npos) << message;
        // A "mesh file" that is a script runs in the sandbox too.
        spec.path = setting.case_folder.write("script.msh", setting.expand("System \"touch {MARKER}\";")).string();
        EXPECT_NE(worker_message(spec).find("sandbox forbids"), std::string::npos);
    }
    EXPECT_FALSE(fs::exists(setting.marker));
}

TEST(WorkerSandbox, FormatsThatCrashGmshAreErrors)
{
    // Gmsh's Printf passes its numbers to sprintf as doubles: %n writes to a garbage address
    // and %s reads one. The guard refuses %n; without it, what happens is undefined, but a
    // crash ends the worker only, named as such.
    const HostileSetting setting;
    const std::string message =
        run_hostile_geo(setting, square_geo + "Printf(\"%n %n %s %s %s %s\", 1, 2, 3, 4, 5, 6);");
    EXPECT_TRUE(message.empty() || message.find("Gmsh crashed") != std::string::npos) << message;
    const fs::path geo = setting.case_folder / "hostile.geo";
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = geo.string();
    const std::string refused = worker_message(spec);
    EXPECT_NE(refused.find("a %n format"), std::string::npos) << refused;
}

TEST(WorkerSandbox, ADamagedCountIsAnErrorNotOutOfMemory)
{
    // An element type past int's range makes Gmsh 4.8's MSH 2 reader allocate an array of a
    // negative length (std::bad_array_new_length, a std::bad_alloc): the damaged file is
    // named, in the worker and without it, rather than reported as memory running out.
    const test::TempFolder folder;
    const fs::path msh = folder.write("damaged.msh",
                                      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n"
                                      "3 0 1 0\n$EndNodes\n$Elements\n1\n1 17468245269455 0 0\n$EndElements\n");
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::file;
    spec.path = msh.string();
    const std::string expected = "mesh file '" + msh.string() + "': Gmsh error: a count in the input is negative";
    EXPECT_NE(worker_message(spec).find(expected), std::string::npos) << worker_message(spec);
    try {
        load_gmsh_mesh(spec);
        ADD_FAILURE() << "the damaged file was read";
    } catch (const MeshSourceError& error) {
        EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
    }
}

/// How long meshing `script` took and its message, with the script limit `seconds`.
std::pair<double, std::string> timed_script(const HostileSetting& setting, const std::string& script, double seconds)
{
    const fs::path geo = setting.case_folder.write("loop.geo", script);
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::geo;
    spec.path = geo.string();
    spec.script_time_limit = seconds;
    const GuardBypassed bypass;
    const auto start = std::chrono::steady_clock::now();
    const std::string message = worker_message(spec);
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), message};
}

TEST(WorkerSandbox, ScriptLoopStopsAtTheScriptTimeLimit)
{
    const HostileSetting setting;
    for (const std::string script : {"For i In {0:1e12}\n  x = i;\nEndFor\n", "Sleep 1000;\n"}) {
        SCOPED_TRACE(script);
        const auto [seconds, message] = timed_script(setting, script, 1);
        EXPECT_NE(message.find("'" + (setting.case_folder / "loop.geo").string() + "'"), std::string::npos) << message;
        EXPECT_NE(message.find("within mesh.script_time_limit (1 s)"), std::string::npos) << message;
        EXPECT_LT(seconds, 10.0);
    }
}

/// The pids whose parent is `parent` (from /proc).
std::vector<pid_t> children_of(pid_t parent)
{
    std::vector<pid_t> children;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream stat(entry.path() / "stat");
        std::string text;
        std::getline(stat, text);
        const std::size_t close = text.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(text.substr(close + 2));
        char state = 0;
        pid_t ppid = 0;
        rest >> state >> ppid;
        if (ppid == parent) children.push_back(std::stoi(name));
    }
    return children;
}

/// Starts a launcher process that meshes an endless script through the worker, waits for its
/// worker, sends the launcher `signal` and returns whether the worker was gone within 1 s.
bool worker_dies_with_launcher(int signal)
{
    HostileSetting setting;
    const fs::path geo = setting.case_folder.write("loop.geo", "For i In {0:1e12}\n  x = i;\nEndFor\n");
    // Orphans come to this process, which reaps them: a killed worker is then really gone.
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    const GuardBypassed bypass;
    const pid_t launcher = ::fork();
    if (launcher == 0) {
        MeshSpec spec;
        spec.kind = MeshSpec::Kind::geo;
        spec.path = geo.string();
        try {
            load_mesh_in_worker(spec, real_worker(), 1);
        } catch (...) {
        }
        ::_exit(0);
    }
    std::vector<pid_t> workers;
    for (int i = 0; i < 500 && workers.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        workers = children_of(launcher);
    }
    if (workers.size() != 1) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // Gmsh is in the loop
    ::kill(launcher, signal);
    ::waitpid(launcher, nullptr, 0);
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::seconds(1)) {
        if (::waitpid(workers[0], nullptr, WNOHANG) == workers[0]) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ::kill(workers[0], SIGKILL);
    ::waitpid(workers[0], nullptr, 0);
    return false;
}

TEST(WorkerSandbox, WorkerDiesWithItsParent)
{
    EXPECT_TRUE(worker_dies_with_launcher(SIGKILL));
    EXPECT_TRUE(worker_dies_with_launcher(SIGTERM));
}

/// Expects the same mesh.
void expect_same_mesh(const Mesh& one, const Mesh& other)
{
    EXPECT_GT(one.num_cells(), 0);
    EXPECT_EQ(one.coordinates, other.coordinates);
    EXPECT_EQ(one.cells, other.cells);
    EXPECT_EQ(one.cell_group, other.cell_group);
    ASSERT_EQ(one.boundaries.size(), other.boundaries.size());
    for (std::size_t b = 0; b < one.boundaries.size(); ++b)
        EXPECT_EQ(one.boundaries[b].connectivity, other.boundaries[b].connectivity);
}

/// The mesh of `spec` made in the sandboxed worker is the one made without the sandbox, in the
/// worker (mesh.allow_commands) and in this process.
void expect_same_mesh_in_worker(MeshSpec spec)
{
    const Mesh sandboxed = load_mesh_in_worker(spec, real_worker(), 1);
    expect_same_mesh(sandboxed, load_gmsh_mesh(spec));
    spec.allow_commands = true;
    expect_same_mesh(sandboxed, load_mesh_in_worker(spec, real_worker(), 1));
}

TEST(WorkerSandbox, CaseGeometriesMeshAsBefore)
{
    // (Not cube.geo: Gmsh's HXT volumes vary by a few cells from run to run.)
    for (const std::string name : {"plate_with_hole.geo", "square_mixed.geo", "cube_layers.geo", "cube_prisms.geo",
                                   "heat_sink.geo", "square.geo"}) {
        SCOPED_TRACE(name);
        MeshSpec spec;
        spec.kind = MeshSpec::Kind::geo;
        spec.path = std::string(GPUFEM_SOURCE_DIR) + "/cases/meshes/" + name;
        spec.size = 0.25;
        expect_same_mesh_in_worker(spec);
    }
}

}  // namespace
}  // namespace gpufem

namespace gpufem {
namespace {

/// Runs `body` in a child process and returns its wait status (the sandbox is for good, so it
/// is never entered in the test process itself).
int in_child(const std::function<int()>& body)
{
    const pid_t child = ::fork();
    if (child == 0) ::_exit(body());
    int status = 0;
    ::waitpid(child, &status, 0);
    return status;
}

TEST(WorkerSandbox, SeccompAloneRefusesWritesAndProcessesButNotThreads)
{
    // The seccomp layer on its own, as on a kernel without Landlock.
    test::TempFolder folder;
    const fs::path victim = folder.write("victim.txt", "victim content\n");
    const fs::path marker = folder / "marker";
    const int status = in_child([&] {
        install_worker_seccomp_filter();
        if (::open(marker.c_str(), O_WRONLY | O_CREAT, 0644) >= 0 || errno != EACCES) return 10;
        if (::open(victim.c_str(), O_RDWR) >= 0 || errno != EACCES) return 11;
        if (::unlink(victim.c_str()) == 0 || errno != EPERM) return 12;
        if (::rename(victim.c_str(), marker.c_str()) == 0 || errno != EPERM) return 13;
        if (::socket(AF_INET, SOCK_STREAM, 0) >= 0 || errno != EPERM) return 14;
        const int readable = ::open(victim.c_str(), O_RDONLY);
        if (readable < 0) return 15;
        ::close(readable);
        int value = 0;
        std::thread([&value] { value = 1; }).join();  // threads are allowed
        if (value != 1) return 16;
        ::fork();  // ends the process with SIGSYS
        return 17;
    });
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
        << (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status)) : "signal");
    EXPECT_EQ(content_of(victim), "victim content\n");
    EXPECT_FALSE(fs::exists(marker));
}

TEST(WorkerSandbox, LandlockAloneConfinesReadsToTheInput)
{
    if (landlock_abi_version() == 0) GTEST_SKIP() << "the kernel has no Landlock";
    test::TempFolder folder;
    const fs::path input = folder.write("input.geo", "Point(1) = {0, 0, 0};\n");
    const fs::path secret = folder.write("secret.txt", "SECRET_TOKEN_71\n");
    const int status = in_child([&] {
        const int fd = ::open(input.c_str(), O_RDONLY);
        if (restrict_files_with_landlock(SandboxReads{{fd}}) == 0) return 20;
        const int again = ::open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_RDONLY);
        if (again < 0) return 21;  // the input, reopened as Gmsh does
        if (::open(secret.c_str(), O_RDONLY) >= 0 || errno != EACCES) return 22;
        if (::open((folder / "new").c_str(), O_WRONLY | O_CREAT, 0644) >= 0) return 23;
        if (::unlink(secret.c_str()) == 0) return 24;
        return 0;
    });
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status)) : "signal");
    EXPECT_TRUE(fs::exists(secret));
}

}  // namespace
}  // namespace gpufem
