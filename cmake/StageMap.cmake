# The stages of perfgate and the arrows between them, declared once (docs/architecture.md draws its
# stage table from this file; tests/docs/stage_map.py checks that it does).
# Read by the build (cmake/Stages.cmake: a library per stage, linked only along these arrows, each
# with a private include root) and by the include check (cmake/CheckStageIncludes.cmake, a CTest
# test), so a backward include fails both to compile and to pass the tests.
#
# For each stage, in src/<stage>/:
#   EXPORTS  its headers that the stages linking it may include (its interface: src/<stage>/, or
#            include/ for the public API's perfgate/*.h; common/version.h is generated)
#   PUBLIC   the stages its exported headers need: whoever links it sees them too
#   PRIVATE  the stages only its sources need
# A stage may include its own headers, its PUBLIC and PRIVATE stages' headers and exports, and what
# those stages make PUBLIC in turn. Data flows one way:
#   io -> load -> model -> analyse -> report model -> gate (reads it, returns findings) -> report -> render
# with the rule files (YAML documents) below the knowledge (the classification they hold), which is
# below the loader and the analyses, and the gate, which reads its own sections of the same files.
set(PERFGATE_STAGES common assets io model rule_files knowledge load analyse report_model baseline gate report history engine
    render mcp cli api)

# Errors and exit codes, the metric catalog, the report invariants, the report's tables and their
# columns, the run notes' catalog, unit formatting, UTF-8, symbol names (demangled, folded for a
# headline) and "did you mean", the folders a process may touch files in (perfgate mcp's --root), the
# system libraries opened when first used (SQLite, ISA-L, libxlsxwriter, libpq): what every stage may use. And the names the analyses and the report model share, declared once
# below both: the parts of the step-time splits, the row of GPU work no op launched, the timeline's
# lanes.
set(PERFGATE_STAGE_common_EXPORTS perfgate/metrics.h perfgate/metric_catalog.def common/errors.h common/error_report.h common/metrics.h
    common/report_invariants.h common/invariant_catalog.def common/tables.h common/table_catalog.def
    common/notes.h common/note_catalog.def common/units.h common/version.h common/step_time_split.h
    common/table_codes.h common/device_family.h common/capture_profile.h
    common/utf8.h common/symbol_name.h common/suggest.h common/binary_codec.h common/fixed_text.h
    common/path_confinement.h common/shared_library.h)

# The rule files and templates built into the binary.
set(PERFGATE_STAGE_assets_EXPORTS assets/embedded_files.h)

# Files at the byte level: byte sources (a file read, mapped, inflated, read ahead), gzip in one
# place (ISA-L opened when first used), the input memory limit, atomic and temporary output files, the spill file behind
# --max-memory, SQLite opened when first used and the name under which it opens a file immutable,
# and the streaming JSON handlers' base (the readers' and the baseline report's).
set(PERFGATE_STAGE_io_EXPORTS io/io.h
    io/byte_source.h io/gzip.h io/input_limit.h io/chunked_appender.h
    io/spill_arena.h io/output_target.h io/temp_files.h io/sqlite_uri.h io/sqlite_library.h
    io/isal_library.h io/json_handler.h)
set(PERFGATE_STAGE_io_PUBLIC common)

# The profile model every reader produces and every analysis reads, whatever the format: host ranges
# as a tree, runtime calls, GPU activities, collectives, memory samples, a Neuron device's rows, an
# XSpace's HLO facts and XLA ops, the device family; interned strings and the order of records.
set(PERFGATE_STAGE_model_EXPORTS model/profile.h model/memory_snapshot.h
    model/side_by_side.h model/stable_order.h model/xla_hlo.h model/device_filter.h)
set(PERFGATE_STAGE_model_PUBLIC common)

# The rule files as files: YAML documents read and bounded (size, nodes, depth, aliases), extends and
# overlays in the order they apply, the shipped files' text and packed trees, the checks that say
# every problem with its file:line:col. Each stage above reads its own sections from the documents:
# the knowledge its classification, the gate its rules and advice.
set(PERFGATE_STAGE_rule_files_EXPORTS rule_files/rule_files.h rule_files/yaml_check.h rule_files/yaml_pack.h)
set(PERFGATE_STAGE_rule_files_PUBLIC common)
set(PERFGATE_STAGE_rule_files_PRIVATE assets)

# What the analyses (and the loader) know from the rule files: the classification of kernel and op
# names, GPU peaks and architectures, op cost models, step ranges, memory snapshot categories; the
# compiled pattern sets; the reading of the knowledge's sections from the rule files' documents.
set(PERFGATE_STAGE_knowledge_EXPORTS knowledge/classification.h
    knowledge/pattern_set.h knowledge/classification_section.h knowledge/memory_categories.h)
set(PERFGATE_STAGE_knowledge_PUBLIC rule_files common)

# The readers, one per format behind one interface (load/reader.h: a name, a sniff of the first
# bytes, a read that emits profiles; the list in load/readers.cpp), run folders, and load_run: a
# run's paths resolved, read in parallel, each worker handed on as it loads, the skipped ones named.
set(PERFGATE_STAGE_load_EXPORTS load/load.h
    load/neuron/neuron_reader.h)
set(PERFGATE_STAGE_load_PUBLIC io model knowledge common)

