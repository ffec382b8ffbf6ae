// Placeholder: implemented with issue 4.
#include "linalg/reordering.hpp"
