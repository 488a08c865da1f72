# `cmake --install <build> --prefix P`: the harness, driver and reference
# libraries, the GPU backend objects, the public headers under kb/ and kbref/,
# the tools, the calibration kernel and the CMake package (lib/cmake/kbench:
# kbenchConfig.cmake, its version file, the exported targets kbench::* and
# the helpers that define kbench_add_kernel).
# docs/using-kbench-in-your-project.md.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KBENCH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/kbench" CACHE STRING
  "Where the kbench CMake package is installed (relative to the prefix)")
mark_as_advanced(KBENCH_INSTALL_CMAKEDIR)

# Call once, after the targets are defined.
function(kbench_install)
  set(targets kb_harness kb_driver kb_reference kb_warnings kb_kernel_flags)
  get_property(backends GLOBAL PROPERTY KBENCH_INSTALL_TARGETS)
  install(TARGETS ${targets} ${backends} EXPORT kbenchTargets
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    OBJECTS DESTINATION "${CMAKE_INSTALL_LIBDIR}/kbench/objects")
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/benchtests/include/kb"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" FILES_MATCHING PATTERN "*.h")
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/reference/include/kbref"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" FILES_MATCHING PATTERN "*.h")
  install(EXPORT kbenchTargets NAMESPACE kbench:: DESTINATION "${KBENCH_INSTALL_CMAKEDIR}")

  # The calibration kernel, built in a consumer's project for its
  # kbench.calibrate.<backend> fixture (KbenchKernels.cmake).
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/kernels/bandwidth"
    DESTINATION "${CMAKE_INSTALL_DATADIR}/kbench/calibration")
  # The manifest and result formats, for a consumer's own checks (check-jsonschema).
  install(FILES "${PROJECT_SOURCE_DIR}/benchtests/schema/kernel.schema.json"
    "${PROJECT_SOURCE_DIR}/benchtests/schema/result.schema.json"
    DESTINATION "${CMAKE_INSTALL_DATADIR}/kbench")
  # The scaffold: a CMake script that runs as a program too (its first lines
  # are a shell script that hands the arguments to cmake -P after "--").
  install(PROGRAMS "${PROJECT_SOURCE_DIR}/cmake/kbench-new-kernel"
    DESTINATION "${CMAKE_INSTALL_BINDIR}")

  # The backends this installation has, for the consumer's KBENCH_BACKENDS.
  set(KBENCH_INSTALLED_BACKENDS "${KBENCH_BACKENDS}")
  configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/kbenchConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/kbenchConfig.cmake"
    INSTALL_DESTINATION "${KBENCH_INSTALL_CMAKEDIR}"
    PATH_VARS CMAKE_INSTALL_DATADIR CMAKE_INSTALL_DOCDIR)
  # 0.x: a minor release may change the API, so SameMinorVersion until 1.0.
  write_basic_package_version_file("${PROJECT_BINARY_DIR}/kbenchConfigVersion.cmake"
    COMPATIBILITY SameMinorVersion)
  install(FILES
    "${PROJECT_BINARY_DIR}/kbenchConfig.cmake"
    "${PROJECT_BINARY_DIR}/kbenchConfigVersion.cmake"
    "${PROJECT_SOURCE_DIR}/cmake/KbenchKernels.cmake"
    "${PROJECT_SOURCE_DIR}/cmake/KbenchProject.cmake"
    "${PROJECT_SOURCE_DIR}/cmake/KbenchGpu.cmake"
    "${PROJECT_SOURCE_DIR}/cmake/KbenchImports.cmake"
    DESTINATION "${KBENCH_INSTALL_CMAKEDIR}")
  # What a consumer's build runs (KbenchProject.cmake): the run report's
  # fixtures and A/B mode, which is also a command of its own (bin/kbench-ab
  # --build <consumer build>).
  set(tools "${PROJECT_SOURCE_DIR}/benchtests/tools")
  install(FILES "${tools}/report_session.cmake" "${tools}/report_run.cmake"
    "${tools}/report_print.cmake" "${tools}/CTestCustom.cmake.in" "${tools}/kbench-ab.sh"
    DESTINATION "${KBENCH_INSTALL_CMAKEDIR}")
  install(PROGRAMS "${tools}/kbench-ab.sh" DESTINATION "${CMAKE_INSTALL_BINDIR}"
    RENAME kbench-ab)
  # The documentation the tools' messages point to.
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}"
    FILES_MATCHING PATTERN "*.md" PATTERN "results" EXCLUDE)
endfunction()
