// Placeholder: implemented with issue 4.
#include <stdexcept>

#include "linalg/format_build.hpp"

namespace gpufem {

template <typename V>
FormatBuild<V> build_bdia_format(Csr<V>, const FormatOptions&)
{
    throw std::invalid_argument("format 'bdia' is not implemented yet");
}
template FormatBuild<float> build_bdia_format(Csr<float>, const FormatOptions&);
template FormatBuild<double> build_bdia_format(Csr<double>, const FormatOptions&);

}  // namespace gpufem
