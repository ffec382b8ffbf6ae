#pragma once
// Helpers for tests that need a CUDA device: skip with a reason when none is present.
#include <gtest/gtest.h>

#include "linalg/executor.hpp"

/// Skips the current test (never fails it) when no CUDA device can be used.
#define GPUFEM_REQUIRE_GPU()                                                              \
    do {                                                                                  \
        if (::gpufem::Executor::cuda_device_count() == 0)                                 \
            GTEST_SKIP() << "no CUDA device present (or gpufem built without CUDA)";      \
    } while (0)
