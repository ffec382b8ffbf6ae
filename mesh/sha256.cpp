#include "mesh/sha256.hpp"

#include <stdexcept>

#include <openssl/evp.h>

namespace gpufem {

/// OpenSSL's digest context.
struct Sha256::Context {
    EVP_MD_CTX* md = nullptr;
};

Sha256::Sha256() : context_(std::make_unique<Context>())
{
    context_->md = EVP_MD_CTX_new();
    if (!context_->md || EVP_DigestInit_ex(context_->md, EVP_sha256(), nullptr) != 1) {
        EVP_MD_CTX_free(context_->md);
        throw std::runtime_error("SHA-256: OpenSSL could not start a digest");
    }
}

Sha256::~Sha256() { EVP_MD_CTX_free(context_->md); }

void Sha256::update(const void* data, std::size_t bytes)
{
    if (bytes > 0 && EVP_DigestUpdate(context_->md, data, bytes) != 1)
        throw std::runtime_error("SHA-256: OpenSSL could not digest the data");
}

Sha256Digest Sha256::finish()
{
    Sha256Digest digest{};
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(context_->md, digest.data(), &length) != 1 || length != digest.size())
        throw std::runtime_error("SHA-256: OpenSSL could not finish the digest");
    return digest;
}

Sha256Digest sha256_of(const void* data, std::size_t bytes)
{
    Sha256 sha;
    sha.update(data, bytes);
    return sha.finish();
}

std::string hex_digest(const Sha256Digest& digest, std::size_t bytes)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string text;
    for (std::size_t i = 0; i < bytes && i < digest.size(); ++i) {
        text += digits[digest[i] >> 4];
        text += digits[digest[i] & 0xf];
    }
    return text;
}

}  // namespace gpufem
