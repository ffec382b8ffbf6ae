# Which CUDA architectures gpufem's kernels are compiled for when the user names none
# (-DCMAKE_CUDA_ARCHITECTURES=..., or the CUDAARCHS environment variable):
#   - a GPU in the configuring machine: `native`, that GPU's architecture alone (the quickest
#     build, and the fastest code for it);
#   - no GPU (or GPUFEM_CUDA_PORTABLE=ON, for packages): a fat binary for the current
#     data-centre and workstation families, GPUFEM_CUDA_PORTABLE_ARCHITECTURES below.
# Call before enable_language(CUDA), with CMAKE_CUDA_COMPILER known.
option(GPUFEM_CUDA_PORTABLE "Build the CUDA kernels for every current GPU family even when this machine has a GPU" OFF)
# sm_80 (A100, A30), sm_86 (RTX 30xx, A10, A40, RTX A6000), sm_89 (RTX 40xx, L4, L40S), sm_90
# (H100, H200) as machine code, and compute_90 as PTX, which the driver of a newer GPU (sm_100,
# sm_120: Blackwell) compiles once at the first start and keeps in its cache. An sm_80 build
# would also run on 8.6 and 8.9 (same major version), but each family's own code is what its
# compiler schedules best for; sm_75 and older are not supported by CUDA 13.
set(GPUFEM_CUDA_PORTABLE_ARCHITECTURES "80-real;86-real;89-real;90")

# Sets CMAKE_CUDA_ARCHITECTURES (when not given) and GPUFEM_CUDA_DETECTED (this machine's GPUs'
# architectures, e.g. "90"; empty without a GPU).
macro(gpufem_choose_cuda_architectures)
  set(GPUFEM_CUDA_NATIVE 0)
  set(GPUFEM_CUDA_DETECTED "")
  get_filename_component(gpufem_nvcc_dir "${CMAKE_CUDA_COMPILER}" DIRECTORY)
  if(EXISTS "${gpufem_nvcc_dir}/__nvcc_device_query")
    # nvcc's own GPU query (what CMake's `native` runs): "90", or "86;90" for two GPUs.
    execute_process(COMMAND "${gpufem_nvcc_dir}/__nvcc_device_query" RESULT_VARIABLE gpufem_query_failed
                    OUTPUT_VARIABLE gpufem_query ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT gpufem_query_failed AND gpufem_query MATCHES "^[0-9]+(;[0-9]+)*$")
      set(GPUFEM_CUDA_DETECTED "${gpufem_query}")
    endif()
  endif()
  if(CMAKE_CUDA_ARCHITECTURES STREQUAL "native" AND NOT GPUFEM_CUDA_DETECTED)
    # nvcc cannot build for `native` without a GPU: the portable list instead, said aloud.
    message(WARNING "CMAKE_CUDA_ARCHITECTURES=native, but this machine has no GPU that nvcc finds: "
                    "building the portable list ${GPUFEM_CUDA_PORTABLE_ARCHITECTURES} instead (name the "
                    "GPU's architecture to build for it alone, e.g. -DCMAKE_CUDA_ARCHITECTURES=89)")
    set(CMAKE_CUDA_ARCHITECTURES "${GPUFEM_CUDA_PORTABLE_ARCHITECTURES}")
  endif()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
    if(GPUFEM_CUDA_DETECTED AND NOT GPUFEM_CUDA_PORTABLE)
      set(CMAKE_CUDA_ARCHITECTURES native)
    else()
      set(CMAKE_CUDA_ARCHITECTURES "${GPUFEM_CUDA_PORTABLE_ARCHITECTURES}")
    endif()
  endif()
endmacro()

# After enable_language(CUDA): GPUFEM_CUDA_ARCHITECTURE_WORDS, the list compiled for with
# `native`, `all` and `all-major` resolved and ',' between entries (a compile definition), and
# GPUFEM_CUDA_NATIVE (1 when it is this machine's GPU's).
macro(gpufem_describe_cuda_architectures)
  set(gpufem_list "${CMAKE_CUDA_ARCHITECTURES}")
  if(gpufem_list STREQUAL "native")
    if(GPUFEM_CUDA_DETECTED)
      set(gpufem_list "${GPUFEM_CUDA_DETECTED}")
    endif()
    set(GPUFEM_CUDA_NATIVE 1)
  elseif(gpufem_list STREQUAL "all" OR gpufem_list STREQUAL "all-major")
    if(gpufem_list STREQUAL "all")
      set(gpufem_all "${CMAKE_CUDA_ARCHITECTURES_ALL}")
    else()
      set(gpufem_all "${CMAKE_CUDA_ARCHITECTURES_ALL_MAJOR}")
    endif()
    list(TRANSFORM gpufem_all APPEND "-real")
    list(POP_BACK gpufem_all gpufem_last)
    string(REPLACE "-real" "" gpufem_last "${gpufem_last}")
    set(gpufem_list "${gpufem_all};${gpufem_last}")
  endif()
  string(REPLACE ";" "," GPUFEM_CUDA_ARCHITECTURE_WORDS "${gpufem_list}")
endmacro()
