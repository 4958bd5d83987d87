#include "cli/request_flags.h"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/number_checks.h"
#include "cli/outputs.h"

namespace perfgate::cli {
namespace {

std::string flag_name(const OptionInfo& option) {
  return std::string(option.flag);
}

template <typename T>
void add_flag(CLI::App& cmd, const OptionInfo& option, T& value) {
  std::string help = option_help(option, flag_name);
  if constexpr (std::is_same_v<T, bool>) {
    cmd.add_flag(flag_name(option), value, help);
  } else {
    if (option.value == OptionValue::Texts) help += "; repeatable";
    if (!option.default_text.empty()) help += fmt::format(" (default {})", option.default_text);
    CLI::Option* flag =
        cmd.add_option(flag_name(option), value, help)->type_name(std::string(option.value_name));
    const OptionCheck& check = option.check;
    if (check.kind == OptionCheck::Kind::Range && option.value == OptionValue::Integer)
      flag->check(whole_number(check.min, check.max));
    if (check.kind == OptionCheck::Kind::OneOf) {
      std::vector<std::string> choices;
      for (std::string_view choice : option_choices(option)) choices.emplace_back(choice);
      flag->check(CLI::IsMember(choices));
    }
    if (check.kind == OptionCheck::Kind::Folder) flag->check(non_empty_path);
  }
}

}  // namespace

void add_request_flags(CLI::App& cmd, RequestSettings& settings, unsigned shown_by,
                       const std::function<bool(const OptionInfo&)>& wanted) {
  // Each flag apart from the others (cli/commands.h): checked once, in the command's set of names.
#define PERFGATE_OPTION(field, type, initial, flag, argument, shown, ...) \
  if (((shown)&shown_by) != 0 && (!wanted || wanted(*option_of(#field)))) \
    add_options_apart(cmd, [&](CLI::App& c) { add_flag(c, *option_of(#field), settings.field); });
#include "engine/request_options.def"
#undef PERFGATE_OPTION
}

std::string flag_of(std::string_view field) {
  if (const OptionInfo* option = option_of(field)) return flag_name(*option);
  std::string flag = "--" + std::string(field);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

}  // namespace perfgate::cli
