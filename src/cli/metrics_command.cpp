// perfgate metrics: prints the metric catalog, the report's tables and their columns, the run notes'
// catalog, or the run's options.
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "common/errors.h"
#include "common/metrics.h"
#include "common/notes.h"
#include "common/tables.h"
#include "engine/request_options.h"
#include "render/json_writer.h"
#include "report_model/report.h"

namespace perfgate::cli {
namespace {

// A Markdown table's cell: a '|' is escaped, as it would end the cell.
std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

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
  auto cell = markdown_cell;
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

// The front ends that show an option, as docs/usage.md names them.
std::string shown_by_text(unsigned shown) {
  static constexpr std::pair<unsigned, std::string_view> kFrontEnds[] = {
      {kShownByAnalyze, "analyze"},
      {kShownByMerge, "merge"},
      {kShownByHistoryImport, "history import"},
      {kShownByMcpTools | kShownByMcpOptions, "MCP tools"},
      {kShownByMcpServer, "mcp"}};
  std::string out;
  for (const auto& [mask, name] : kFrontEnds)
    if (shown & mask) out += fmt::format("{}{}", out.empty() ? "" : ", ", name);
  return out;
}

// The MCP's name of an option: a tool's argument, or `perfgate mcp`'s flag; empty: none.
std::string mcp_name(const OptionInfo& o) {
  if (o.shown & kShownByMcpOptions) return fmt::format("options.{}", o.argument);
  if (o.shown & kShownByMcpTools) return std::string(o.argument);
  if (o.shown & kShownByMcpServer) return fmt::format("mcp {}", o.flag);
  return "";
}

// What a value may be: its choices or bounds, a list's length.
std::string values_text(const OptionInfo& o) {
  const OptionCheck& c = o.check;
  if (c.kind == OptionCheck::Kind::OneOf) return fmt::format("{}", fmt::join(option_choices(o), ", "));
  if (c.kind == OptionCheck::Kind::Range)
    return o.value == OptionValue::Texts ? fmt::format("at most {}", c.max) : range_text(c);
  return "";
}

std::string flag_help(const OptionInfo& o) {
  return option_help(o, [](const OptionInfo& named) { return std::string(named.flag); }) +
         (o.value == OptionValue::Texts ? "; repeatable" : "");
}

// The run's options as engine/request_options.def declares them: docs/usage.md's "Options"
// (ci/update-docs.sh), a section per group.
int print_options(const std::string& format) {
  static constexpr std::pair<std::string_view, std::string_view> kSections[] = {
      {"rules", "Rules"},
      {"gate", "The gate"},
      {"baselines", "Baselines"},
      {"history", "The run history"},
      {"window", "The step window"},
      {"analysis", "The analysis"},
      {"limits", "Limits"}};
  std::span<const OptionInfo> options = request_options();
  if (format == "json") {
    JsonWriter j;
    j.begin_array();
    for (const OptionInfo& o : options) {
      j.begin_object().key("field").value(o.field).key("flag").value(o.flag);
      j.key("mcp").value(mcp_name(o)).key("shown_by").value(shown_by_text(o.shown));
      j.key("section").value(o.section).key("value_name").value(o.value_name);
      j.key("values").value(values_text(o)).key("default").value(o.default_text);
      j.key("help").value(flag_help(o)).end_object();
    }
    j.end_array();
    std::cout << j.str() << '\n';
    return kExitPass;
  }
  for (const auto& [section, title] : kSections) {
    if (format == "markdown")
      std::cout << fmt::format(
          "### {}\n\n| option | MCP | shown by | values | default | meaning |\n"
          "|---|---|---|---|---|---|\n",
          title);
    else
      std::cout << title << '\n';
    for (const OptionInfo& o : options) {
      if (o.section != section) continue;
      std::string flag =
          o.value_name.empty() ? std::string(o.flag) : fmt::format("{} {}", o.flag, o.value_name);
      if (format == "markdown") {
        std::string mcp = mcp_name(o);
        std::cout << fmt::format("| {} | {} | {} | {} | {} | {} |\n",
                                 markdown_cell(fmt::format("`{}`", flag)),
                                 mcp.empty() ? "" : fmt::format("`{}`", mcp), shown_by_text(o.shown),
                                 markdown_cell(values_text(o)), o.default_text, markdown_cell(flag_help(o)));
      } else {
        std::string values = values_text(o);
        std::cout << fmt::format("  {:<28} {}{}{}\n", flag, flag_help(o),
                                 values.empty() ? "" : " [" + values + "]",
                                 o.default_text.empty() ? "" : " (default " + o.default_text + ")");
      }
    }
    std::cout << '\n';
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
  auto options = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("metrics", "Print the metric catalog: name, label, unit, definition");
  add_options_when_parsed(*cmd, [format, tables, notes, options](CLI::App& c) {  // cli/commands.h
    c.add_option("--format", *format, "text, markdown or json")
        ->check(CLI::IsMember({"text", "markdown", "json"}));
    c.add_flag("--tables", *tables, "Print the report's tables and their columns instead");
    c.add_flag("--notes", *notes, "Print the run notes' catalog instead: id, severity, source, message")
        ->excludes("--tables");
    c.add_flag("--options", *options,
               "Print the run's options instead: each flag, its MCP argument, the commands that show it, its "
               "values, default and meaning")
        ->excludes("--tables")
        ->excludes("--notes");
  });
  return [format, tables, notes, options] {
    return *options  ? print_options(*format)
           : *notes  ? print_notes(*format)
           : *tables ? print_tables(*format)
                     : run_metrics(*format);
  };
}

}  // namespace perfgate::cli
