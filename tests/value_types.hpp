#pragma once
// Typed suites over the value types gpufem computes in (float and double), and the tolerance
// of a result that depends on the value type.
#include <gtest/gtest.h>

namespace gpufem::test {

/// The value types a typed suite runs with.
using ValueTypes = ::testing::Types<float, double>;

/// The relative tolerance of a computed result: `single` in float, `in_double` in double.
template <typename V>
constexpr double tolerance(double single = 1e-5, double in_double = 1e-13)
{
    return sizeof(V) == 4 ? single : in_double;
}

}  // namespace gpufem::test

/// Declares the typed suite `Suite` (a fixture with nothing in it), run with every value type;
/// its tests are TYPED_TEST(Suite, Name) with the value type as TypeParam.
#define GPUFEM_VALUE_TYPED_SUITE(Suite)      \
    template <typename V>                    \
    class Suite : public ::testing::Test {}; \
    TYPED_TEST_SUITE(Suite, ::gpufem::test::ValueTypes)
