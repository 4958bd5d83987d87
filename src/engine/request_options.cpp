#include "engine/request_options.h"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

#include "common/capture_profile.h"
#include "common/errors.h"
#include "engine/engine.h"
#include "engine/front_end_support.h"
#include "engine/memory_budget.h"

namespace perfgate {
namespace {

template <typename T>
constexpr OptionValue value_kind() {
  if constexpr (IsOptional<T>::value) {
    return value_kind<typename T::value_type>();
  } else if constexpr (std::is_same_v<T, bool>) {
    return OptionValue::Flag;
  } else if constexpr (std::is_integral_v<T>) {
    return OptionValue::Integer;
  } else if constexpr (std::is_floating_point_v<T>) {
    return OptionValue::Number;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return OptionValue::Text;
  } else {
    static_assert(std::is_same_v<T, std::vector<std::string>>, "an option is a flag, a number or text");
    return OptionValue::Texts;
  }
}

// The default as docs/usage.md and the help show it: none for an absent value, a flag, an empty text.
template <typename T>
std::string default_text(const T& value) {
  if constexpr (IsOptional<T>::value) {
    return value ? default_text(*value) : "";
  } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::vector<std::string>>) {
    return "";
  } else if constexpr (std::is_arithmetic_v<T>) {
    return fmt::format("{}", value);
  } else {
    return value;
  }
}

const std::vector<OptionInfo>& table() {
  static const std::vector<OptionInfo> options = [] {
    const RequestSettings defaults;
    std::vector<OptionInfo> out;
#define PERFGATE_OPTION(field, type, initial, flag, argument, shown, section, value_name, check, help) \
  out.push_back(OptionInfo{#field, flag, argument, shown, section, value_name, check, help,            \
                           value_kind<type>(), default_text(defaults.field)});
#include "engine/request_options.def"
#undef PERFGATE_OPTION
    return out;
  }();
  return options;
}

std::string choices_text(const OptionInfo& option) {
  std::vector<std::string_view> choices = option_choices(option);
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i)
    out += fmt::format("{}{}", i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ", choices[i]);
  return out;
}

[[noreturn]] void refuse(const OptionInfo& option, std::string given, std::string why) {
  throw RequestError(std::string(option.field), [field = std::string(option.field), given = std::move(given),
                                                 why = std::move(why)](const RequestError::FieldNames& name) {
    return fmt::format("{}{}: {}", name(field), given.empty() ? "" : " " + given, why);
  });
}

// The table's check of one value: what the command line's parser checks as it reads a flag, for the
// front ends that hand the engine values it did not check (the public API).
template <typename T>
void check_value(const OptionInfo& option, const T& value) {
  const OptionCheck& check = option.check;
  if constexpr (IsOptional<T>::value) {
    if (value) check_value(option, *value);
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    if (check.kind == OptionCheck::Kind::Range && value.size() > static_cast<std::size_t>(check.max))
      refuse(option, "", fmt::format("at most {} ({} given)", check.max, value.size()));
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (check.kind == OptionCheck::Kind::Range && (value < check.min || value > check.max))
      refuse(option, fmt::format("{}", value), fmt::format("out of range ({})", range_text(check)));
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (check.kind == OptionCheck::Kind::OneOf && !value.empty() &&
        !std::ranges::count(option_choices(option), std::string_view(value)))
      refuse(option, "'" + value + "'", choices_text(option));
  }
}

void check_values(const RequestSettings& s) {
#define PERFGATE_OPTION(field, ...) check_value(*option_of(#field), s.field);
#include "engine/request_options.def"
#undef PERFGATE_OPTION
}

}  // namespace

std::span<const OptionInfo> request_options() {
  return table();
}

const OptionInfo* option_of(std::string_view field) {
  for (const OptionInfo& option : table())
    if (option.field == field) return &option;
  return nullptr;
}

std::string option_help(const OptionInfo& option, const std::function<std::string(const OptionInfo&)>& name) {
  std::string out;
  std::string_view help = option.help;
  for (std::size_t at = help.find('{'); at != std::string_view::npos; at = help.find('{')) {
    std::size_t end = help.find('}', at);
    const OptionInfo* named =
        end == std::string_view::npos ? nullptr : option_of(help.substr(at + 1, end - at - 1));
    out += help.substr(0, named ? at : at + 1);
    if (named) out += name(*named);
    help.remove_prefix(named ? end + 1 : at + 1);
  }
  return out += help;
}

std::vector<std::string_view> option_choices(const OptionInfo& option) {
  std::vector<std::string_view> out;
  std::string_view rest = option.check.choices;
  while (!rest.empty()) {
    std::size_t bar = rest.find('|');
    out.push_back(rest.substr(0, bar));
    rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
  }
  return out;
}

RunLabels given_labels(const RequestSettings& s) {
  RunLabels given{s.branch, s.commit, {}};
  for (const std::string& text : s.label) given.labels.push_back(parse_label(text));
  return given;
}

std::string range_text(const OptionCheck& check) {
  if (check.max == kUnbounded) return fmt::format("{} or more", check.min);
  return fmt::format("{} to {}", check.min, check.max);
}

void apply_settings(const RequestSettings& s, RunRequest& request) {
  check_values(s);
  request.rules.files = s.rules;
  request.rules.settings = s.set;
  request.rules.disabled = s.disable;
  request.rules.workload.reset();
  if (!s.workload.empty())
    request.rules.workload = capture_enum_named<CaptureWorkload>(kCaptureWorkloadNames, s.workload);
  request.gate = GateOptions{fail_on_named(s.fail_on), s.warnings_exit_code, ""};

  request.baselines = s.baseline;
  request.baseline_name = s.baseline_name;
  HistoryRequest& history = request.history;
  history.location = s.history;
  history.record = s.record;
  history.baseline_runs = static_cast<std::size_t>(s.baseline_runs);
  history.baseline_branch = s.baseline_branch;
  // The CI system's labels with the given ones on top; the commit labels the current run in the
  // recent trend too.
  history.labels = run_labels(given_labels(s));

  AnalysisOptions& options = request.options;
  options.window.iter_start = s.iter_start;
  options.window.iter_stop = s.iter_stop;
  options.window.skip_first = s.skip_first;
  options.window.time_start.reset();
  options.window.time_stop.reset();
  if (s.time_start) options.window.time_start = window_time_ns("time_start", *s.time_start);
  if (s.time_stop) options.window.time_stop = window_time_ns("time_stop", *s.time_stop);
  options.device.reset();
  if (s.device) options.device = static_cast<std::int32_t>(*s.device);
  options.key_op = s.key_op;
  options.step_pattern = s.step_pattern;
  options.detailed_workers = static_cast<std::size_t>(s.detailed_workers);
  options.graph_captures = s.graph_capture;
  options.device_memory = 0;
  if (!s.device_memory.empty()) options.device_memory = device_memory_bytes(s.device_memory);
  request.one_run = s.one_run;

  request.limits.threads = static_cast<unsigned>(s.threads);
  request.limits.max_input_memory = max_input_memory_of(s.max_input_memory);
  request.limits.memory = memory_budget(MemoryBudgetArgs{s.max_memory, s.spill_dir});
  check_request(request);
}

}  // namespace perfgate
