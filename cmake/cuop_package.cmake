# The installed CMake package (docs/packaging.md): `cmake --install` puts the library, its
# headers, the dispatch headers emitted for this build's architectures and their provenance under
# the prefix, with cuopConfig.cmake, so that a consumer's find_package(cuop CONFIG REQUIRED) gives
# cuop::kernels with its usage requirements and needs the CUDA toolkit (and cuDNN where the
# package was built with it), nothing of the tuner.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CUOP_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/cuop")
install(TARGETS cuop_kernels cuop_kernels_core EXPORT cuopTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/kernels/include/cuop" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY "${CUOP_GEN_DIR}/cuop/generated" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/cuop")
install(FILES "${CUOP_GEN_DIR}/dispatch_provenance.json" DESTINATION "${CMAKE_INSTALL_DATADIR}/cuop")
install(EXPORT cuopTargets NAMESPACE cuop:: DESTINATION "${CUOP_INSTALL_CMAKEDIR}")

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/cuopConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/cuopConfig.cmake" INSTALL_DESTINATION "${CUOP_INSTALL_CMAKEDIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/cuopConfigVersion.cmake" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/cuopConfig.cmake" "${PROJECT_BINARY_DIR}/cuopConfigVersion.cmake"
        DESTINATION "${CUOP_INSTALL_CMAKEDIR}")

# The tuner, where it is built (component `tuner`; skipped when only the library was built): it
# finds the installed kernel headers (include/) and device flags (share/cuop) from its own
# location, so a sweep runs from the prefix (tuner/compile/compile.hpp, device_flags_file).
if(CUOP_BUILD_TUNER)
  install(TARGETS cuop-tune RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT tuner OPTIONAL)
  install(FILES "${PROJECT_SOURCE_DIR}/kernels/device_flags.txt" DESTINATION "${CMAKE_INSTALL_DATADIR}/cuop"
          COMPONENT tuner)
endif()
