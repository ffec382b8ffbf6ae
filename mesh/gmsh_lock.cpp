#include "mesh/gmsh_lock.hpp"

#include <cstdlib>

namespace gpufem {
namespace {

/// The variables gmsh::initialize appends the executable's folder to.
constexpr const char* variables_gmsh_extends[] = {"PATH", "PYTHONPATH"};

}  // namespace

std::mutex& gmsh_mutex()
{
    static std::mutex mutex;
    return mutex;
}

GmshEnvironmentKept::GmshEnvironmentKept()
{
    for (const char* name : variables_gmsh_extends) {
        const char* value = std::getenv(name);
        kept_.emplace_back(value != nullptr, value != nullptr ? value : "");
    }
}

GmshEnvironmentKept::~GmshEnvironmentKept()
{
    for (std::size_t i = 0; i < kept_.size(); ++i) {
        if (kept_[i].first) ::setenv(variables_gmsh_extends[i], kept_[i].second.c_str(), 1);
        else ::unsetenv(variables_gmsh_extends[i]);
    }
}

}  // namespace gpufem
