#pragma once
// Plain data packed into bytes and read back: what one process sends another as one message
// (a part of a mesh, its numbering and halo). Values are copied as they are in memory: both
// ends must be the same program on the same kind of machine, as the ranks of one run are.
#include <cstddef>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace gpufem {

/// Appends values, arrays and texts to a byte buffer.
class ByteWriter {
public:
    /// One trivially copyable value.
    template <typename T>
    void value(const T& v)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        append(&v, sizeof(T));
    }
    /// An array: its length, then its elements.
    template <typename Vec>
    void values(const Vec& v)
    {
        static_assert(std::is_trivially_copyable_v<typename Vec::value_type>);
        value<std::uint64_t>(v.size());
        append(v.data(), v.size() * sizeof(typename Vec::value_type));
    }
    /// A text: its length, then its characters.
    void text(const std::string& s) { values(s); }
    /// Room for bytes in all (a large message is then written without reallocations).
    void reserve(std::size_t bytes) { bytes_.reserve(bytes); }
    /// What was written.
    std::vector<std::byte>& bytes() { return bytes_; }

private:
    void append(const void* data, std::size_t n)
    {
        const auto* p = static_cast<const std::byte*>(data);
        bytes_.insert(bytes_.end(), p, p + n);
    }
    std::vector<std::byte> bytes_;
};

/// Reads back, in the same order, what a ByteWriter wrote; throws std::runtime_error when the
/// bytes end early (a message cut short).
class ByteReader {
public:
    explicit ByteReader(std::span<const std::byte> bytes) : bytes_(bytes) {}
    template <typename T>
    T value()
    {
        T v;
        take(&v, sizeof(T));
        return v;
    }
    template <typename Vec>
    void values(Vec& v)
    {
        const auto n = value<std::uint64_t>();
        if (n > (bytes_.size() - at_) / sizeof(typename Vec::value_type)) fail();
        v.resize(n);
        take(v.data(), n * sizeof(typename Vec::value_type));
    }
    std::string text()
    {
        std::string s;
        values(s);
        return s;
    }
    /// Whether every byte was read.
    bool done() const { return at_ == bytes_.size(); }

private:
    void take(void* out, std::size_t n)
    {
        if (n > bytes_.size() - at_) fail();
        if (n > 0) std::memcpy(out, bytes_.data() + at_, n);
        at_ += n;
    }
    [[noreturn]] static void fail() { throw std::runtime_error("a message between ranks ended early"); }
    std::span<const std::byte> bytes_;
    std::size_t at_ = 0;
};

}  // namespace gpufem
