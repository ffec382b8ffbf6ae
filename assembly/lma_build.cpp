#include "assembly/lma_build.hpp"

#include "assembly/lma_system.hpp"

namespace gpufem {

template <typename V>
FormatBuild<V> build_lma_format(const ExecPtr& exec, const Mesh& mesh, const ProblemSpec& problem,
                                const FormatOptions& options)
{
    return std::move(assemble_lma_system<V>(exec, mesh, problem, options).format);
}

template FormatBuild<float> build_lma_format(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                             const FormatOptions&);
template FormatBuild<double> build_lma_format(const ExecPtr&, const Mesh&, const ProblemSpec&,
                                              const FormatOptions&);

}  // namespace gpufem
