#!/bin/sh
# Regenerates the generated sections at the end of docs/metrics.md (table schemas, then the
# metric catalog), docs/rules.md (the default rules) and docs/reports.md (the run notes) from the
# built binary, so that the documentation cannot drift from the code.
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

# docs/rules.md: everything up to the "## Default rules" introduction is written by hand.
doc=docs/rules.md
tmp=$(mktemp)
awk '{print} /^## Default rules$/{t=1} t && /^`regression\.\*` rules\); set `fail`/{exit}' "$doc" > "$tmp"
printf '\n' >> "$tmp"
"$perfgate" rules list --format markdown >> "$tmp"
mv "$tmp" "$doc"

# docs/reports.md: everything up to the "## Run notes" introduction is written by hand.
doc=docs/reports.md
tmp=$(mktemp)
awk '{print} /^## Run notes$/{t=1} t && /^generated from it \(`ci\/update-docs\.sh`\)\.$/{exit}' "$doc" > "$tmp"
printf '\n' >> "$tmp"
"$perfgate" metrics --notes --format markdown >> "$tmp"
mv "$tmp" "$doc"
