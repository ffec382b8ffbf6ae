#include "mesh/mesh_cache.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <spdlog/spdlog.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mesh/gmsh_session.hpp"
#include "mesh/mesh_serialisation.hpp"
#include "mesh/mesh_structure_check.hpp"
#include "mesh/stage_laps.hpp"

namespace gpufem {
namespace {

namespace fs = std::filesystem;

/// The first bytes of every cache file.
constexpr char cache_magic[8] = {'G', 'P', 'U', 'F', 'E', 'M', 'M', 'C'};

/// The payload's checksum is the SHA-256 of the SHA-256s of its pieces of this many bytes
/// (the last one shorter), so that a reader digests the pieces on all its threads.
constexpr std::size_t checksum_piece_bytes = std::size_t{4} << 20;

/// The payload checksum of `bytes` bytes at `data`, its pieces digested on the host's threads.
Sha256Digest payload_checksum(const char* data, std::size_t bytes)
{
    const auto pieces = static_cast<long long>((bytes + checksum_piece_bytes - 1) / checksum_piece_bytes);
    std::vector<Sha256Digest> digests(static_cast<std::size_t>(pieces));
#pragma omp parallel for schedule(dynamic, 1)
    for (long long k = 0; k < pieces; ++k) {
        const std::size_t first = static_cast<std::size_t>(k) * checksum_piece_bytes;
        digests[static_cast<std::size_t>(k)] = sha256_of(data + first, std::min(checksum_piece_bytes, bytes - first));
    }
    return sha256_of(digests.data(), digests.size() * sizeof(Sha256Digest));
}

/// Writes bytes to a file and digests them as they go, piece by piece as payload_checksum
/// reads them (the payload and its checksum).
struct DigestingFileSink {
    std::ofstream& out;
    std::vector<Sha256Digest> digests;        ///< of the finished pieces
    std::unique_ptr<Sha256> piece = nullptr;  ///< of the piece being written, if begun
    std::size_t in_piece = 0;                 ///< bytes of it so far

