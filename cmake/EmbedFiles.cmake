# perfgate_embed_files(OUTPUT file.cpp FILES a b ...)
# Generates a C++ source defining perfgate::embedded_files(): each file's repository-relative
# path and contents as bytes. The generated file is rebuilt when an input changes.
function(perfgate_embed_files)
  cmake_parse_arguments(ARG "" "OUTPUT" "FILES" ${ARGN})
  set(inputs "")
  foreach(f ${ARG_FILES})
    list(APPEND inputs ${CMAKE_SOURCE_DIR}/${f})
  endforeach()
  string(REPLACE ";" "," files_arg "${ARG_FILES}")
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${ARG_OUTPUT} -DROOT=${CMAKE_SOURCE_DIR}
            -DFILES=${files_arg} -P ${CMAKE_SOURCE_DIR}/cmake/EmbedFilesScript.cmake
    DEPENDS ${inputs} ${CMAKE_SOURCE_DIR}/cmake/EmbedFilesScript.cmake
    COMMENT "Embedding rule files and report templates"
    VERBATIM)
endfunction()
