// Mcp.SdkClient (issue 61): the official MCP TypeScript SDK's client drives `perfgate mcp` over stdio and
// every number it gets is checked against the CLI's own --json report of the same files, made here.
// Usage: node mcp_client_test.mjs PERFGATE SOURCE_DIR [SHARED_TRACES_DIR]
// The shared-trace part (ResNet-50: the summary's size, a comparison of two runs) is skipped, saying
// so, when the shared folder is absent; the bundled example is always analysed.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [perfgate, sourceDir, sharedArg] = process.argv.slice(2);
const examples = resolve(sourceDir, "examples");
const example = join(examples, "small_training.pt.trace.json.gz");
const shared = resolve(sharedArg ?? join(sourceDir, "..", "shared", "traces"));
const work = mkdtempSync(join(tmpdir(), "perfgate-mcp-"));
const long = { timeout: 600000 };

// The CLI's JSON report of `args` (exit 0 or 1: the gate's verdict, not a failure).
function cliReport(name, args) {
  const out = join(work, `${name}.json`);
  try {
    execFileSync(perfgate, ["analyze", ...args, "-q", "--no-progress", "--json", out], { stdio: "inherit" });
  } catch (e) {
    if (e.status !== 1) throw e;
  }
  return JSON.parse(readFileSync(out, "utf8"));
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args }, undefined, long);
  assert.ok(r.structuredContent, `${name}: no structuredContent`);
  assert.equal(r.content[0].type, "text");
  // Issue 76: a client that reads only `content` gets the data, as JSON (the SDK has already
  // validated structuredContent against the tool's outputSchema).
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent, `${name}: text is not the JSON`);
  assert.ok(Buffer.byteLength(r.content[0].text) <= 65536, `${name}: text past 64 kB`);
  return r;
}

// The summary's numbers are the report's: the verdict whole, each headline metric by name.
function checkSummary(summary, report) {
  assert.deepEqual(summary.verdict, report.verdict);
  const names = Object.keys(summary.metrics);
  assert.ok(names.length > 5, `only ${names.length} headline metrics`);
  for (const m of names) assert.deepEqual(summary.metrics[m], report.metrics[m], m);
  const notPassed = report.findings.filter((f) => ["fail", "warn", "inconclusive"].includes(f.status));
  assert.equal(summary.findings.length + summary.findings_not_shown, notPassed.length);
  for (const f of summary.findings) {
    const whole = report.findings.find((x) => x.id === f.id);
    assert.equal(f.value, whole.value, f.id);
    assert.equal(f.status, whole.status, f.id);
    assert.equal(f.gain_pct ?? null, whole.gain_pct ?? null, f.id);
  }
}

// A string cell as table returns it: past 500 bytes, cut there and marked "…" (docs/agents.md#limits);
// the kernel names this is used on are ASCII, where a byte is a character.
function cutCell(cell) {
  if (typeof cell !== "string" || Buffer.byteLength(cell) <= 500) return cell;
  assert.equal(Buffer.byteLength(cell), cell.length, "an ASCII name");
  return cell.slice(0, 500) + "…";
}

// Pages through a table `limit` rows at a time; returns every row.
async function allRows(client, report, table, limit) {
  const rows = [];
  let offset = 0;
  let pages = 0;
  while (offset !== null) {
    const r = (await call(client, "table", { report, table, offset, limit })).structuredContent;
    assert.ok(r.rows.length <= limit);
    rows.push(...r.rows);
    offset = r.next_offset;
    pages += 1;
  }
  return { rows, pages };
}

// A Kineto trace of `steps` steps of 40 ops each (about 4 kB a step), written into the work folder.
function bigTrace(name, steps) {
  const events = [];
  for (let s = 1; s <= steps; s++) {
    const t = s * 10000;
    events.push({ ph: "X", cat: "user_annotation", name: `ProfilerStep#${s}`, pid: 1, tid: 1, ts: t, dur: 9000 });
    for (let k = 0; k < 40; k++)
      events.push({ ph: "X", cat: "cpu_op", name: `aten::op${k % 9}`, pid: 1, tid: 1, ts: t + 10 + k * 200, dur: 100 });
  }
  const path = join(work, name);
  writeFileSync(path, JSON.stringify({ traceEvents: events }));
  return path;
}

function connect(args) {
  const c = new Client({ name: "perfgate-test", version: "1.0.0" });
  return c.connect(new StdioClientTransport({ command: perfgate, args: ["mcp", ...args], stderr: "inherit" })).then(() => c);
}

