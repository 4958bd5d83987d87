#include "common/shared_library.h"

#include <dlfcn.h>

namespace perfgate {

std::string open_shared_library(const char* soname, std::string_view purpose, void*& handle) {
  handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle) return "";
  const char* why = ::dlerror();
  return "cannot load " + std::string(soname) + " " + std::string(purpose) + ": " +
         (why ? why : "unknown error");
}

void* shared_library_symbol(void* handle, const char* name) {
  return ::dlsym(handle, name);
}

}  // namespace perfgate
