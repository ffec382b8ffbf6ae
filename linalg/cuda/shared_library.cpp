// SharedLibrary: dlopen once, dlsym per entry point, errors that name what is missing.
#include "linalg/cuda/shared_library.hpp"

#include <stdexcept>

#include <dlfcn.h>

namespace gpufem::cuda {

SharedLibrary::SharedLibrary(std::string soname, const std::string& needed_by) : soname_(std::move(soname))
{
    handle_ = dlopen(soname_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_)
        throw std::runtime_error(needed_by + " needs " + soname_ + ", which could not be loaded: " + dlerror() +
                                 " (put the directory that holds it on LD_LIBRARY_PATH)");
}

void* SharedLibrary::address(const char* symbol) const
{
    void* found = dlsym(handle_, symbol);
    if (!found) throw std::runtime_error(soname_ + " has no " + symbol + " (a library of another version?)");
    return found;
}

}  // namespace gpufem::cuda