    void write_bytes(const void* data, std::size_t bytes)
    {
        out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
        const auto* next = static_cast<const char*>(data);
        while (bytes > 0) {
            if (!piece) piece = std::make_unique<Sha256>(), in_piece = 0;
            const std::size_t take = std::min(bytes, checksum_piece_bytes - in_piece);
            piece->update(next, take);
            next += take, bytes -= take, in_piece += take;
            if (in_piece == checksum_piece_bytes) digests.push_back(piece->finish()), piece.reset();
        }
    }
    /// The checksum of everything written.
    Sha256Digest finish()
    {
        if (piece) digests.push_back(piece->finish()), piece.reset();
        return sha256_of(digests.data(), digests.size() * sizeof(Sha256Digest));
    }
};

/// Writes bytes to a file (the header).
struct FileSink {
    std::ofstream& out;
    void write_bytes(const void* data, std::size_t bytes)
    {
        out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    }
};

/// Seconds since `start`.
double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// A file's bytes, mapped read-only (the kernel reads them in ahead of use); unmapped when
/// destroyed.
class FileBytes {
public:
    /// The whole file at `path`. Throws MeshCacheRefused when it cannot be read.
    explicit FileBytes(const fs::path& path)
    {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) throw MeshCacheRefused(std::string("it cannot be opened: ") + std::strerror(errno));
        struct stat info {};
        if (::fstat(fd, &info) != 0) {
            const int error = errno;
            ::close(fd);
            throw MeshCacheRefused(std::string("it cannot be read: ") + std::strerror(error));
        }
        size_ = static_cast<std::size_t>(info.st_size);
        if (size_ > 0) {
            void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
            if (mapped == MAP_FAILED) {
                const int error = errno;
                ::close(fd);
                throw MeshCacheRefused(std::string("it cannot be read whole: ") + std::strerror(error));
            }
            data_ = static_cast<const char*>(mapped);
        }
        ::close(fd);  // the mapping stays valid
    }
    FileBytes(const FileBytes&) = delete;
    FileBytes& operator=(const FileBytes&) = delete;
    ~FileBytes()
    {
        if (data_) ::munmap(const_cast<char*>(data_), size_);
    }
    const char* data() const { return data_; }
    std::size_t size() const { return size_; }

private:
    const char* data_ = nullptr;
    std::size_t size_ = 0;
};

/// The header of a cache file up to the payload's length, checked against `key`; returns the
/// payload's length.
std::uint64_t read_checked_header(Receiver<MemoryReader>& header, const MeshCacheKey& key)
{
    char magic[sizeof(cache_magic)] = {};
    header.channel.read_bytes(magic, sizeof(magic));
    if (std::memcmp(magic, cache_magic, sizeof(magic)) != 0)
        throw MeshCacheRefused("it is not a gpufem mesh cache file (its first bytes are not GPUFEMMC)");
    std::uint32_t version = 0;
    header.value(version);
    if (version != mesh_cache_format_version)
        throw MeshCacheRefused("its format version is " + std::to_string(version) + "; this gpufem reads version " +
                               std::to_string(mesh_cache_format_version));
    Sha256Digest digest{};
    header.value(digest);
    std::string material;
    header.text(material);
    if (digest != key.digest)
        throw MeshCacheRefused("it was written for another key (" + hex_digest(digest) + ", expected " +
                               hex_digest(key.digest) + ")");
    std::uint64_t payload = 0;
    header.value(payload);
    return payload;
}

/// The mesh of a payload whose checksum was verified, its structure checked.
Mesh mesh_of_payload(const char* payload, std::size_t bytes)
{
    MemoryReader reader(payload, bytes);
    Receiver receiver{reader};
    Mesh mesh;
    try {
        transfer_mesh(receiver, mesh);
        if (reader.readable_bytes() != 0)
            throw MeshSourceError(std::to_string(reader.readable_bytes()) + " bytes follow the mesh");
        check_mesh_structure(mesh);
    } catch (const std::length_error& error) {
        throw MeshCacheRefused(std::string("its mesh cannot be read: ") + error.what());
    } catch (const MeshSourceError& error) {
        throw MeshCacheRefused(std::string("its mesh is inconsistent: ") + error.what());
    }
    return mesh;
}

/// A temporary name beside `file`, unique to this process and call (several processes may
/// store the same mesh at once: each renames its own complete file).
fs::path temporary_name(const fs::path& file)
{
    static std::atomic<unsigned> calls{0};
    return fs::path(file.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(calls++));
}

/// Writes the cache file's bytes to `out`: the header, the payload and its checksum.
void write_cache_bytes(std::ofstream& out, const MeshCacheKey& key, const Mesh& mesh)
{
    ByteCounter counter;
    Sender<ByteCounter> counting{counter};
    transfer_mesh(counting, mesh);
    FileSink file{out};
    Sender header{file};
    file.write_bytes(cache_magic, sizeof(cache_magic));
    header.value(mesh_cache_format_version);
    header.value(key.digest);
    header.text(key.material);
    header.value(counter.bytes);
    DigestingFileSink digesting{out};
    Sender payload{digesting};
    transfer_mesh(payload, mesh);
    header.value(digesting.finish());
}

/// The mesh of the cache file of `key` when there is one that passes every check; a refused
/// file is logged and noted in `status`.
/// The mesh in key's cache file (status: hit), none when there is no file or it is refused
/// (status: why, logged). The reading time goes into its build_times; `quiet`: the hit is not
/// logged (a read ahead is logged when it is taken).
std::optional<Mesh> load_from_cache(const MeshCacheKey& key, MeshCacheStatus& status, bool quiet = false)
{
    std::error_code error;
    if (!fs::exists(key.file, error)) return std::nullopt;
    const auto start = std::chrono::steady_clock::now();
    try {
        Mesh mesh = read_mesh_cache_file(key);
        const double seconds = seconds_since(start);
        mesh.build_times = {0.0, seconds};
        if (!quiet)
            spdlog::info("mesh: from the cache {} ({} cells, {:.3f} s)", key.file.string(), mesh.num_cells(), seconds);
        status.outcome = MeshCacheStatus::Outcome::hit;
        return mesh;
    } catch (const MeshCacheRefused& refused) {
        spdlog::warn("mesh: the cache file {} is refused: {}; meshing again", key.file.string(), refused.what());
        status.refused = refused.what();
        return std::nullopt;
    }
}

/// A cache file read on a thread of its own while the run starts (read_mesh_cache_ahead),
/// until the load of its mesh takes it.
struct CacheReadAhead {
    /// What the thread read: the mesh (none when refused) and what the cache did.
    struct Read {
        std::optional<Mesh> mesh;
        MeshCacheStatus status;
    };
    fs::path file;
    std::future<Read> read;
};

std::mutex read_ahead_mutex;
std::optional<CacheReadAhead> read_ahead;

/// What was read ahead from `file` (taken; none when nothing was, or another file).
std::optional<CacheReadAhead> take_read_ahead(const fs::path& file)
{
    const std::lock_guard lock(read_ahead_mutex);
    if (!read_ahead || read_ahead->file != file) return std::nullopt;
    std::optional<CacheReadAhead> taken = std::move(read_ahead);
    read_ahead.reset();
    return taken;
}

/// The mesh of key's cache file: the read ahead's when it read that file (waited for), else
/// read now. Logs a hit; a refusal is logged where it happened.
std::optional<Mesh> mesh_from_cache(const MeshCacheKey& key, MeshCacheStatus& status)
{
    std::optional<CacheReadAhead> ahead = take_read_ahead(key.file);
    if (!ahead) return load_from_cache(key, status);
    const auto start = std::chrono::steady_clock::now();
    CacheReadAhead::Read read = ahead->read.get();  // rethrows what the thread could not handle
    const double waited = seconds_since(start);
    status.outcome = read.status.outcome;
    status.refused = read.status.refused;
    std::optional<Mesh>& mesh = read.mesh;
    if (!mesh) return std::nullopt;
    spdlog::info("mesh: from the cache {} ({} cells, read in {:.3f} s while the run started; {:.3f} s waited for)",
                 key.file.string(), mesh->num_cells(), mesh->build_times.gpufem, waited);
    mesh->build_times = {0.0, waited};  // the mesh phase's share of the reading
    return std::move(mesh);  // a member of a local: returned by name it would be copied
}

/// Stores `mesh` in the cache file of `key`; a failure is logged and noted in `status`.
void store_in_cache(const MeshCacheKey& key, const Mesh& mesh, MeshCacheStatus& status)
{
    const auto start = std::chrono::steady_clock::now();
    try {
        write_mesh_cache_file(key, mesh);
        spdlog::info("mesh: cached to {} ({:.3f} s)", key.file.string(), seconds_since(start));
        status.outcome = MeshCacheStatus::Outcome::stored;
    } catch (const std::exception& error) {
        spdlog::warn("mesh: the cache file {} cannot be written ({}); going on without the cache",
                     key.file.string(), error.what());
        status.outcome = MeshCacheStatus::Outcome::not_stored;
        status.reason = error.what();
    }
}

}  // namespace

