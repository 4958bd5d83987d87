// Mcp.InspectorCli (issue 76): the MCP Inspector's CLI (@modelcontextprotocol/inspector-cli from npm,
// as `npx @modelcontextprotocol/inspector --cli` runs it) drives `perfgate mcp`, one process per call
// as a one-shot client does: tools/list, then analyze in one server and table and explain on its
// report id in later ones (the id lasts under the cache folder). Every number is checked against the
// CLI's own --json report of the same file.
// Usage: node inspector_cli_test.mjs PERFGATE SOURCE_DIR
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [perfgate, sourceDir] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const inspector = join(here, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "cli.js");
const example = resolve(sourceDir, "examples", "small_training.pt.trace.json.gz");

// The Inspector CLI reads its own package.json as "../package.json" when that exists from the
// working folder (it tests the path against the working folder but imports it from its module):
// the profiles' folder is one below a folder with a package.json, so that it finds its own.
const top = mkdtempSync(join(tmpdir(), "perfgate-inspector-"));
writeFileSync(join(top, "package.json"), "{}\n");
const work = join(top, "profiles");
mkdirSync(work);
copyFileSync(example, join(work, "example.pt.trace.json.gz"));

// One Inspector CLI run against a fresh `perfgate mcp` (its JSON output, parsed).
function inspect(args) {
  const out = execFileSync(
    process.execPath,
    [inspector, "--cli", perfgate, "mcp", "--root", ".", "--allow-write", ...args],
    { cwd: work, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], timeout: 300000 });
  return JSON.parse(out);
}

// A tool's result: structured content, and the same JSON as its text block.
function call(tool, toolArgs) {
  const args = ["--method", "tools/call", "--tool-name", tool];
  for (const [k, v] of Object.entries(toolArgs))
    args.push("--tool-arg", `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
  const r = inspect(args);
  assert.ok(!r.isError, `${tool}: ${JSON.stringify(r.structuredContent ?? r.content)}`);
  assert.ok(r.structuredContent, `${tool}: no structuredContent`);
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent, `${tool}: the text is not the JSON`);
  return r.structuredContent;
}

try {
  const cliJson = join(top, "cli.json");
  try {
    execFileSync(perfgate, ["analyze", join(work, "example.pt.trace.json.gz"), "-q", "--no-progress", "--json", cliJson],
                 { stdio: "inherit" });
  } catch (e) {
    if (e.status !== 1) throw e;  // 1: the gate's verdict
  }
  const report = JSON.parse(readFileSync(cliJson, "utf8"));

  const tools = inspect(["--method", "tools/list"]).tools;
  const names = tools.map((t) => t.name);
  for (const t of ["analyze", "compare", "table", "explain", "metrics", "trend", "list_profiles", "events"])
    assert.ok(names.includes(t), `tools/list lacks ${t}`);
  for (const t of tools) assert.equal(t.outputSchema?.type, "object", `${t.name}: no outputSchema`);

  const summary = call("analyze", { paths: ["example.pt.trace.json.gz"] });
  assert.equal(summary.report_id_lasts, true);
  assert.deepEqual(summary.verdict, report.verdict);
  for (const [m, v] of Object.entries(summary.metrics)) assert.deepEqual(v, report.metrics[m], m);

  // A later process: the kernels table of that report, by its id, as the CLI's report has it.
  const kernels = report.workers[0].tables.kernels;
  const table = call("table", { report: summary.report_id, table: "kernels", limit: 3 });
  assert.deepEqual(table.columns.map((c) => c.name), kernels.columns.map((c) => c.name));
  assert.equal(table.rows.length, Math.min(3, kernels.rows.length));
  table.rows.forEach((row, i) => assert.deepEqual(row, kernels.rows[i], `kernels row ${i}`));

  const warned = report.findings.find((f) => f.status === "warn" || f.status === "fail");
  assert.ok(warned, "the example has a finding that warns");
  const explained = call("explain", { report: summary.report_id, finding: warned.id });
  assert.equal(explained.finding.id, warned.id);
  assert.equal(explained.finding.value, warned.value);
  console.log(`Mcp.InspectorCli: ${names.length} tools; analyze, then table and explain of ${summary.report_id} ` +
              "in later servers");
} finally {
  rmSync(top, { recursive: true, force: true });
}
