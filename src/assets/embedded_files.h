// Files built into the binary (cmake/EmbedFiles.cmake): the shipped rule files and the report
// templates, so that a copied executable needs nothing beside it.
#pragma once

#include <span>
#include <string_view>
#include <utility>

namespace perfgate {

// Each file's repository-relative path ("rules/default.yaml", "templates/report.css") and contents.
std::span<const std::pair<std::string_view, std::string_view>> embedded_files();

// The contents of an embedded file by path; empty when there is none.
std::string_view embedded_file(std::string_view path);

}  // namespace perfgate
