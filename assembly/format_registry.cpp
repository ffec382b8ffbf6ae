#include "assembly/format_registry.hpp"

namespace gpufem {

/// The matrix-free formats, one line each: `X(name)` is a FormatEntry name_format_entry()
/// defined in the format's own file.
#define GPUFEM_MATRIX_FREE_FORMATS(X) X(lma)

#define GPUFEM_DECLARE_ENTRY(name) FormatEntry name##_format_entry();
GPUFEM_MATRIX_FREE_FORMATS(GPUFEM_DECLARE_ENTRY)
#undef GPUFEM_DECLARE_ENTRY

const FormatRegistry& format_registry()
{
    static const FormatRegistry registry = [] {
        FormatRegistry r = assembled_formats();
#define GPUFEM_ADD_ENTRY(name) r.add(name##_format_entry());
        GPUFEM_MATRIX_FREE_FORMATS(GPUFEM_ADD_ENTRY)
#undef GPUFEM_ADD_ENTRY
        return r;
    }();
    return registry;
}

}  // namespace gpufem
