// The vendor libraries gpufem opens at first use (cuSPARSE, cuBLAS, NCCL): every entry point
// resolves from the CUDA toolkit's libraries, a missing library or symbol is a clear error, and
// the gpufem executable does not load them at start-up. Needs the toolkit, not a GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "linalg/cuda/cusparse_library.hpp"
#include "linalg/cuda/shared_library.hpp"
#include "tests/solver/run_gpufem.hpp"

using namespace gpufem;

TEST(VendorLibraries, EveryCusparseEntryPointResolvesAndAnswers)
{
    const cuda::CusparseLibrary& api = cuda::cusparse();
    EXPECT_NE(api.create, nullptr);
    EXPECT_NE(api.spmv, nullptr);
    EXPECT_NE(api.spgemm_copy, nullptr);
    EXPECT_NE(api.create_sliced_ell, nullptr);
    // A call into the library that needs no device.
    const std::string text = api.error_string(CUSPARSE_STATUS_INVALID_VALUE);
    EXPECT_NE(text.find("invalid value"), std::string::npos) << text;
    EXPECT_EQ(&cuda::cusparse(), &api);  // opened once
}

TEST(VendorLibraries, AMissingLibraryOrSymbolIsNamed)
{
    try {
        cuda::SharedLibrary("libgpufem-no-such-library.so.7", "the test");
        FAIL() << "opened a library that does not exist";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("the test needs libgpufem-no-such-library.so.7"), std::string::npos) << what;
        EXPECT_NE(what.find("LD_LIBRARY_PATH"), std::string::npos) << what;
    }
    const cuda::SharedLibrary sparse("libcusparse.so." + std::to_string(CUSPARSE_VER_MAJOR), "the test");
    int (*entry)() = nullptr;
    try {
        sparse.find(entry, "cusparseNoSuchRoutine");
        FAIL() << "found a symbol that does not exist";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cusparseNoSuchRoutine"), std::string::npos) << e.what();
    }
    EXPECT_EQ(entry, nullptr);
}

TEST(VendorLibraries, TheExecutableDoesNotLoadThemAtStartUp)
{
    const std::filesystem::path gpufem = std::filesystem::path(GPUFEM_BINARY_DIR) / "gpufem";
    ASSERT_TRUE(std::filesystem::exists(gpufem)) << gpufem;
    const test::CommandResult readelf = test::run_command("readelf -d '" + gpufem.string() + "'");
    ASSERT_EQ(readelf.exit_code, 0) << readelf.output;
    const std::string& needed = readelf.output;
    ASSERT_NE(needed.find("(NEEDED)"), std::string::npos) << "readelf printed no dependencies:\n" << needed;
    EXPECT_NE(needed.find("libcudart"), std::string::npos) << needed;
    for (const char* library : {"libcusparse", "libcublas", "libnccl", "libnvJitLink"})
        EXPECT_EQ(needed.find(library), std::string::npos) << library << " is linked:\n" << needed;
}
