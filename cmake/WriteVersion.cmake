# Script mode (cmake -DSOURCE_DIR=... -DOUTPUT=... -P WriteVersion.cmake), run at every build:
# writes the version source file, and only when the version changed (so that a build after
# no commit recompiles nothing).
include("${CMAKE_CURRENT_LIST_DIR}/GpufemVersion.cmake")
gpufem_describe_version("${SOURCE_DIR}" version numeric)
set(text "// Written by cmake/WriteVersion.cmake at build time.\n#include \"solver/build_info.hpp\"\n\nconst char* gpufem::gpufem_version() { return \"${version}\"; }\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
