# kbench.lint.layers: the harness's layers as benchtests/src/sources.cmake
# orders them. Every source of benchtests/src sits in a layer's folder and
# names the headers of the harness by folder ("base/error.h"); it may
# include its own layer and those below it, never one above. Each folder
# keeps to 25 files and each source to 450 lines, so that a layer still
# reads as one job and a file as one concern.
#
#   cmake -DSOURCE=<kbench source> -P layers_check.cmake
cmake_minimum_required(VERSION 3.20)
set(src "${SOURCE}/benchtests/src")
include("${src}/sources.cmake")

set(problems)
macro(problem text)
  list(APPEND problems "${text}")
endmacro()

file(GLOB entries RELATIVE "${src}" "${src}/*")
foreach(entry IN LISTS entries)
  if(IS_DIRECTORY "${src}/${entry}" AND NOT entry IN_LIST KB_LAYERS)
    problem("benchtests/src/${entry}/: a folder that is no layer of KB_LAYERS (sources.cmake)")
  elseif(NOT IS_DIRECTORY "${src}/${entry}" AND NOT entry STREQUAL "sources.cmake")
    problem("benchtests/src/${entry}: a file outside the layers' folders")
  endif()
endforeach()

set(rank 0)
foreach(layer IN LISTS KB_LAYERS)
  set(rank_${layer} ${rank})
  math(EXPR rank "${rank} + 1")
endforeach()

foreach(layer IN LISTS KB_LAYERS)
  file(GLOB files RELATIVE "${src}" "${src}/${layer}/*")
  list(LENGTH files count)
  if(count GREATER 25)
    problem("benchtests/src/${layer}/: ${count} files (at most 25)")
  endif()
  foreach(file IN LISTS files)
    # the GPU backend's sources are built per runtime, from their own list
    if(file MATCHES "\\.c$" AND NOT file IN_LIST KB_SRC_${layer}
       AND NOT (layer STREQUAL "backend" AND file IN_LIST KB_SRC_backend_gpu))
      problem("benchtests/src/${file}: not listed in KB_SRC_${layer} (sources.cmake)")
    endif()
    if(NOT file MATCHES "\\.(c|h|cu)$")
      continue()
    endif()
    file(READ "${src}/${file}" text)
    string(REGEX MATCHALL "\n" newlines "${text}")
    list(LENGTH newlines n_lines)
    if(n_lines GREATER 450)
      problem("benchtests/src/${file}: ${n_lines} lines (at most 450)")
    endif()
    file(STRINGS "${src}/${file}" includes REGEX "^#include \"")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^#include \"([^\"]*)\".*" "\\1" header "${line}")
      if(header MATCHES "^kb/" OR header MATCHES "^kbref/" OR header STREQUAL "kb_config.h")
        continue() # the public kernel API, the reference library, the configured version
      endif()
      if(NOT header MATCHES "^([a-z]+)/[^/]+\\.h$" OR NOT CMAKE_MATCH_1 IN_LIST KB_LAYERS)
        problem("benchtests/src/${file}: #include \"${header}\" names no layer's header")
      elseif(NOT EXISTS "${src}/${header}")
        problem("benchtests/src/${file}: #include \"${header}\": no such header")
      elseif(rank_${CMAKE_MATCH_1} GREATER rank_${layer})
        problem("benchtests/src/${file}: #include \"${header}\" runs up from ${layer} to ${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endforeach()
endforeach()

if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "layers (benchtests/src/sources.cmake):\n  ${text}")
endif()
message("layers: ${KB_LAYERS}: every include points down")
