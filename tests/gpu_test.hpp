#pragma once
// Helpers for tests that need a CUDA device: skip with a reason when none is present.
#include <gtest/gtest.h>

#include "linalg/executor.hpp"
#include "value_types.hpp"

/// Skips the current test (never fails it) when no CUDA device can be used.
#define GPUFEM_REQUIRE_GPU()                                                              \
    do {                                                                                  \
        if (::gpufem::Executor::cuda_device_count() == 0)                                 \
            GTEST_SKIP() << "no CUDA device present (or gpufem built without CUDA)";      \
    } while (0)

namespace gpufem::test {

/// A fixture whose every test is skipped (never failed) when no CUDA device can be used.
class GpuTest : public ::testing::Test {
protected:
    void SetUp() override { GPUFEM_REQUIRE_GPU(); }
};

}  // namespace gpufem::test

/// Declares the typed suite `Suite` of device tests, run with every value type and skipped
/// without a device (GpuTest).
#define GPUFEM_GPU_TYPED_SUITE(Suite)                   \
    template <typename V>                               \
    class Suite : public ::gpufem::test::GpuTest {};    \
    TYPED_TEST_SUITE(Suite, ::gpufem::test::ValueTypes)
