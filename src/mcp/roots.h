// The folders `perfgate mcp` may read (and, with --allow-write, write) in: every path a client names
// is resolved (symbolic links and "..") and refused unless it lies under one of them.
#pragma once

#include <string>
#include <vector>

namespace perfgate::mcp {

class Roots {
 public:
  // Each folder resolved; none given: the working folder. Throws ConfigError for one that is not a
  // folder.
  explicit Roots(const std::vector<std::string>& folders);

  // The path resolved, relative ones against the first root; throws ConfigError (exit 2) naming
  // the path when it is outside every root, or cannot be resolved.
  std::string check(const std::string& path) const;
  // The same for a file that need not exist yet (a history to create): its folder must.
  std::string check_new(const std::string& path) const;

  const std::vector<std::string>& folders() const { return folders_; }

 private:
  std::vector<std::string> folders_;
};

}  // namespace perfgate::mcp
