// A Debian shared library perfgate opens when first used rather than links: SQLite, ISA-L,
// libxlsxwriter and libpq (docs/performance.md, "The fixed cost of a run": a linked library's
// bindings cost every run at start-up). Each stays the system's library, so that its security
// updates reach perfgate. The loaders (io/sqlite_library.h, ...) keep the handle open to the end.
#pragma once

#include <string>
#include <string_view>

namespace perfgate {

// Opens `soname`; "" and `handle` set, else why not: "cannot load <soname> <purpose>: <dlerror>".
std::string open_shared_library(const char* soname, std::string_view purpose, void*& handle);

// The function `name` of an open library, or nullptr.
void* shared_library_symbol(void* handle, const char* name);

// Sets `function` to the library's function `name`; "" or why not: "<soname> has no function
// <name>: another <library> than perfgate was built with".
template <class Function>
std::string find_library_function(void* handle, const char* soname, const char* name,
                                  std::string_view library, Function& function) {
  function = reinterpret_cast<Function>(shared_library_symbol(handle, name));
  if (function) return "";
  return std::string(soname) + " has no function " + name + ": another " + std::string(library) +
         " than perfgate was built with";
}

// The same two, where a loader refuses what it cannot open by throwing `Error` (the input's or
// the output's error class, which common/ does not know) with the message above.
template <class Error>
void* open_shared_library_or_throw(const char* soname, std::string_view purpose) {
  void* handle = nullptr;
  if (std::string problem = open_shared_library(soname, purpose, handle); !problem.empty())
    throw Error(problem);
  return handle;
}
template <class Error, class Function>
void find_library_function_or_throw(void* handle, const char* soname, const char* name,
                                    std::string_view library, Function& function) {
  if (std::string problem = find_library_function(handle, soname, name, library, function); !problem.empty())
    throw Error(problem);
}

}  // namespace perfgate
