# cmake --install BUILD [--prefix DIR]: the programs, the cases, the documentation and the man
# page; cpack -G DEB (in BUILD) makes a Debian package of the same.
include(GNUInstallDirs)
install(TARGETS gpufem gpufem-mesh-worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The cases keep their layout (the examples and benchmarks read ../meshes).
install(DIRECTORY cases/examples cases/benchmarks cases/meshes cases/studies
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpufem/cases
        FILES_MATCHING PATTERN "*.yaml" PATTERN "*.geo" PATTERN "*.msh")
install(PROGRAMS scripts/render_case.py scripts/gpufem_plots.py DESTINATION ${CMAKE_INSTALL_DATADIR}/gpufem/scripts)
install(FILES README.md CHANGELOG.md LICENSE CITATION.cff DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png")
install(FILES docs/gpufem.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# The documentation's links to the cases (../cases/..., cases/...) lead to the installed ones.
install(CODE "file(CREATE_LINK ../../gpufem/cases
  \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}/cases\" SYMBOLIC)")

set(CPACK_PACKAGE_NAME gpufem)
set(CPACK_PACKAGE_VENDOR "gpufem developers")
set(CPACK_PACKAGE_CONTACT "gpufem developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Finite-element and finite-volume solver for elliptic PDEs on NVIDIA GPUs, with a CPU fallback")
set(CPACK_PACKAGE_VERSION ${GPUFEM_VERSION_NUMERIC})
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_CURRENT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
# Debian's version: 0.2.0 on a tag, 0.2.0+5.gabc1234 five commits after it.
string(REGEX REPLACE "^([0-9]+\\.[0-9]+\\.[0-9]+)-([0-9]+)-g([0-9a-f]+)" "\\1+\\2.g\\3" gpufem_deb_version
       "${GPUFEM_VERSION}")
string(REPLACE "-dirty" "+dirty" gpufem_deb_version "${gpufem_deb_version}")
set(CPACK_DEBIAN_PACKAGE_VERSION ${gpufem_deb_version})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# The Debian libraries it links come from dpkg-shlibdeps. The CUDA toolkit's (cudart,
# cuSPARSE; cuBLAS is opened at run time) are not Debian packages: the package needs the CUDA
# toolkit's runtime libraries of the version it was built with, found by the dynamic loader.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(GPUFEM_WITH_CUDA)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR})
  string(APPEND CPACK_PACKAGE_DESCRIPTION_SUMMARY
         " (CUDA ${CUDAToolkit_VERSION} runtime libraries required, architectures ${GPUFEM_CUDA_ARCHITECTURE_WORDS})")
endif()
include(CPack)
