// Placeholder: written with issue 4.
#include <gtest/gtest.h>
