// Run notes: what a reader, the loader, an analysis, the merge, the baseline or the history noticed
// about the input or the run, each declared once (common/note_catalog.def) with a stable id, a
// severity, a source, its message and what to do, as Perfetto's trace processor declares its stats.
// The code records a note by id with its arguments:
//   profile.notes.push_back(note<NoteId::kineto_flow_one_end>(arg<"count">(n)));
// and every output renders its sentence from the message where it shows it (note_text). An
// argument the message does not name, or a name it uses that no argument gives, does not compile.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace perfgate {

// The catalog's notes, in its order (the ids are made from its rows).
enum class NoteId : std::uint16_t {
#define PERFGATE_NOTE(id, ...) id,
#include "common/note_catalog.def"
#undef PERFGATE_NOTE
};

// Each note's message, by id: what note<>() checks its arguments against as it compiles.
inline constexpr std::string_view kNoteMessages[] = {
#define PERFGATE_NOTE(id, severity, source, message, ...) message,
#include "common/note_catalog.def"
#undef PERFGATE_NOTE
};
inline constexpr std::size_t kNoteCount = std::size(kNoteMessages);

constexpr std::size_t note_position(NoteId id) {
  return static_cast<std::size_t>(id);
}

// How much a note matters to the numbers (note_catalog.def says what each means).
enum class NoteSeverity : std::uint8_t { Info, Warning, DataLoss };

struct NoteInfo {
  std::string_view id;
  NoteSeverity severity;
  std::string_view source;   // the reader, loader or analysis the condition comes from
  std::string_view message;  // the template (note_catalog.def says its syntax)
  std::string_view help;     // what it means and what to do
};

std::span<const NoteInfo> note_catalog();
const NoteInfo& note_info(NoteId id);
std::string_view note_severity_name(NoteSeverity severity);  // "info", "warning", "data-loss"

// An argument's value: integers (counts, bytes, flags as 0 and 1), real numbers, text.
using NoteValue = std::variant<std::int64_t, double, std::string>;

struct NoteArg {
  std::string name;
  NoteValue value;
  bool operator==(const NoteArg&) const = default;
};

// A note as recorded: its id and its arguments, the sentence not yet rendered.
struct Note {
  NoteId id{};
  std::vector<NoteArg> args;
  bool operator==(const Note&) const = default;
};

// The note's sentence, from its message and arguments. An argument the note lacks is shown as
// its placeholder ("{count}"), never a crash.
std::string note_text(const Note& note);
std::vector<std::string> note_texts(const std::vector<Note>& notes);

// An argument's name as a template argument, so that note<>() can check it as it compiles.
template <std::size_t N>
struct NoteArgName {
  char text[N];
  consteval NoteArgName(const char (&name)[N]) { std::copy_n(name, N, text); }
  constexpr std::string_view view() const { return {text, N - 1}; }
};

template <NoteArgName Name>
struct NamedNoteArg {
  NoteValue value;
};

// An argument named for the message's placeholder {name}.
template <NoteArgName Name, class T>
NamedNoteArg<Name> arg(const T& value) {
  if constexpr (std::is_integral_v<T>)
    return {NoteValue(std::in_place_type<std::int64_t>, static_cast<std::int64_t>(value))};
  else if constexpr (std::is_floating_point_v<T>)
    return {NoteValue(std::in_place_type<double>, static_cast<double>(value))};
  else
    return {NoteValue(std::in_place_type<std::string>, std::string_view(value))};
}

namespace note_detail {

constexpr bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether every placeholder of `message` ({name...}, in branches too) is one of `names`, and each
// of `names` a placeholder, once.
template <std::size_t N>
constexpr bool names_match(std::string_view message, const std::array<std::string_view, N>& names) {
  std::array<bool, N> used{};
  for (std::size_t i = 0; i < message.size(); ++i) {
    if (message[i] != '{') continue;
    std::size_t end = i + 1;
    while (end < message.size() && is_name_char(message[end])) ++end;
    std::string_view name = message.substr(i + 1, end - i - 1);
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return false;
    used[static_cast<std::size_t>(it - names.begin())] = true;
  }
  for (std::size_t i = 0; i < N; ++i)
    if (!used[i] || std::count(names.begin(), names.end(), names[i]) != 1) return false;
  return true;
}

}  // namespace note_detail

template <NoteId Id, NoteArgName... Names>
Note note(NamedNoteArg<Names>... args) {
  static_assert(note_detail::names_match(kNoteMessages[note_position(Id)],
                                         std::array<std::string_view, sizeof...(Names)>{Names.view()...}),
                "the arguments are not the placeholders of the note's message (common/note_catalog.def)");
  return Note{Id, {NoteArg{std::string(Names.view()), std::move(args.value)}...}};
}

}  // namespace perfgate
