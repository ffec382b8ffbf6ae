// Placeholder: implemented with issue 4.
#include <stdexcept>

#include "linalg/format_build.hpp"

namespace gpufem {

template <typename V>
FormatBuild<V> build_sellp_format(Csr<V>, const FormatOptions&)
{
    throw std::invalid_argument("format 'sellp' is not implemented yet");
}
template FormatBuild<float> build_sellp_format(Csr<float>, const FormatOptions&);
template FormatBuild<double> build_sellp_format(Csr<double>, const FormatOptions&);

}  // namespace gpufem