std::string MeshCacheStatus::describe() const
{
    if (!refused.empty() && outcome != Outcome::hit) return "refused: " + refused;
    switch (outcome) {
    case Outcome::hit: return "hit";
    case Outcome::stored: return "stored";
    case Outcome::not_stored: return "not stored: " + reason;
    case Outcome::off: break;
    }
    return "off: " + reason;
}

Mesh read_mesh_cache_file(const MeshCacheKey& key)
{
    StageLaps laps;
    const FileBytes bytes(key.file);
    laps.lap("read");
    MemoryReader reader(bytes.data(), bytes.size());
    Receiver header{reader};
    std::uint64_t payload = 0;
    try {
        payload = read_checked_header(header, key);
    } catch (const std::length_error&) {
        throw MeshCacheRefused("it ends inside its header (" + std::to_string(bytes.size()) + " bytes)");
    }
    const char* start = bytes.data() + (bytes.size() - reader.readable_bytes());
    Sha256Digest stored{};
    if (reader.readable_bytes() < stored.size() || payload != reader.readable_bytes() - stored.size())
        throw MeshCacheRefused("its payload length (" + std::to_string(payload) + " bytes) does not match the file's size (" +
                               std::to_string(bytes.size()) + " bytes)");
    std::memcpy(stored.data(), start + payload, stored.size());
    if (payload_checksum(start, payload) != stored)
        throw MeshCacheRefused("its checksum does not match its payload (the file is damaged)");
    laps.lap("checksum");
    Mesh mesh = mesh_of_payload(start, payload);
    laps.lap("decoded and checked");
    spdlog::debug("mesh cache file of {} bytes: {}", bytes.size(), laps.text);
    return mesh;
}