// Issue 76: profiles listed, the discovery prompt, progress, ping during a run, cancellation, and
// report ids that a later server (a one-shot client's) reads.
async function issue76(client, exampleReport, reportId) {
  const listed = (await call(client, "list_profiles", { folder: examples, limit: 200 })).structuredContent;
  const mine = listed.profiles.find((p) => p.path === example);
  assert.ok(mine, "list_profiles: the example is not listed");
  assert.equal(mine.format, "kineto-json.gz");
  assert.equal(mine.bytes, statSync(example).size);
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  assert.deepEqual(prompts, ["discover"]);
  const prompt = await client.getPrompt({ name: "discover", arguments: { folder: "examples" } });
  assert.match(prompt.messages[0].content.text, /list_profiles/);

  // Each instance of the example's top kernel: as many as the kernels table counts, as long in all.
  const table = exampleReport.workers[0].tables.kernels;
  const column = (name) => table.columns.findIndex((c) => c.name === name);
  const top = table.rows[0];
  const events = (await call(client, "events", { report: reportId, name: top[column("name")], kind: "kernel",
                                                 limit: 200 })).structuredContent;
  assert.equal(events.total, top[column("calls")]);
  const total = events.events.reduce((sum, e) => sum + e.duration_us, 0);
  assert.ok(Math.abs(total - top[column("total_us")]) < 0.01, `events sum to ${total} us`);

  const seen = [];
  await client.callTool({ name: "analyze", arguments: { paths: [example] } }, undefined,
                        { ...long, onprogress: (p) => seen.push(p.progress) });
  // The SDK hands notifications to their handlers a turn after it reads them, and forgets the token
  // once the reply is read: those that came with the reply are dropped. The server sends the last
  // ones (95: gated, 100: kept) just before it (mcp_cancel_test.cpp sees them all).
  assert.ok(seen.length >= 1, "no progress notification");
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1], "progress must grow");
  assert.ok(seen.every((p) => p > 0 && p <= 100), `progress ${seen}`);

  // A run long enough to be caught running: ping is answered before it ends, and a cancellation
  // (the SDK sends notifications/cancelled on abort) stops it: no report is kept.
  const big = bigTrace("big.json", 20000);
  const before = (await client.listResources()).resources.length;
  let ended = false;
  const running = call(client, "analyze", { paths: [big] }).then(() => { ended = true; });
  await client.ping();
  assert.equal(ended, false, "ping waited for the analysis");
  await running;
  const abort = new AbortController();
  const started = Date.now();
  const cancelled = client.callTool({ name: "analyze", arguments: { paths: [big], options: { skip_first: 1 } } },
                                    undefined, { ...long, signal: abort.signal,
                                                 onprogress: () => abort.abort("enough") });
  await assert.rejects(cancelled);
  await client.ping();  // answered once the run stopped (or at once)
  const after = (await client.listResources()).resources.length;
  assert.equal(after, before + 3, "a cancelled analysis kept its report");  // the first big run's three
  console.log(`issue 76: ${seen.length} progress notifications; cancelled after ${Date.now() - started} ms`);

  // Report ids that last: analysed by a server that may write, read by a later read-only one.
  const writer = await connect(["--allow-write", "--root", work, "--root", examples]);
  const made = (await call(writer, "analyze", { paths: [example] })).structuredContent;
  assert.equal(made.report_id_lasts, true);
  const rows = (await call(writer, "table", { report: made.report_id, table: "kernels" })).structuredContent.rows;
  await writer.close();
  const later = await connect(["--root", work, "--root", examples]);
  const again = (await call(later, "table", { report: made.report_id, table: "kernels" })).structuredContent;
  assert.deepEqual(again.rows, rows);
  await later.close();
}