# The analyses, a folder per family (steps, timeline, ops, gpu, communication, critical_path,
# memory, neuron, run), each with its results' header; analyse/worker_analysis.h gathers them.
set(PERFGATE_STAGE_analyse_EXPORTS analyse/analysis.h analyse/analysis_fwd.h
    analyse/analysis_options.h analyse/worker_analysis.h analyse/worker_position.h analyse/metric_values.h
    analyse/steps/step_results.h analyse/timeline/timeline_results.h analyse/ops/op_results.h
    analyse/gpu/gpu_results.h analyse/communication/communication_results.h
    analyse/critical_path/critical_path_results.h analyse/critical_path/step_paths.h analyse/memory/memory_results.h
    analyse/neuron/neuron_results.h analyse/run/worker_hold.h analyse/events/event_rows.h)
set(PERFGATE_STAGE_analyse_PUBLIC model knowledge common)

# The report model: plain data that the renderers read, with its lookups and row limits.
set(PERFGATE_STAGE_report_model_EXPORTS report_model/report.h report_model/trend.h
    report_model/table_limits.h)
set(PERFGATE_STAGE_report_model_PUBLIC common)

# A previous report read back (with io's byte sources and memory limit) and the deltas.
set(PERFGATE_STAGE_baseline_EXPORTS baseline/baseline.h
    baseline/baseline_checks.h)
set(PERFGATE_STAGE_baseline_PUBLIC report_model common)
set(PERFGATE_STAGE_baseline_PRIVATE io)

# The gate: its sections of the rule files (rules, their overrides and checks, the advice and the
# critical path's coverage bound; the files' format and the knowledge's sections are the knowledge
# stage's), expressions, evaluation, baseline comparisons, verdicts, the effective rules as YAML.
# Findings and a verdict from the report model's metrics and tables (and the baseline's), returned:
# the gate never writes the model. A rule file's `see:` and `offenders:` are checked against the
# report's tables as they are declared (common/table_catalog.def).
set(PERFGATE_STAGE_gate_EXPORTS gate/rules.h gate/gate.h
    gate/rule_sections.h)
set(PERFGATE_STAGE_gate_PUBLIC rule_files report_model baseline common)
set(PERFGATE_STAGE_gate_PRIVATE knowledge)

# The report model's builders, its only writer: analysis results, then the baseline's changes, the
# gate's findings and a history's trends put in (the engine hands them over: the report stage
# never runs the gate).
set(PERFGATE_STAGE_report_EXPORTS report/build_report.h report/partial.h)
set(PERFGATE_STAGE_report_PUBLIC analyse baseline report_model common)
set(PERFGATE_STAGE_report_PRIVATE io)

# The run history: one schema and its migrations, the SQLite and PostgreSQL stores, runs recorded,
# baselines drawn from the history, trends (change points, bands) and the recent values a finding
# shows; it is handed the metrics the rules gate as data (GatedMetric), never the rules.
set(PERFGATE_STAGE_history_EXPORTS history/history.h)
set(PERFGATE_STAGE_history_PUBLIC baseline report_model common)
set(PERFGATE_STAGE_history_PRIVATE io)

# A renderer per output (JSON, terminal, HTML with its SVG charts, Markdown, XLSX, JUnit, GitHub,
# GitLab, trends) and the escaping each needs: they read the report model and compute no number.
set(PERFGATE_STAGE_render_EXPORTS render/render.h
    render/escape.h render/json_writer.h)
set(PERFGATE_STAGE_render_PUBLIC report_model common)
set(PERFGATE_STAGE_render_PRIVATE io assets)

# The engine: one run, whatever front end asks for it (a RunRequest: paths, rule files, settings,
# baselines, history, limits, threads): the rules read once, the profiles loaded with their capture
# traces, analysed, described, gated against the baselines and the history, and recorded; partial
# reports written and merged; the memory budget. The only stage that wires the others together.
set(PERFGATE_STAGE_engine_EXPORTS engine/engine.h engine/annotated_profiles.h engine/run_events.h engine/run_request.h engine/rule_book.h engine/default_rule_book.h
    engine/partials.h
    engine/memory_budget.h engine/front_end_support.h engine/request_options.h engine/request_options.def)
set(PERFGATE_STAGE_engine_PUBLIC load analyse report_model baseline gate report history knowledge io common)

# The MCP server: JSON-RPC on stdio turned into the engine's requests, the reports kept for the
# tools and resources (docs/agents.md).
set(PERFGATE_STAGE_mcp_EXPORTS mcp/server.h mcp/session.h mcp/jsonrpc.h mcp/line_reader.h mcp/roots.h
    mcp/report_cache.h)
set(PERFGATE_STAGE_mcp_PUBLIC engine render common)

# The command line: options turned into the engine's requests, the outputs written and the exit
# code chosen; a file per subcommand. The benchmarks call the engine, never the command line.
set(PERFGATE_STAGE_cli_PUBLIC common engine mcp render)

# The public C++ API (include/perfgate/, installed; docs/api.md): a request run and gated as
# `perfgate analyze` runs it, and its report read (the verdict, metrics by typed id, findings, the
# reports' text). Its headers include only each other; the metric ids are common's (one catalog).
set(PERFGATE_STAGE_api_EXPORTS perfgate/engine.h perfgate/report.h)
set(PERFGATE_STAGE_api_PUBLIC common)
set(PERFGATE_STAGE_api_PRIVATE engine render)
