# A library per stage (perfgate_<stage>), linked only along the arrows of cmake/StageMap.cmake.
# Each library's include paths hold only what its stage may include, as folders of symbolic links
# made here (a build target per folder with explicit deps, as Perfetto's BUILD.gn files do):
#   stages/<stage>/private/<stage>  -> src/<stage>            its own internal headers
#   stages/<stage>/public/<stage>/   -> its EXPORTS            seen by the stages that link it
# So a backward include (a renderer including analyse/analysis.h) fails to compile, and the
# include check (cmake/CheckStageIncludes.cmake) names it.
include(${CMAKE_CURRENT_LIST_DIR}/StageMap.cmake)

function(perfgate_link_header source link)
  get_filename_component(folder ${link} DIRECTORY)
  file(MAKE_DIRECTORY ${folder})
  file(CREATE_LINK ${source} ${link} SYMBOLIC)
endfunction()

set(PERFGATE_SANITIZE_O0_STAGES cli mcp history render)
set(PERFGATE_FUZZ_UNCOVERED_STAGES render)
# perfgate_stage(<stage> SOURCES ...): the library of src/<stage>/.
function(perfgate_stage stage)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  set(root ${CMAKE_BINARY_DIR}/stages/${stage})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root}/private ${root}/public)
  file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${stage} ${root}/private/${stage} SYMBOLIC)
  foreach(export ${PERFGATE_STAGE_${stage}_EXPORTS})
    set(source ${CMAKE_SOURCE_DIR}/src/${export})
    if(export MATCHES "^perfgate/")
      set(source ${CMAKE_SOURCE_DIR}/include/${export})  # the public API's
    elseif(NOT EXISTS ${source})
      set(source ${CMAKE_BINARY_DIR}/generated/${export})  # configured: common/version.h
    endif()
    perfgate_link_header(${source} ${root}/public/${export})
  endforeach()

  add_library(perfgate_${stage} STATIC ${ARG_SOURCES})
  # The private root first: a stage's own headers are always reached by the same path.
  target_include_directories(perfgate_${stage} PRIVATE ${root}/private PUBLIC ${root}/public)
  target_compile_options(perfgate_${stage} PRIVATE ${PERFGATE_WARNINGS})
  if(PERFGATE_SANITIZE)
    # perfgate's own code at -O1 whatever the build type: under ASan the tests spend their time in
    # it (parsing the shared traces) and -O0 doubled the suite's time; the test files keep the
    # build type's -O0, which compiles in half the time of -O1. Except the stages the tests spend
    # little time in (PERFGATE_SANITIZE_O0_STAGES: the command line, the history, the renderers),
    # which compile in about half the time at -O0.
    if(stage IN_LIST PERFGATE_SANITIZE_O0_STAGES)
      target_compile_options(perfgate_${stage} PRIVATE -O0)
    else()
      target_compile_options(perfgate_${stage} PRIVATE -O1)
    endif()
    # libFuzzer's coverage on the stages a harness parses with (not the renderers: no harness
    # writes a report, and it costs a tenth of their compile time).
    if(NOT stage IN_LIST PERFGATE_FUZZ_UNCOVERED_STAGES)
      target_compile_options(perfgate_${stage} PRIVATE ${PERFGATE_FUZZ_COVERAGE})
    endif()
  endif()
  target_link_libraries(perfgate_${stage} PUBLIC ${PERFGATE_FMT})
  foreach(other ${PERFGATE_STAGE_${stage}_PUBLIC})
    target_link_libraries(perfgate_${stage} PUBLIC perfgate_${other})
  endforeach()
  foreach(other ${PERFGATE_STAGE_${stage}_PRIVATE})
    target_link_libraries(perfgate_${stage} PRIVATE perfgate_${other})
  endforeach()
endfunction()