const transport = new StdioClientTransport({
  command: perfgate,
  // The work folder too: the CLI's reports in it are the baselines both sides compare with.
  args: ["mcp", "--root", examples, "--root", work, ...(existsSync(shared) ? ["--root", shared] : [])],
  stderr: "inherit",
});
const client = new Client({ name: "perfgate-test", version: "1.0.0" });
try {
  await client.connect(transport);
  assert.equal(client.getServerVersion().name, "perfgate");
  const listed = (await client.listTools()).tools;
  for (const t of listed) assert.equal(t.outputSchema?.type, "object", `${t.name}: no outputSchema`);
  const tools = listed.map((t) => t.name).sort();
  assert.deepEqual(tools, ["analyze", "compare", "events", "explain", "list_profiles", "metrics", "table", "trend"]);

  // The bundled example.
  const exampleReport = cliReport("example", [example]);
  const analyzed = await call(client, "analyze", { paths: [example] });
  assert.equal(analyzed.isError, false);
  const ex = analyzed.structuredContent;
  checkSummary(ex, exampleReport);
  const kernels = exampleReport.workers[0].tables.kernels.rows;
  const paged = await allRows(client, ex.report_id, "kernels", 7);
  assert.deepEqual(paged.rows, kernels.map((row) => row.map(cutCell)));
  assert.equal(paged.pages, Math.max(1, Math.ceil(kernels.length / 7)));
  const warned = exampleReport.findings.find((f) => f.status === "warn");
  const explained = (await call(client, "explain", { report: ex.report_id, finding: warned.id })).structuredContent;
  assert.deepEqual(explained.finding, warned);
  const catalog = JSON.parse(execFileSync(perfgate, ["metrics", "--format", "json"], { encoding: "utf8" }));
  assert.equal(explained.metric.definition, catalog.find((m) => m.name === warned.metric).definition);
  assert.deepEqual(explained.metric.value, exampleReport.metrics[warned.metric]);
  const prefix = (await call(client, "metrics", { prefix: "steps.", limit: 200 })).structuredContent;
  assert.equal(prefix.total, catalog.filter((m) => m.name.startsWith("steps.")).length);
  const resources = (await client.listResources()).resources.map((r) => r.uri);
  assert.ok(resources.includes(`perfgate://report/${ex.report_id}`));
  const whole = await client.readResource({ uri: `perfgate://report/${ex.report_id}` });
  assert.deepEqual(JSON.parse(whole.contents[0].text).metrics, exampleReport.metrics);
  const markdown = await client.readResource({ uri: `perfgate://report/${ex.report_id}/markdown` });
  assert.match(markdown.contents[0].text, /perfgate/);
  // A path outside the roots: the CLI's usage error as a tool error.
  const refused = await client.callTool({ name: "analyze", arguments: { paths: ["/etc/passwd"] } });
  assert.equal(refused.isError, true);
  assert.equal(refused.structuredContent.exit_code, 2);
  console.log(`example: ${kernels.length} kernel rows in ${paged.pages} pages, finding ${warned.id} explained`);
  await issue76(client, exampleReport, ex.report_id);

  // The shared ResNet-50 traces: the agent-sized summary, and one run against the other.
  const r0 = join(shared, "resnet50_v100_workers0.pt.trace.json.gz");
  const r4 = join(shared, "resnet50_v100_workers4.pt.trace.json.gz");
  if (!existsSync(r0) || !existsSync(r4)) {
    console.log(`skipped the shared traces: ${shared} is absent`);
  } else {
    const baseline = cliReport("resnet0", [r0]);
    const first = await call(client, "analyze", { paths: [r0] });
    // The summary within its budget (6 kB), given twice: as structuredContent and as the text block.
    const bytes = Buffer.byteLength(JSON.stringify(first.structuredContent));
    assert.ok(bytes < 8192, `analyze on ResNet-50 returned ${bytes} bytes`);
    checkSummary(first.structuredContent, baseline);
    const compared = cliReport("resnet4-vs-0", [r4, "--baseline", join(work, "resnet0.json")]);
    const c = (await call(client, "compare", { paths: [r4], baseline: [join(work, "resnet0.json")] })).structuredContent;
    assert.deepEqual(c.verdict, compared.verdict);
    assert.deepEqual(c.baseline.comparability, compared.baseline.comparability);
    const changes = compared.tables.changes.rows;
    for (const direction of ["slower", "faster"]) {
      const expected = changes.filter((row) => row[0] === direction);
      assert.equal(c.changes[`${direction}_total`], expected.length, direction);
      assert.deepEqual(c.changes[direction].map((row) => row.delta_us_per_step),
                       expected.slice(0, 5).map((row) => row[6]), direction);
    }
    const regressions = compared.findings.filter((f) => f.id.startsWith("regression.") && f.status !== "pass");
    for (const f of regressions) {
      const shown = c.findings.find((x) => x.id === f.id);
      if (shown) assert.equal(shown.value, f.value, f.id);
    }
    // The baseline as the report analyze made (its model, not its JSON): the same gate's verdict.
    const byId = await call(client, "compare", { paths: [r4], baseline_report: first.structuredContent.report_id });
    assert.equal(byId.isError, false);
    assert.equal(byId.structuredContent.verdict.status, compared.verdict.status);
    const slower = changes.filter((row) => row[0] === "slower").length;
    const faster = changes.filter((row) => row[0] === "faster").length;
    console.log(`ResNet-50: analyze result ${bytes} bytes; compare: ${slower} slower, ${faster} faster, ` +
                `verdict ${c.verdict.status}`);
  }
  console.log("Mcp.SdkClient: passed");
} finally {
  await client.close();
  rmSync(work, { recursive: true, force: true });
}
