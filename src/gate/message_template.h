// Rule messages: text with {placeholders} ("{value}", "{gpu.utilization_pct}", "{offenders}");
// "{{" and "}}" stand for braces.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

// The placeholder names in order; `error` says what is wrong when a brace is unbalanced.
std::vector<std::string> template_placeholders(std::string_view text, std::string& error);

std::string fill_template(std::string_view text,
                          const std::function<std::string(std::string_view)>& value_of);

}  // namespace perfgate
