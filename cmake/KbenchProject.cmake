# What a project that registers kernels gets once, at the end of its
# top-level directory (called by kbench_add_kernel's deferred step,
# KbenchKernels.cmake): the run report after every run of timed tests, the
# `report` target, and A/B mode (kbench-ab in <build>/bin with the map of the
# project's kernel folders it reads). The same for kbench's own suite and for
# a consumer of the installed package or of kbench as a subproject.
#
# Reads only global properties, set by kbench's CMakeLists.txt or by
# kbenchConfig.cmake: KBENCH_TOOLS_DIR (the report and A/B scripts) and the
# target kbench::report.

# The run report after every run of timed tests, whatever their outcome
# (docs/report.md): every timed test requires the fixtures below, so `ctest
# -L cpu` (or -R) first marks when the run began (kbench.session) and last
# reports the results written since then (kbench.report, a cleanup that runs
# even when tests failed); ctest then prints the report's headline after its
# own summary (CTestCustom.cmake). `cmake --build <build> --target report`
# writes the report of the last run again.
function(kbench_add_report_fixtures)
  get_property(tools GLOBAL PROPERTY KBENCH_TOOLS_DIR)
  if(NOT tools OR NOT TARGET kbench::report OR TEST kbench.session)
    return()
  endif()
  _kb_results_dir(results)
  set(report_dir "${CMAKE_BINARY_DIR}/kbench-report")
  add_test(NAME kbench.session
    COMMAND "${CMAKE_COMMAND}" "-DRESULTS=${results}" "-DOUT=${report_dir}"
      -P "${tools}/report_session.cmake")
  set_tests_properties(kbench.session PROPERTIES LABELS "report" FIXTURES_SETUP kbench_session)
  add_test(NAME kbench.report
    COMMAND "${CMAKE_COMMAND}" "-DREPORT=$<TARGET_FILE:kbench::report>" "-DRESULTS=${results}"
      "-DOUT=${report_dir}" -P "${tools}/report_run.cmake")
  set_tests_properties(kbench.report PROPERTIES LABELS "report" TIMEOUT 300
    FIXTURES_CLEANUP kbench_report FIXTURES_REQUIRED kbench_session)

  # A parent project may have a target of that name already.
  set(target report)
  if(TARGET report)
    set(target kbench_report)
    message(STATUS "kbench: a target 'report' exists; the run report's target is '${target}'")
  endif()
  add_custom_target(${target}
    COMMAND "${CMAKE_COMMAND}" "-DREPORT=$<TARGET_FILE:kbench::report>" "-DRESULTS=${results}"
      "-DOUT=${report_dir}" -DPRINT=ON -P "${tools}/report_run.cmake"
    USES_TERMINAL
    COMMENT "kbench run report (${results})")

  # ctest reads CTestCustom.cmake in the build tree it runs in: written
  # unless the project wrote one of its own, which can include kbench's.
  set(KBENCH_REPORT_PRINT "${tools}/report_print.cmake")
  set(custom "${CMAKE_BINARY_DIR}/kbench/CTestCustom.cmake")
  configure_file("${tools}/CTestCustom.cmake.in" "${custom}" @ONLY)
  set(top "${CMAKE_BINARY_DIR}/CTestCustom.cmake")
  set(mark "# kbench: the run report's headline after ctest's summary")
  if(EXISTS "${top}")
    file(STRINGS "${top}" first LIMIT_COUNT 1)
    if(NOT first STREQUAL mark)
      message(STATUS "kbench: ${top} is the project's own; for the run report's headline after "
        "each ctest run, add to it: include(\"${custom}\")")
      return()
    endif()
  endif()
  file(CONFIGURE OUTPUT "${top}" CONTENT "${mark}\ninclude(\"${custom}\")\n" @ONLY)
endfunction()

# A/B mode for the project (docs/ab.md): <build>/bin/kbench-ab, and the map
# it reads to tell which kernels a diff reaches, <build>/kbench/kernels.txt:
# one line per registered kernel, its name and its folder, tab-separated.
function(kbench_write_ab_tools)
  get_property(tools GLOBAL PROPERTY KBENCH_TOOLS_DIR)
  get_property(folders GLOBAL PROPERTY KBENCH_KERNEL_FOLDERS)
  set(map "")
  foreach(entry IN LISTS folders)
    string(FIND "${entry}" "=" eq)
    string(SUBSTRING "${entry}" 0 ${eq} name)
    math(EXPR eq "${eq} + 1")
    string(SUBSTRING "${entry}" ${eq} -1 dir)
    string(APPEND map "${name}\t${dir}\n")
  endforeach()
  file(CONFIGURE OUTPUT "${CMAKE_BINARY_DIR}/kbench/kernels.txt" CONTENT "${map}")
  if(tools AND EXISTS "${tools}/kbench-ab.sh")
    file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
    file(COPY_FILE "${tools}/kbench-ab.sh" "${CMAKE_BINARY_DIR}/bin/kbench-ab" ONLY_IF_DIFFERENT)
    file(CHMOD "${CMAKE_BINARY_DIR}/bin/kbench-ab" FILE_PERMISSIONS OWNER_READ OWNER_WRITE
      OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  endif()
endfunction()
