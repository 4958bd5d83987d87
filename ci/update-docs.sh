#!/bin/sh
# Regenerates the generated sections at the end of docs/metrics.md (table schemas, then the
# metric catalog), docs/rules.md (the default rules), docs/reports.md (the run notes) and docs/usage.md
# (the run options) from the built binary, so that the documentation cannot drift from the code.
# Usage: ci/update-docs.sh [path/to/perfgate]
set -eu
cd "$(dirname "$0")/.."
perfgate=${1:-build/perfgate}
doc=docs/metrics.md
tmp=$(mktemp)
# Everything up to and including the paragraph under "## Tables" is written by hand.
awk '{print} /^## Tables$/{t=1} t && /^Each worker.s section/{exit}' "$doc" > "$tmp"
printf '\n' >> "$tmp"
"$perfgate" metrics --tables --format markdown >> "$tmp"
printf '## Catalog\n\n' >> "$tmp"
"$perfgate" metrics --format markdown >> "$tmp"
mv "$tmp" "$doc"

# regenerate DOC HEADING LAST_LINE ARGS...: DOC up to the line matching LAST_LINE (an awk pattern)
# after HEADING is written by hand; the rest is what `perfgate ARGS` prints.
regenerate() {
  doc=$1 heading=$2 last=$3
  shift 3
  tmp=$(mktemp)
  # Through the environment: awk -v would take the pattern's backslashes as escapes.
  HEADING=$heading LAST=$last awk '{print} $0 == ENVIRON["HEADING"] {t=1} t && $0 ~ ENVIRON["LAST"] {exit}' "$doc" > "$tmp"
  printf '\n' >> "$tmp"
  "$perfgate" "$@" >> "$tmp"
  mv "$tmp" "$doc"
}
generated='^generated from it \(`ci/update-docs\.sh`\)\.$'
regenerate docs/rules.md '## Default rules' '^`regression\.\*` rules\); set `fail`' rules list --format markdown
regenerate docs/reports.md '## Run notes' "$generated" metrics --notes --format markdown
regenerate docs/usage.md '## Options' "$generated" metrics --options --format markdown
