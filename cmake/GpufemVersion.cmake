# gpufem's version from git tags: `git describe --tags --match v[0-9]*` of the source tree
# ("v0.2.0" on a release tag, "v0.2.0-5-gabc1234" five commits after it, "-dirty" with local
# changes), without the v. Without a tag, or outside a git checkout (a source archive), the
# fallback GPUFEM_FALLBACK_VERSION, followed by the commit count and hash when git knows them.
# Used at configure time (project() and the .deb) and by cmake/WriteVersion.cmake at build time.
set(GPUFEM_FALLBACK_VERSION 0.1.0)

# gpufem_describe_version(SOURCE_DIR OUT_FULL OUT_NUMERIC)
function(gpufem_describe_version source_dir out_full out_numeric)
  set(full "")
  find_program(GPUFEM_GIT git)
  if(GPUFEM_GIT AND EXISTS "${source_dir}/.git")
    execute_process(COMMAND "${GPUFEM_GIT}" -C "${source_dir}" describe --tags --match "v[0-9]*" --dirty
                    OUTPUT_VARIABLE described RESULT_VARIABLE failed ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT failed AND described MATCHES "^v([0-9]+\\.[0-9]+\\.[0-9]+.*)$")
      set(full "${CMAKE_MATCH_1}")
    else()
      execute_process(COMMAND "${GPUFEM_GIT}" -C "${source_dir}" rev-list --count HEAD
                      OUTPUT_VARIABLE count RESULT_VARIABLE failed_count ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      execute_process(COMMAND "${GPUFEM_GIT}" -C "${source_dir}" describe --always --dirty --abbrev=7
                      OUTPUT_VARIABLE hash RESULT_VARIABLE failed_hash ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(NOT failed_count AND NOT failed_hash)
        set(full "${GPUFEM_FALLBACK_VERSION}-${count}-g${hash}")
      endif()
    endif()
  endif()
  if(full STREQUAL "")
    set(full "${GPUFEM_FALLBACK_VERSION}")
  endif()
  string(REGEX MATCH "^[0-9]+\\.[0-9]+\\.[0-9]+" numeric "${full}")
  set(${out_full} "${full}" PARENT_SCOPE)
  set(${out_numeric} "${numeric}" PARENT_SCOPE)
endfunction()
