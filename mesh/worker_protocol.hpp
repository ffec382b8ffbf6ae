#pragma once
// Internal to mesh/: the mesh worker's protocol, shared by gpufem's side (mesh_worker.cpp) and
// the worker's (mesh_worker_server.cpp): the reply codes, whole reads and writes over a pipe
// with a deadline, and the request's and the reply's fields in order.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstddef>

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
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

    /// From now on, pieces of at least `lent_piece_bytes` go into the pipe as references to
    /// the caller's pages (vmsplice) instead of copies: the reader's read() is then the only
    /// copy. The caller must leave those bytes unchanged (and allocated) until
    /// wait_until_read() returns. Where the descriptor is not a pipe, pieces are copied.
    void lend_large_pieces() { lend_pages_ = true; }

    void write_bytes(const void* data, std::size_t bytes)
    {
        const char* at = static_cast<const char*>(data);
        const bool lend = lend_pages_ && bytes >= lent_piece_bytes;
        while (bytes > 0) {
            const ssize_t done = lend ? splice_or_write(at, bytes) : ::write(fd_, at, bytes);
            if (done < 0 && errno == EINTR) continue;
            if (done <= 0) throw ChannelClosed{};
            at += done;
            bytes -= static_cast<std::size_t>(done);
        }
    }

    /// Waits until the reader has read every byte written (none left in the pipe) or has
    /// closed its end: the lent pages may then change.
    void wait_until_read() const
    {
        if (!lent_any_) return;
        for (;;) {
            int unread = 0;
            if (::ioctl(fd_, FIONREAD, &unread) != 0 || unread == 0) return;
            pollfd reader_gone{fd_, 0, 0};
            if (::poll(&reader_gone, 1, 1) > 0) return;  // POLLERR: the read end is closed
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

    /// vmsplice of one piece; where the descriptor refuses it (not a pipe), write() from now on.
    ssize_t splice_or_write(const char* at, std::size_t bytes)
    {
        if (lend_pages_) {
            iovec piece{const_cast<char*>(at), bytes};
            const ssize_t done = ::vmsplice(fd_, &piece, 1, 0);
            if (done > 0) lent_any_ = true;
            if (done >= 0 || errno == EINTR || errno == EPIPE) return done;
            lend_pages_ = false;
        }
        return ::write(fd_, at, bytes);
    }

    static constexpr std::size_t lent_piece_bytes = std::size_t{1} << 16;
    int fd_;
    bool lend_pages_ = false;
    bool lent_any_ = false;
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
