# Install rules and the Debian package (`cpack -G DEB` in the build folder; docs/install.md):
# the binary, the shipped rule files, the bundled example, man pages made from the commands' --help,
# and bash completion. Included by CMakeLists.txt after the perfgate target.
include(GNUInstallDirs)
find_program(HELP2MAN help2man)

# cpack and cmake --install run the install rules without building anything: the package's own
# pieces (the changelog and the man pages, made by the full build only) are built first, where they
# are missing (issue #55: `cpack -G DEB` after ci/demo.sh, which builds perfgate alone, found no
# changelog.gz). A failed build fails the install with the build's message.
set(PERFGATE_PACKAGE_PIECES perfgate-changelog)
if(NOT PERFGATE_SANITIZE AND HELP2MAN)
  list(APPEND PERFGATE_PACKAGE_PIECES perfgate-man)
endif()
install(CODE "
  execute_process(COMMAND \"${CMAKE_COMMAND}\" --build \"${CMAKE_BINARY_DIR}\" --target ${PERFGATE_PACKAGE_PIECES}
                  RESULT_VARIABLE built)
  if(NOT built EQUAL 0)
    message(FATAL_ERROR \"cannot build the package's changelog and man pages (${PERFGATE_PACKAGE_PIECES})\")
  endif()")

install(TARGETS perfgate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Copies of the rule sets built into the binary, to read or to start a rule file from.
install(FILES ${PERFGATE_RULE_FILES} DESTINATION ${CMAKE_INSTALL_DATADIR}/perfgate/rules)
# Not under share/doc: container images made from debian:*-slim drop /usr/share/doc.
install(FILES examples/small_training.pt.trace.json.gz ci/profile_smoke_test.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/perfgate/examples)
# The GitHub Action's entry point and the script that posts a pull-request comment, a check run or a
# GitLab merge-request note (ci/action.Containerfile, ci/gitlab-ci.yml run them from here); the
# script runs as `python3 post_report.py` (Python is not a dependency of the package).
install(PROGRAMS ci/action.sh DESTINATION ${CMAKE_INSTALL_DATADIR}/perfgate/ci)
install(FILES ci/post_report.py DESTINATION ${CMAKE_INSTALL_DATADIR}/perfgate/ci)
install(FILES packaging/perfgate.bash-completion DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME perfgate)
# Debian policy 12.5 and 12.7: the copyright file (every licence of what the binary holds) and the
# changelog, compressed with gzip -9n (no name or time stamp: the same bytes on every build). A
# native package's changelog is changelog.gz.
set(PERFGATE_CHANGELOG_GZ ${CMAKE_BINARY_DIR}/packaging/changelog.gz)
add_custom_command(
  OUTPUT ${PERFGATE_CHANGELOG_GZ}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/packaging
  COMMAND sh -c "gzip -9n < \"$1\" > \"$2\"" gzip ${CMAKE_SOURCE_DIR}/packaging/changelog ${PERFGATE_CHANGELOG_GZ}
  DEPENDS packaging/changelog
  COMMENT "Compressing the Debian changelog"
  VERBATIM)
add_custom_target(perfgate-changelog ALL DEPENDS ${PERFGATE_CHANGELOG_GZ})
install(FILES packaging/copyright ${PERFGATE_CHANGELOG_GZ} DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/perfgate)

# Man pages: one per command, written by help2man from the built binary's --help
# (packaging/man-pages.sh), dated by the last commit so that a rebuild gives the same pages.
if(PERFGATE_SANITIZE)
  # A sanitizer build is never packaged.
elseif(NOT HELP2MAN)
  message(WARNING "help2man not found: no man pages are built or installed (ci/setup.sh installs it)")
else()
  set(PERFGATE_MAN_DIR ${CMAKE_BINARY_DIR}/man)
  execute_process(COMMAND git -C ${CMAKE_SOURCE_DIR} log -1 --format=%ct OUTPUT_VARIABLE PERFGATE_COMMIT_TIME
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  set(date_env "")
  if(PERFGATE_COMMIT_TIME)
    set(date_env SOURCE_DATE_EPOCH=${PERFGATE_COMMIT_TIME})
  endif()
  add_custom_command(
    OUTPUT ${PERFGATE_MAN_DIR}/perfgate.1.gz
    COMMAND ${CMAKE_COMMAND} -E env ${date_env} ${CMAKE_SOURCE_DIR}/packaging/man-pages.sh $<TARGET_FILE:perfgate>
            ${PERFGATE_MAN_DIR} ${PROJECT_VERSION}
    DEPENDS perfgate packaging/man-pages.sh packaging/man-extra.h2m
    COMMENT "Writing the man pages from perfgate's --help"
    VERBATIM)
  add_custom_target(perfgate-man ALL DEPENDS ${PERFGATE_MAN_DIR}/perfgate.1.gz)
  install(DIRECTORY ${PERFGATE_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1.gz")
endif()

# The Debian dependency on the library that holds SONAME, found beside LIBRARY (the development
# link that the build found), as dpkg-shlibdeps would write it had perfgate linked the library:
# perfgate opens libxlsxwriter, libpq, SQLite and ISA-L with dlopen, which dpkg-shlibdeps cannot see. The package
# that installed the file, at the least version that has every function perfgate looks up (the
# X(name) list in HEADER) by the package's symbols file, else the version its shlibs file asks.
function(perfgate_debian_dependency library soname header out)
  get_filename_component(dir ${library} DIRECTORY)
  file(REAL_PATH ${dir}/${soname} real)
  set(candidates ${dir}/${soname} ${real})
  # On a merged /usr system a library found under /lib is registered by dpkg under /usr/lib.
  foreach(path ${dir}/${soname} ${real})
    if(path MATCHES "^/lib")
      list(APPEND candidates /usr${path})
    endif()
  endforeach()
  foreach(path ${candidates})
    execute_process(COMMAND dpkg-query -S ${path} OUTPUT_VARIABLE owner RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0)
      break()
    endif()
  endforeach()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "no Debian package holds ${dir}/${soname}, which perfgate loads at run time")
  endif()
  string(REGEX MATCH "^[^:, ]+" package "${owner}")
  string(REPLACE "." "\\." soname_pattern ${soname})
  execute_process(COMMAND dpkg-query --control-show ${package} symbols OUTPUT_VARIABLE symbols ERROR_QUIET)
  # A symbols file starts "libpq.so.5 libpq5 #MINVER#", then " PQconnectdbParams@Base 9.0~" lines.
  if(symbols MATCHES "(^|\n)${soname_pattern} ([^\n]+)")
    set(template ${CMAKE_MATCH_2})
    file(STRINGS ${header} lines REGEX "X\\(")
    string(REGEX MATCHALL "X\\([A-Za-z0-9_]+\\)" calls "${lines}")
    set(least "")
    foreach(call ${calls})
      string(REGEX REPLACE "X\\((.+)\\)" "\\1" name ${call})
      if(NOT symbols MATCHES "\n ${name}@Base ([^ \n]+)")
        message(FATAL_ERROR "${package}'s symbols file has no ${name}, which perfgate looks up in ${soname}")
      endif()
      set(version ${CMAKE_MATCH_1})
      if(version STREQUAL "0")  # in every version
        continue()
      endif()
      execute_process(COMMAND dpkg --compare-versions "${version}" gt "${least}" RESULT_VARIABLE newer)
      if(NOT least OR newer EQUAL 0)
        set(least ${version})
      endif()
    endforeach()
    set(minimum "")
    if(least)
      set(minimum "(>= ${least})")
    endif()
    string(REPLACE "#MINVER#" "${minimum}" dependency "${template}")
    string(STRIP "${dependency}" dependency)
  else()
    # shlibs lines read "libpq 5 libpq5 (>= 15.18)" for libpq.so.5.
    execute_process(COMMAND dpkg-query --control-show ${package} shlibs OUTPUT_VARIABLE shlibs ERROR_QUIET)
    set(dependency ${package})
    if(soname MATCHES "^(.+)\\.so\\.(.+)$")
      if(shlibs MATCHES "(^|\n)${CMAKE_MATCH_1} ${CMAKE_MATCH_2} ([^\n]+)")
        set(dependency ${CMAKE_MATCH_2})
      endif()
    endif()
  endif()
  set(${out} ${dependency} PARENT_SCOPE)
endfunction()

find_program(DPKG_QUERY dpkg-query)
if(DPKG_QUERY AND NOT PERFGATE_SANITIZE)
  perfgate_debian_dependency(${XLSXWRITER_LIBRARY} ${XLSXWRITER_SONAME} ${CMAKE_SOURCE_DIR}/src/render/xlsx/xlsx_library.h
                             PERFGATE_XLSXWRITER_DEPENDENCY)
  perfgate_debian_dependency(${LIBPQ_LIBRARY} ${LIBPQ_SONAME} ${CMAKE_SOURCE_DIR}/src/history/libpq_library.h
                             PERFGATE_LIBPQ_DEPENDENCY)
  perfgate_debian_dependency(${SQLite3_LIBRARY} ${SQLITE_SONAME} ${CMAKE_SOURCE_DIR}/src/io/sqlite_library.h
                             PERFGATE_SQLITE_DEPENDENCY)
  perfgate_debian_dependency(${ISAL_LIBRARY} ${ISAL_SONAME} ${CMAKE_SOURCE_DIR}/src/io/isal_library.h
                             PERFGATE_ISAL_DEPENDENCY)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${PERFGATE_XLSXWRITER_DEPENDENCY}, ${PERFGATE_LIBPQ_DEPENDENCY}, \
${PERFGATE_SQLITE_DEPENDENCY}, ${PERFGATE_ISAL_DEPENDENCY}")
  # Configure again when the functions looked up change.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS src/render/xlsx/xlsx_library.h
                                                                 src/history/libpq_library.h
                                                                 src/io/sqlite_library.h src/io/isal_library.h)
endif()

set(PERFGATE_PACKAGE_CONTACT "perfgate maintainers <maintainers@users.noreply.a-seed-4ec31912.example>"
    CACHE STRING "The Debian package's Maintainer field: a name and an e-mail address")
# A build tree configured before the field needed an address holds the old default: take the new one.
if(PERFGATE_PACKAGE_CONTACT STREQUAL "perfgate maintainers")
  set(PERFGATE_PACKAGE_CONTACT "perfgate maintainers <maintainers@users.noreply.a-seed-4ec31912.example>"
      CACHE STRING "The Debian package's Maintainer field: a name and an e-mail address" FORCE)
endif()
if(NOT PERFGATE_PACKAGE_CONTACT MATCHES "^[^<>]+ <[^<>@ ]+@[^<>@ ]+>$")
  message(FATAL_ERROR "PERFGATE_PACKAGE_CONTACT must read 'Name <address>', not '${PERFGATE_PACKAGE_CONTACT}'")
endif()
set(CPACK_PACKAGE_NAME perfgate)
set(CPACK_PACKAGE_VENDOR perfgate)
set(CPACK_PACKAGE_CONTACT ${PERFGATE_PACKAGE_CONTACT})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "report generator and CI gate for deep-learning training profiles")
# Lines of at most 79 characters (Debian policy 5.6.13; lintian's extended-description-line-too-long).
set(CPACK_PACKAGE_DESCRIPTION
    "perfgate reads PyTorch Profiler (Kineto) traces, Nsight Systems SQLite exports
and AWS Neuron profiles, computes step times, GPU utilization, the step-time
breakdown, Tensor Core use, FLOPs and MFU, evaluates rules that turn them into
findings with recommendations, and gates a CI job against a baseline or a run
history. Reports: HTML, Markdown, XLSX, JSON, JUnit, GitHub and GitLab.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_GENERATOR DEB)
include(CPack)
