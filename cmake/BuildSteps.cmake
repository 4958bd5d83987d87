# perfgate_build_step(TOOL OUTPUT SOURCES ... [LINK ...] [INCLUDE ...] [ARGS ...] [DEPENDS ...]
#                     COMMENT text)
# A build step: the program TOOL, built from SOURCES (tools/*.cpp) and linked with LINK, is run at
# build time as `TOOL OUTPUT ARGS...` to write the C++ source OUTPUT, which a library compiles. It
# runs again when the tool or a file of DEPENDS changes.
function(perfgate_build_step tool output)
  cmake_parse_arguments(ARG "" "COMMENT" "SOURCES;LINK;INCLUDE;ARGS;DEPENDS" ${ARGN})
  add_executable(${tool} ${ARG_SOURCES})
  if(ARG_INCLUDE)
    target_include_directories(${tool} PRIVATE ${ARG_INCLUDE})
  endif()
  target_compile_options(${tool} PRIVATE ${PERFGATE_WARNINGS})
  target_link_libraries(${tool} PRIVATE ${ARG_LINK})
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${tool} ${output} ${ARG_ARGS}
    DEPENDS ${tool} ${ARG_DEPENDS}
    COMMENT "${ARG_COMMENT}"
    VERBATIM)
endfunction()
