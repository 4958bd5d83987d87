// perfgate metrics: prints the metric catalog, the report's tables and their columns, or the run
// notes' catalog.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "common/errors.h"
#include "common/metrics.h"
#include "common/notes.h"
#include "common/tables.h"
#include "render/json_writer.h"
#include "report_model/report.h"

namespace perfgate::cli {
namespace {

// The tables as common/table_catalog.def declares them, the delta tables' texts per window step.
int print_tables(const std::string& format) {
  TableWording wording{.per_item = kChangesPerItem};
  for (const TableInfo& t : table_catalog()) {
    std::string description = table_text(t.description, wording);
    if (format == "markdown") {
      std::cout << fmt::format("### `{}`: {}\n\n{}.\n\n| column | unit | meaning |\n|---|---|---|\n", t.name,
                               t.title, description);
      for (const ColumnInfo& c : t.columns)
        std::cout << fmt::format("| `{}` | {} | {} |\n", c.name, c.unit, table_text(c.description, wording));
      std::cout << '\n';
    } else {
      std::cout << fmt::format("{} ({})\n", t.name, t.title);
      for (const ColumnInfo& c : t.columns)
        std::cout << fmt::format("  {:<28} {:<7} {}\n", c.name, c.unit, table_text(c.description, wording));
    }
  }
  return kExitPass;
}

// The run notes as common/note_catalog.def declares them: docs/reports.md's "Run notes" lists
// them so (ci/update-docs.sh). A message's '|' is escaped, as it would end a Markdown table's cell.
int print_notes(const std::string& format) {
  auto cell = [](std::string_view text) {
    std::string out;
    for (char c : text) {
      if (c == '|') out += '\\';
      out += c;
    }
    return out;
  };
  if (format == "json") {
    JsonWriter j;
    j.begin_array();
    for (const NoteInfo& n : note_catalog())
      j.begin_object()
          .key("id")
          .value(n.id)
          .key("severity")
          .value(note_severity_name(n.severity))
          .key("source")
          .value(n.source)
          .key("message")
          .value(n.message)
          .key("help")
          .value(n.help)
          .end_object();
    j.end_array();
    std::cout << j.str() << '\n';
  } else if (format == "markdown") {
    std::cout
        << "| note | severity | source | message | what it means, what to do |\n|---|---|---|---|---|\n";
    for (const NoteInfo& n : note_catalog())
      std::cout << fmt::format("| `{}` | {} | {} | {} | {} |\n", n.id, note_severity_name(n.severity),
                               n.source, cell(n.message), cell(n.help));
  } else {
    for (const NoteInfo& n : note_catalog())
      std::cout << fmt::format("{} ({}, {})\n  {}\n", n.id, note_severity_name(n.severity), n.source,
                               n.message);
  }
  return kExitPass;
}

int run_metrics(const std::string& format) {
  auto catalog = metric_catalog();
  if (format == "json") {
    JsonWriter j;
    j.begin_array();
    for (const auto& m : catalog)
      j.begin_object()
          .key("name")
          .value(m.name)
          .key("label")
          .value(m.label)
          .key("unit")
          .value(m.unit)
          .key("definition")
          .value(m.definition)
          .key("source")
          .value(m.source)
          .end_object();
    j.end_array();
    std::cout << j.str() << '\n';
  } else if (format == "markdown") {
    std::cout << "| metric | label | unit | definition | follows |\n|---|---|---|---|---|\n";
    for (const auto& m : catalog)
      std::cout << fmt::format("| `{}` | {} | {} | {} | {} |\n", m.name, m.label, m.unit, m.definition,
                               m.source);
  } else {
    std::size_t width = 0, label_width = 0;
    for (const auto& m : catalog) {
      width = std::max(width, m.name.size());
      label_width = std::max(label_width, m.label.size());
    }
    for (const auto& m : catalog)
      std::cout << fmt::format("{:<{}}  {:<{}}  {:<6} {}\n", m.name, width, m.label, label_width, m.unit,
                               m.definition);
  }
  return kExitPass;
}

}  // namespace

std::function<int()> add_metrics_command(CLI::App& app) {
  auto format = std::make_shared<std::string>("text");
  auto tables = std::make_shared<bool>(false);
  auto notes = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("metrics", "Print the metric catalog: name, label, unit, definition");
  cmd->add_option("--format", *format, "text, markdown or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}));
  cmd->add_flag("--tables", *tables, "Print the report's tables and their columns instead");
  cmd->add_flag("--notes", *notes, "Print the run notes' catalog instead: id, severity, source, message")
      ->excludes("--tables");
  return [format, tables, notes] {
    return *notes ? print_notes(*format) : *tables ? print_tables(*format) : run_metrics(*format);
  };
}

}  // namespace perfgate::cli
