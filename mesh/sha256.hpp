#pragma once
// SHA-256 digests (OpenSSL's EVP interface), for the mesh cache's keys and checksums.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace gpufem {

/// A SHA-256 digest.
using Sha256Digest = std::array<std::uint8_t, 32>;

/// A SHA-256 computed over data given in pieces.
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    /// Adds `bytes` bytes at `data`.
    void update(const void* data, std::size_t bytes);
    /// Adds the bytes of `text`.
    void update(const std::string& text) { update(text.data(), text.size()); }
    /// The digest of everything added; the object takes no more data after it.
    Sha256Digest finish();

private:
    struct Context;
    std::unique_ptr<Context> context_;
};

/// The SHA-256 of `bytes` bytes at `data`.
Sha256Digest sha256_of(const void* data, std::size_t bytes);

/// The digest's first `bytes` bytes in lower-case hexadecimal (all of them by default).
std::string hex_digest(const Sha256Digest& digest, std::size_t bytes = 32);

}  // namespace gpufem
