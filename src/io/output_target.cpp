#include "io/output_target.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string_view>

namespace perfgate {
namespace {

namespace fs = std::filesystem;

// Linux's own limit on the links one lookup follows (ELOOP past it).
constexpr int kMaxLinks = 40;

// The path with its folder's symbolic links resolved and its last component kept as it is, so
// that an lstat of the result says what that component is.
fs::path with_resolved_folder(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec).lexically_normal();
  if (ec) return path;
  fs::path folder = fs::weakly_canonical(absolute.parent_path(), ec);
  if (ec || absolute.filename().empty()) return absolute;
  return folder / absolute.filename();
}

// /proc's descriptor links (where /dev/stdout and /dev/fd/N lead) name an open file, which may be
// a pipe, a terminal, or a file another process holds open; only writing through them is right.
bool is_descriptor_link(const fs::path& resolved) {
  return std::string_view(resolved.native()).starts_with("/proc/");
}

// What a path that exists (following links) is, as an output.
OutputTarget in_place_target(const std::string& given, const struct stat& st) {
  OutputTarget target{given, true, ""};
  if (S_ISDIR(st.st_mode)) target.refusal = "is a folder; give a file name";
  if (S_ISBLK(st.st_mode))
    target.refusal =
        "is a block device; perfgate writes reports into files, character devices and FIFOs only";
  if (S_ISSOCK(st.st_mode)) target.refusal = "is a socket; give a file name";
  return target;
}

}  // namespace

OutputTarget resolve_output_target(const std::string& given) {
  fs::path path = with_resolved_folder(given);
  for (int links = 0; links <= kMaxLinks; ++links) {
    struct stat st {};
    if (is_descriptor_link(path)) {
      if (::stat(given.c_str(), &st) != 0) return OutputTarget{given, true, ""};  // open() will say why
      return in_place_target(given, st);
    }
    if (::lstat(path.c_str(), &st) != 0) return OutputTarget{path.string(), false, ""};  // created
    if (S_ISREG(st.st_mode)) return OutputTarget{path.string(), false, ""};
    if (!S_ISLNK(st.st_mode)) return in_place_target(given, st);
    std::error_code ec;
    fs::path link = fs::read_symlink(path, ec);
    if (ec) return OutputTarget{path.string(), false, ""};
    path = with_resolved_folder(link.is_absolute() ? link : path.parent_path() / link);
  }
  return OutputTarget{given, true, "too many levels of symbolic links"};
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = EIO;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace perfgate
