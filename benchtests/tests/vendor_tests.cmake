# kbench.unit.vendor.<kernel>: every kernel of kbench's tree whose manifest
# lists "onednn" has its oneDNN variant registered in its driver
# (KB_REGISTER_IMPL) and declines fp64 with the reason (kb/vendor/onednn.h). The
# CPU driver's variant check cannot catch a lost registration: a listed name
# it does not implement may be a GPU backend's. Run on the manifest's first
# case, whose inputs are made before the variant declines.
file(GLOB _kb_vendor_manifests CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/kernels/*/kernel.json")
foreach(manifest IN LISTS _kb_vendor_manifests)
  file(READ "${manifest}" json)
  string(JSON libraries ERROR_VARIABLE no_libraries GET "${json}" libraries)
  if(no_libraries OR NOT libraries MATCHES "\"onednn\"")
    continue()
  endif()
  string(JSON name GET "${json}" name)
  string(JSON first_case GET "${json}" cases 0 name)
  add_test(NAME kbench.unit.vendor.${name}
    COMMAND $<TARGET_FILE:kbench-${name}> --precision fp64 --variant vendor --case ${first_case}
      --results-dir ${CMAKE_CURRENT_BINARY_DIR}/vendor)
  set_tests_properties(kbench.unit.vendor.${name} PROPERTIES LABELS "unit;native" TIMEOUT 120
    PASS_REGULAR_EXPRESSION "oneDNN [0-9.]+ has no f64 data type")
endforeach()