void write_mesh_cache_file(const MeshCacheKey& key, const Mesh& mesh)
{
    std::error_code error;
    fs::create_directories(key.file.parent_path(), error);
    if (error) throw std::runtime_error("cannot create the folder " + key.file.parent_path().string() + ": " + error.message());
    const fs::path temporary = temporary_name(key.file);
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error("cannot create " + temporary.string() + ": " + std::strerror(errno));
        write_cache_bytes(out, key, mesh);
        out.close();
        if (!out) {
            fs::remove(temporary, error);
            throw std::runtime_error("cannot write " + temporary.string() + " (disk full?)");
        }
    }
    fs::rename(temporary, key.file, error);
    if (error) {
        fs::remove(temporary, error);
        throw std::runtime_error("cannot rename the written file to " + key.file.string() + ": " + error.message());
    }
}

Mesh cached_gmsh_mesh(const MeshSpec& spec, const std::function<GmshMesh()>& make, MeshCacheStatus* status)
{
    MeshCacheStatus own;
    MeshCacheStatus& result = status ? *status : own;
    result = {};
    const MeshCacheLookup lookup = mesh_cache_key(spec);
    if (!lookup.key) {
        result.reason = lookup.not_cached;
        if (spec.cache) spdlog::info("mesh: not cached: {}", lookup.not_cached);
        return make().mesh;
    }
    for (const MeshCacheKey* key : {&*lookup.key, &*lookup.degree_order_key}) {
        result.file = key->file.string();
        if (std::optional<Mesh> cached = mesh_from_cache(*key, result)) {
            cached->source = gmsh_mesh_source(spec);  // stored by a run of maybe another degree
            return std::move(*cached);
        }
    }
    GmshMesh made = make();
    const MeshCacheKey& key = lookup.key_for(made.order_from_degree);
    result.file = key.file.string();
    store_in_cache(key, made.mesh, result);
    return std::move(made.mesh);
}

bool read_mesh_cache_ahead(const MeshSpec& spec)
{
    const MeshCacheLookup lookup = mesh_cache_key(spec);
    if (!lookup.key) return false;
    std::error_code error;
    for (const MeshCacheKey* key : {&*lookup.key, &*lookup.degree_order_key}) {
        if (!fs::exists(key->file, error)) continue;
        const std::lock_guard lock(read_ahead_mutex);
        if (read_ahead) return true;  // one at a time
        CacheReadAhead& ahead = read_ahead.emplace();
        ahead.file = key->file;
        ahead.read = std::async(std::launch::async, [key = *key] {
            CacheReadAhead::Read read;
            read.mesh = load_from_cache(key, read.status, /*quiet=*/true);
            return read;
        });
        return true;
    }
    return false;
}

bool mesh_cache_file_present(const MeshSpec& spec)
{
    const MeshCacheLookup lookup = mesh_cache_key(spec);
    std::error_code error;
    return lookup.key && (fs::exists(lookup.key->file, error) || fs::exists(lookup.degree_order_key->file, error));
}

}  // namespace gpufem
