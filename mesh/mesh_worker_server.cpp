// The mesh worker's side (gpufem-mesh-worker): reads a request, enters the sandbox and has
// Gmsh read or make the mesh in this process, then writes the mesh or the error back.
#include <new>
#include <optional>
#include <string>

#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include "linalg/host_memory.hpp"
#include "linalg/host_threads.hpp"
#include "mesh/gmsh_mesh.hpp"
#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_worker.hpp"
#include "mesh/worker_inputs.hpp"
#include "mesh/worker_protocol.hpp"
#include "mesh/worker_sandbox.hpp"

namespace gpufem {
namespace {

using namespace worker_protocol;

/// The worker's meshing: the sandbox entered (its input files opened into `inputs` first)
/// unless spec allows commands, then load_gmsh_mesh; `out` gets the script_read note.
GmshMesh load_in_sandbox(const MeshSpec& spec, Channel& out, std::optional<SandboxedInputs>& inputs)
{
    GmshReadOptions read;
    if (spec.allow_commands) {
        spdlog::debug("mesh worker: mesh.allow_commands: true: Gmsh runs without the sandbox");
    } else {
        inputs.emplace(spec);
        spdlog::debug(enter_worker_sandbox(inputs->reads()));
        read = inputs->read_options();
    }
    read.script_read = [&out] {
        try {
            Sender<Channel>{out}.value(WorkerReply::script_read);
        } catch (const ChannelClosed&) {
            // gpufem is gone or stopped waiting; the reply fails the same way.
        }
    };
    return load_gmsh_mesh_and_order(spec, read);
}

}  // namespace

int run_mesh_worker()
{
    spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug, inherited from gpufem: the debug lines
    // The reply goes to the original standard output; whatever a library prints there from
    // now on goes to standard error instead of into the reply.
    const int reply_fd = ::dup(STDOUT_FILENO);
    if (reply_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return 1;
    Channel in(STDIN_FILENO), out(reply_fd);
    // This process meshes one request and ends: Gmsh's model is not freed before the reply.
    GmshSession::leave_model_to_process_end();
    MeshSpec spec;
    int threads = 1;
    try {
        Receiver receiver{in};
        transfer_spec(receiver, spec, threads);
    } catch (const ChannelClosed&) {
        return 1;
    }
    // Gmsh may use at most the machine's physical memory (address space): a mesh too large
    // fails in the worker instead of pushing the host into swap.
    // (Not under AddressSanitizer, whose shadow memory reserves terabytes of address space.)
    if (!built_with_address_sanitizer()) {
        const auto memory = static_cast<rlim_t>(physical_host_bytes());
        const rlimit limit{memory, memory};
        setrlimit(RLIMIT_AS, &limit);
    }
    WorkerReply reply = WorkerReply::mesh;
    std::string message;
    GmshMesh made;
    std::optional<SandboxedInputs> inputs;
    try {
        set_host_threads(threads);
        made = load_in_sandbox(spec, out, inputs);
    } catch (const std::bad_alloc&) {
        reply = WorkerReply::out_of_memory;
        message = "out of memory";
    } catch (const std::exception& error) {
        reply = WorkerReply::error;
        message = inputs ? inputs->named(error.what()) : error.what();
    }
    try {
        // The mesh's arrays go into the pipe as references to their pages (gpufem's read is
        // the one copy), so `made` stays unchanged until gpufem has read them all.
        out.lend_large_pieces();
        Sender sender{out};
        sender.value(reply);
        if (reply == WorkerReply::mesh)
            transfer_gmsh_mesh(sender, made);
        else
            sender.text(message);
        out.wait_until_read();
    } catch (const ChannelClosed&) {
        return 1;
    }
    return 0;
}

}  // namespace gpufem
