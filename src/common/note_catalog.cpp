// The run notes' table, from its rows in common/note_catalog.def (which names the severities and
// sources below), and the rendering of a note's sentence from its message.
#include <fmt/format.h>

#include "common/notes.h"

namespace perfgate {
namespace {

constexpr NoteSeverity kInfo = NoteSeverity::Info;
constexpr NoteSeverity kWarning = NoteSeverity::Warning;
constexpr NoteSeverity kDataLoss = NoteSeverity::DataLoss;

constexpr std::string_view kLoader = "loader: run inputs";
constexpr std::string_view kGraphCaptures = "loader and analysis: graph captures";
constexpr std::string_view kKineto = "reader: Kineto/Chrome trace";
constexpr std::string_view kLegacy = "reader: PyTorch legacy profiler trace";
constexpr std::string_view kSnapshot = "reader: memory snapshot";
constexpr std::string_view kRocprof = "reader: rocprofv3";
constexpr std::string_view kNsys = "reader: nsys export";
constexpr std::string_view kXSpace = "reader: XSpace";
constexpr std::string_view kNeuron = "reader: Neuron profile";
constexpr std::string_view kNeuronWarnings = "the Neuron profiler's own warnings";
constexpr std::string_view kSteps = "analysis: steps and window";
constexpr std::string_view kGpu = "analysis: GPUs";
constexpr std::string_view kOps = "analysis: ops";
constexpr std::string_view kMemory = "analysis: memory";
constexpr std::string_view kRun = "analysis: the run's workers";
constexpr std::string_view kCollectives = "analysis: collectives across ranks";
constexpr std::string_view kInvariants = "the report invariants";
constexpr std::string_view kMerge = "merge of partial reports";
constexpr std::string_view kBaseline = "baseline";
constexpr std::string_view kHistory = "run history";

constexpr NoteInfo kCatalog[] = {
#define PERFGATE_NOTE(id, severity, source, message, help) {#id, severity, source, message, help},
#include "common/note_catalog.def"
#undef PERFGATE_NOTE
};
static_assert(std::size(kCatalog) == kNoteCount);

const NoteValue* find_value(const Note& note, std::string_view name) {
  for (const NoteArg& a : note.args)
    if (a.name == name) return &a.value;
  return nullptr;
}

std::string formatted(const NoteValue& value, std::string_view spec) {
  return std::visit(
      [&](const auto& v) {
        return spec.empty() ? fmt::format("{}", v)
                            : fmt::format(fmt::runtime(fmt::format("{{:{}}}", spec)), v);
      },
      value);
}

// A choice's number: a count, a flag; a text counts as its length.
double number_of(const NoteValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  return static_cast<double>(std::get<std::string>(value).size());
}

// The branches of a choice, from just after its '|' or '?' to its closing brace (excluded), split
// at the '|'s outside the placeholders they hold. `end`: the position of that brace.
std::vector<std::string_view> branches(std::string_view text, std::size_t from, std::size_t& end) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = from;
  for (std::size_t i = from; i < text.size(); ++i) {
    char c = text[i];
    if (c == '{') ++depth;
    if (c == '}' && depth-- == 0) {
      out.push_back(text.substr(start, i - start));
      end = i;
      return out;
    }
    if (c == '|' && depth == 0) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(text.substr(start));
  end = text.size();
  return out;
}

void render(std::string_view text, const Note& note, std::string& out) {
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '{') {
      std::size_t next = std::min(text.find('{', i), text.size());
      out.append(text.substr(i, next - i));
      i = next;
      continue;
    }
    std::size_t j = i + 1;
    while (j < text.size() && note_detail::is_name_char(text[j])) ++j;
    std::string_view name = text.substr(i + 1, j - i - 1);
    char kind = j < text.size() ? text[j] : '}';
    const NoteValue* value = find_value(note, name);
    if (kind == '|' || kind == '?') {
      std::size_t end = 0;
      std::vector<std::string_view> choices = branches(text, j + 1, end);
      double n = value ? number_of(*value) : 0;
      std::string_view chosen;
      if (kind == '?')
        chosen = n != 0 ? choices[0] : choices.size() > 1 ? choices[1] : std::string_view();
      else
        chosen = n == 1 ? choices[0] : choices.size() > 1 ? choices[1] : std::string_view();
      render(chosen, note, out);
      i = end + 1;
      continue;
    }
    std::size_t end = std::min(text.find('}', j), text.size());
    std::string_view spec = kind == ':' ? text.substr(j + 1, end - j - 1) : std::string_view();
    if (value)
      out += formatted(*value, spec);
    else
      out.append(text.substr(i, end + 1 - i));
    i = end + 1;
  }
}

}  // namespace

std::span<const NoteInfo> note_catalog() {
  return kCatalog;
}

const NoteInfo& note_info(NoteId id) {
  return kCatalog[note_position(id)];
}

std::string_view note_severity_name(NoteSeverity severity) {
  switch (severity) {
    case NoteSeverity::Info:
      return "info";
    case NoteSeverity::Warning:
      return "warning";
    case NoteSeverity::DataLoss:
      return "data-loss";
  }
  return "info";
}

std::string note_text(const Note& note) {
  std::string out;
  if (note_position(note.id) >= kNoteCount) return out;
  render(kCatalog[note_position(note.id)].message, note, out);
  return out;
}

std::vector<std::string> note_texts(const std::vector<Note>& notes) {
  std::vector<std::string> out;
  out.reserve(notes.size());
  for (const Note& n : notes) out.push_back(note_text(n));
  return out;
}

}  // namespace perfgate
