#pragma once
// A vendor library opened at first use (dlopen) instead of linked: a library the executable
// links is loaded, and relocated, at every start-up, whether the run calls it or not.
#include <mutex>
#include <string>

namespace gpufem::cuda {

/// A shared library opened with dlopen and kept open for the rest of the process.
class SharedLibrary {
public:
    /// Opens `soname` along the loader's search path (LD_LIBRARY_PATH, the program's run path,
    /// the system's); throws std::runtime_error naming `needed_by`, the library and why.
    SharedLibrary(std::string soname, const std::string& needed_by);

    /// Points `entry` at the library's `symbol`; throws naming the library and the symbol.
    template <typename F>
    void find(F*& entry, const char* symbol) const
    {
        entry = reinterpret_cast<F*>(address(symbol));
    }

private:
    void* address(const char* symbol) const;

    std::string soname_;
    void* handle_ = nullptr;
};

/// What open() returns, made on the first call (thread-safe) and kept for the process; when
/// open() throws, every later call tries again and throws again.
template <typename Api, Api (*open)()>
const Api& opened_once()
{
    static std::once_flag opened;
    static Api api;
    std::call_once(opened, [] { api = open(); });
    return api;
}

}  // namespace gpufem::cuda
