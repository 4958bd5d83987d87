# The stages of perfgate and the arrows between them, declared once (docs: ../README.md "Layout").
# Read by the build (cmake/Stages.cmake: a library per stage, linked only along these arrows, each
# with a private include root) and by the include check (cmake/CheckStageIncludes.cmake, a CTest
# test), so a backward include fails both to compile and to pass the tests.
#
# For each stage, in src/<stage>/:
#   HEADERS  its public headers in include/perfgate/ (version.h is generated)
#   EXPORTS  its internal headers that the stages linking it may include
#   PUBLIC   the stages its public headers need: whoever links it sees them too
#   PRIVATE  the stages only its sources need
# A stage may include its own headers, its PUBLIC and PRIVATE stages' headers and exports, and what
# those stages make PUBLIC in turn. Data flows one way:
#   load -> model -> analyse -> report model -> rules (read it, return findings) -> report model -> render
set(PERFGATE_STAGES common assets model load analyse report_model baseline rules report history render cli)

# Errors and exit codes, the metric catalog, unit formatting, UTF-8 and "did you mean": what every
# stage may use.
set(PERFGATE_STAGE_common_HEADERS errors.h metrics.h metric_catalog.def units.h version.h)
set(PERFGATE_STAGE_common_EXPORTS common/utf8.h common/suggest.h common/spill_arena.h common/binary_codec.h common/fixed_text.h)

# The rule files and templates built into the binary.
set(PERFGATE_STAGE_assets_EXPORTS assets/embedded_files.h)

set(PERFGATE_STAGE_model_HEADERS profile.h)
set(PERFGATE_STAGE_model_EXPORTS model/side_by_side.h model/stable_order.h)
set(PERFGATE_STAGE_model_PUBLIC common)

set(PERFGATE_STAGE_load_HEADERS load.h)
set(PERFGATE_STAGE_load_EXPORTS load/byte_source.h load/input_limit.h load/neuron/neuron_reader.h)
set(PERFGATE_STAGE_load_PUBLIC model common)

set(PERFGATE_STAGE_analyse_HEADERS analysis.h tables.h)
set(PERFGATE_STAGE_analyse_EXPORTS analyse/pattern_set.h analyse/metric_values.h)
set(PERFGATE_STAGE_analyse_PUBLIC model common)

# The report model: plain data that the renderers read, with its lookups and row limits.
set(PERFGATE_STAGE_report_model_HEADERS report.h trend.h)
set(PERFGATE_STAGE_report_model_EXPORTS report_model/table_limits.h)
set(PERFGATE_STAGE_report_model_PUBLIC common)

# A previous report read back (with the loader's byte sources and memory limit) and the deltas.
set(PERFGATE_STAGE_baseline_HEADERS baseline.h)
set(PERFGATE_STAGE_baseline_EXPORTS baseline/baseline_checks.h)
set(PERFGATE_STAGE_baseline_PUBLIC report_model common)
set(PERFGATE_STAGE_baseline_PRIVATE load)

# Rule files, expressions, evaluation: findings and a verdict from the report model's metrics and
# tables (and the baseline's), returned to the report stage. A rule file's `see:` and `offenders:`
# are checked against the report stage's table schemas when it is read.
set(PERFGATE_STAGE_rules_HEADERS rules.h gate.h)
set(PERFGATE_STAGE_rules_PUBLIC analyse report_model baseline common)
set(PERFGATE_STAGE_rules_PRIVATE report assets)

# The report model's builders: analysis results, then the baseline's changes and the rules'
# findings put in (the pipeline hands the findings over: the report stage never runs the rules).
set(PERFGATE_STAGE_report_HEADERS build_report.h partial.h)
set(PERFGATE_STAGE_report_PUBLIC analyse baseline report_model common)

set(PERFGATE_STAGE_history_HEADERS history.h)
set(PERFGATE_STAGE_history_PUBLIC baseline rules report_model common)

set(PERFGATE_STAGE_render_HEADERS render.h)
set(PERFGATE_STAGE_render_EXPORTS render/escape.h render/json_writer.h render/output_target.h render/temp_files.h)
set(PERFGATE_STAGE_render_PUBLIC report_model common)
set(PERFGATE_STAGE_render_PRIVATE assets)

# The command line: the only stage that wires the others together.
set(PERFGATE_STAGE_cli_PUBLIC common model load analyse report_model baseline rules report history render)
