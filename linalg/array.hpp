#pragma once
// Array<T>: a typed buffer that lives in one executor's memory space.
#include <cstddef>
#include <span>
#include <type_traits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "linalg/executor.hpp"
#include "linalg/host_vector.hpp"

namespace gpufem {

/// Owning, move-only buffer of n elements of T in the memory of one executor.
/// Data moves to another executor only through explicit copies (clone_to, copy_from, to_host).
template <typename T>
class Array {
public:
    Array() = default;
    /// Uninitialised storage for n elements on exec.
    Array(ExecPtr exec, std::size_t n)
        : exec_(std::move(exec)), size_(n), data_(static_cast<T*>(exec_->alloc(n * sizeof(T))))
    {}
    /// Uploads host data to exec.
    static Array from_host(ExecPtr exec, std::span<const T> host)
    {
        Array result(std::move(exec), host.size());
        copy_bytes(*result.exec_, result.data_, *host_executor(), host.data(),
                   host.size() * sizeof(T));
        return result;
    }
    static Array from_host(ExecPtr exec, const std::vector<T>& host)
    {
        return from_host(std::move(exec), std::span<const T>(host.data(), host.size()));
    }

    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    Array(Array&& other) noexcept { swap(other); }
    Array& operator=(Array&& other) noexcept
    {
        Array(std::move(other)).swap(*this);
        return *this;
    }
    ~Array()
    {
        if (exec_) exec_->free(data_);
    }

    /// Downloads the contents to a host vector.
    std::vector<T> to_host() const
    {
        std::vector<T> host(size_);
        if (size_ > 0) copy_bytes(*host_executor(), host.data(), *exec_, data_, size_ * sizeof(T));
        return host;
    }
    /// A host copy in storage the copy itself touches first (HostVector): for large arrays,
    /// whose std::vector would first be zeroed page by page on one thread (a 40 MB solution:
    /// ~25 ms on the H100's host, more than the copy).
    HostVector<T> to_host_vector() const
    {
        HostVector<T> host(size_);
        if (size_ > 0) copy_bytes(*host_executor(), host.data(), *exec_, data_, size_ * sizeof(T));
        return host;
    }
    /// A copy of this array on another (or the same) executor.
    Array clone_to(ExecPtr exec) const
    {
        Array result(std::move(exec), size_);
        result.copy_from(*this);
        return result;
    }
    /// Copies the contents of an array of the same size, from any executor.
    void copy_from(const Array& src)
    {
        if (src.size_ != size_) throw std::invalid_argument("Array::copy_from: size mismatch");
        if (size_ > 0) copy_bytes(*exec_, data_, *src.exec_, src.data_, size_ * sizeof(T));
    }

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }
    std::size_t bytes() const { return size_ * sizeof(T); }
    bool empty() const { return size_ == 0; }
    const ExecPtr& executor() const { return exec_; }

    void swap(Array& other) noexcept
    {
        std::swap(exec_, other.exec_);
        std::swap(size_, other.size_);
        std::swap(data_, other.data_);
    }

private:
    static const ExecPtr& host_executor()
    {
        static const ExecPtr host = Executor::create_cpu();
        return host;
    }

    ExecPtr exec_;
    std::size_t size_ = 0;
    T* data_ = nullptr;
};

/// Uploads host doubles as an Array of V (float or double): doubles as they are, floats
/// converted on the host first.
template <typename V>
Array<V> upload_as(ExecPtr exec, std::span<const double> host)
{
    if constexpr (std::is_same_v<V, double>) {
        return Array<V>::from_host(std::move(exec), host);
    } else {
        const std::vector<V> converted(host.begin(), host.end());
        return Array<V>::from_host(std::move(exec), converted);
    }
}

}  // namespace gpufem
