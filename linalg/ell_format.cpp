// Placeholder: implemented with issue 4.
#include <stdexcept>

#include "linalg/format_build.hpp"

namespace gpufem {

template <typename V>
FormatBuild<V> build_ell_format(Csr<V>, const FormatOptions&, bool)
{
    throw std::invalid_argument("format 'ell' is not implemented yet");
}
template FormatBuild<float> build_ell_format(Csr<float>, const FormatOptions&, bool);
template FormatBuild<double> build_ell_format(Csr<double>, const FormatOptions&, bool);

}  // namespace gpufem
