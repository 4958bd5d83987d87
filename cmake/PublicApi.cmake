# The public C++ API installed (docs/api.md): include/perfgate/ and one archive, libperfgate.a, of
# the api stage and every stage it runs on, with a CMake package, so that a program does
#   find_package(perfgate 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE perfgate::perfgate)
# One archive, not a library per stage: the stages are private (their headers are not installed)
# and how the build splits them is not the program's to know. Static, not shared: a shared library
# would promise an ABI across perfgate's releases, which this first API does not yet (docs/api.md,
# "Stability"); the archive is linked into the program as the stages are into perfgate.
# Included by CMakeLists.txt after the api stage, before cmake/Packaging.cmake (whose install rules
# the .deb takes these with).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The api stage and what it links, in link order: every stage of cmake/StageMap.cmake but the other
# front ends, from the top down (the map lists them bottom up).
set(PERFGATE_API_ARCHIVES perfgate_api perfgate_rules_snapshot)
set(_perfgate_api_stages ${PERFGATE_STAGES})
list(REVERSE _perfgate_api_stages)
foreach(stage IN LISTS _perfgate_api_stages)
  if(NOT stage MATCHES "^(api|cli|mcp)$")
    list(APPEND PERFGATE_API_ARCHIVES perfgate_${stage})
  endif()
endforeach()
if(PERFGATE_STATIC)
  list(APPEND PERFGATE_API_ARCHIVES perfgate_fmt)  # fmt's compiled part, built here (CMakeLists.txt)
  set(PERFGATE_API_FIND_FMT "")
  set(PERFGATE_API_FMT "")
else()
  set(PERFGATE_API_FIND_FMT "find_dependency(fmt)")
  set(PERFGATE_API_FMT "fmt::fmt;")
endif()

# The archives merged by ar's MRI script (every member kept, one symbol index).
set(PERFGATE_API_LIBRARY ${CMAKE_BINARY_DIR}/api/libperfgate.a)
set(script "CREATE ${PERFGATE_API_LIBRARY}\n")
foreach(archive ${PERFGATE_API_ARCHIVES})
  string(APPEND script "ADDLIB $<TARGET_FILE:${archive}>\n")
endforeach()
string(APPEND script "SAVE\nEND\n")
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/api/libperfgate.mri CONTENT "${script}")
set(archive_files "")
foreach(archive ${PERFGATE_API_ARCHIVES})
  list(APPEND archive_files $<TARGET_FILE:${archive}>)
endforeach()
add_custom_command(
  OUTPUT ${PERFGATE_API_LIBRARY}
  COMMAND ${CMAKE_COMMAND} -E rm -f ${PERFGATE_API_LIBRARY}
  COMMAND sh -c "\"$1\" -M < \"$2\"" ar ${CMAKE_AR} ${CMAKE_BINARY_DIR}/api/libperfgate.mri
  COMMAND ${CMAKE_RANLIB} ${PERFGATE_API_LIBRARY}
  DEPENDS ${PERFGATE_API_ARCHIVES} ${archive_files} ${CMAKE_BINARY_DIR}/api/libperfgate.mri
  COMMENT "Merging the public API's archive, libperfgate.a"
  VERBATIM)
add_custom_target(perfgate-api-archive ALL DEPENDS ${PERFGATE_API_LIBRARY})

set(PERFGATE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/perfgate)
configure_package_config_file(cmake/perfgateConfig.cmake.in ${CMAKE_BINARY_DIR}/api/perfgateConfig.cmake
                              INSTALL_DESTINATION ${PERFGATE_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/api/perfgateConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PERFGATE_API_LIBRARY} DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/perfgate DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_BINARY_DIR}/api/perfgateConfig.cmake ${CMAKE_BINARY_DIR}/api/perfgateConfigVersion.cmake
        DESTINATION ${PERFGATE_CMAKE_DIR})
