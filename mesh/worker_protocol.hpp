#pragma once
// Internal to mesh/: the mesh worker's protocol, shared by gpufem's side (mesh_worker.cpp) and
// the worker's (mesh_worker_server.cpp): the reply codes, whole reads and writes over a pipe
// with a deadline, and the request's and the reply's fields in order.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstddef>

#include <poll.h>
#include <unistd.h>

#include "mesh/mesh_serialisation.hpp"

namespace gpufem::worker_protocol {

/// Reply codes of the worker.
/// script_read comes first, for a .geo, once Gmsh has evaluated the script (before meshing).
enum class WorkerReply : std::uint8_t { mesh = 0, error = 1, out_of_memory = 2, script_read = 3 };

/// Raised when the other end of the pipe closed early.
struct ChannelClosed {};
/// Raised when the worker did not answer before the deadline; `script` when that was the
/// deadline of evaluating a .geo script (mesh.script_time_limit).
struct TimedOut {
    bool script = false;
};

/// Whole writes and reads of bytes over a file descriptor.
class Channel {
public:
    explicit Channel(int fd) : fd_(fd) {}

    void write_bytes(const void* data, std::size_t bytes)
    {
        const char* at = static_cast<const char*>(data);
        while (bytes > 0) {
            const ssize_t done = ::write(fd_, at, bytes);
            if (done < 0 && errno == EINTR) continue;
            if (done <= 0) throw ChannelClosed{};
            at += done;
            bytes -= static_cast<std::size_t>(done);
        }
    }
    /// Reads wait at most until the deadline (none by default); past it they throw TimedOut.
    /// `script`: the deadline is mesh.script_time_limit's (TimedOut says so).
    void set_deadline(std::chrono::steady_clock::time_point deadline, bool script = false)
    {
        deadline_ = deadline;
        script_deadline_ = script;
    }

    void read_bytes(void* data, std::size_t bytes)
    {
        char* at = static_cast<char*>(data);
        while (bytes > 0) {
            wait_readable();
            const ssize_t done = ::read(fd_, at, bytes);
            if (done < 0 && errno == EINTR) continue;
            if (done <= 0) throw ChannelClosed{};
            at += done;
            bytes -= static_cast<std::size_t>(done);
            received_ += static_cast<std::size_t>(done);
        }
    }

    /// The bytes read so far.
    std::size_t received() const { return received_; }

private:
    void wait_readable()
    {
        if (deadline_ == std::chrono::steady_clock::time_point::max()) return;
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline_ - std::chrono::steady_clock::now());
            if (left.count() <= 0) throw TimedOut{script_deadline_};
            pollfd ready{fd_, POLLIN, 0};
            const int waited = ::poll(&ready, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
            if (waited > 0) return;
            if (waited < 0 && errno != EINTR) return;  // let read() report the error
        }
    }

    int fd_;
    std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
    bool script_deadline_ = false;
    std::size_t received_ = 0;
};

/// The request: the mesh source and the worker's thread count.
template <typename Io, typename Spec, typename Threads>
void transfer_spec(Io& io, Spec& spec, Threads& threads)
{
    io.value(spec.kind);
    io.text(spec.path);
    io.text(spec.shape);
    io.text(spec.elements);
    io.value(spec.size);
    io.value(spec.refine);
    io.value(spec.allow_commands);
    io.value(spec.degree);
    io.value(spec.geometry_order);
    io.value(spec.file_order);
    io.value(spec.gmsh_nodes);
    io.value(spec.snap_to_geometry);
    io.value(spec.gmsh_threads);
    io.value(threads);
}

/// The reply's mesh: Gmsh's mesh, then whether the degree chose its cells' order.
template <typename Io, typename Made>
void transfer_gmsh_mesh(Io& io, Made& made)
{
    transfer_mesh(io, made.mesh);
    io.value(made.order_from_degree);
}

}  // namespace gpufem::worker_protocol
