# Script mode: configures gpufem without CUDA in a scratch folder and checks that CMake says so.
file(REMOVE_RECURSE "${BUILD_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BUILD_DIR}" -G "${GENERATOR}"
                        -DCMAKE_BUILD_TYPE=Release -DGPUFEM_ENABLE_CUDA=OFF
                RESULT_VARIABLE failed OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(REMOVE_RECURSE "${BUILD_DIR}")
if(failed)
  message(FATAL_ERROR "configuring without CUDA failed:\n${out}\n${err}")
endif()
if(NOT out MATCHES "CUDA backend OFF")
  message(FATAL_ERROR "configured, but CMake did not say the CUDA backend is off:\n${out}")
endif()
message(STATUS "configured without CUDA")
