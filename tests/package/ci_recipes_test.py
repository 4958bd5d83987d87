#!/usr/bin/python3
"""CTest CiRecipes.SafeByDefault (label `recipes`): the ready-to-copy CI jobs are safe by default.

ci/github-actions.yml:
- no top-level permission; a job that may write (only `pull-requests`, `checks`) runs on a hosted
  runner, checks nothing out and runs no command of the repository: the code under review never
  meets a token that writes;
- the job on self-hosted runners never runs a fork's pull request;
- only a push to the default branch records (the action's `record` and the cache save), and the
  job that records is in one concurrency group, never cancelled, every pending run queued
  (`queue: max`), so that no record is lost;
- the comment and the check run are asked for.
ci/gitlab-ci.yml:
- only the default branch's job records (`--record` through PERFGATE_RECORD) and pushes the history
  cache, in a resource group; every other job only pulls it;
- the merge-request note is posted with PERFGATE_GITLAB_TOKEN, and the JUnit and Code Quality
  reports are published.
Each check is also shown to fail on a planted unsafe variant.

Usage: tests/package/ci_recipes_test.py SOURCE_DIR
Skips (exit 77) without Debian's python3-yaml.
"""
import copy
import os
import re
import sys

try:
    import yaml
except ImportError as error:
    print(f"SKIP: {error.name} is not importable by {sys.executable} (Debian: apt-get install python3-yaml)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ci_yaml import load_yaml  # noqa: E402

failures = 0
DEFAULT_BRANCH_PUSH = ("github.event_name == 'push'", "github.event.repository.default_branch")


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


def resolved(job, value):
    """`${{ env.NAME }}` of the job's env, as the runner expands it; other values as they are."""
    match = re.fullmatch(r"\$\{\{\s*env\.(\w+)\s*\}\}", str(value).strip())
    return str(job.get("env", {}).get(match.group(1), "")) if match else str(value)


def default_branch_push_only(job, condition):
    text = str(condition)
    for name, value in job.get("env", {}).items():
        text = text.replace(f"env.{name}", f"({value})")
    return all(part in text for part in DEFAULT_BRANCH_PUSH)


def github_problems(workflow):
    problems = []
    top = workflow.get("permissions")
    if not isinstance(top, dict) or any(v not in ("read", "none") for v in top.values()):
        problems.append(f"top-level permissions: {workflow.get('permissions')!r} (want {{}})")
    for name, job in workflow["jobs"].items():
        permissions = job.get("permissions")
        if not isinstance(permissions, dict):
            problems.append(f"job {name}: no permissions: block of its own ({permissions!r})")
            permissions = {}
        writes = {k for k, v in permissions.items() if v == "write"}
        runs_on = job.get("runs-on", [])
        self_hosted = "self-hosted" in (runs_on if isinstance(runs_on, list) else [runs_on])
        steps = job.get("steps", [])
        if writes - {"pull-requests", "checks"}:
            problems.append(f"job {name}: writes {sorted(writes - {'pull-requests', 'checks'})}")
        if writes and (self_hosted or any("run" in s or str(s.get("uses", "")).startswith("actions/checkout")
                                          for s in steps)):
            problems.append(f"job {name}: a token that writes meets the repository's code")
        condition = str(job.get("if", ""))
        if self_hosted and "pull_request" in workflow.get("on", {}) and \
                "github.event.pull_request.head.repo.full_name == github.repository" not in condition:
            problems.append(f"job {name}: a fork's pull request runs on a self-hosted runner")
        for step in steps:
            with_ = step.get("with", {})
            if str(step.get("uses", "")).startswith("OWNER/perfgate@"):
                record = with_.get("record", False)
                record = "false" if record is False else str(record)
                if "history" in with_ and str(record) != "false" and not default_branch_push_only(job, record):
                    problems.append(f"job {name}: runs other than the default branch's pushes record ({record!r})")
                if str(record) != "false":
                    concurrency = job.get("concurrency") or {}
                    group = str(concurrency.get("group", ""))
                    if "perfgate-history" not in group or concurrency.get("cancel-in-progress") is not False or \
                            concurrency.get("queue") != "max":
                        problems.append(f"job {name}: recording runs are not serialised with every one kept "
                                        f"({concurrency!r})")
                if with_.get("comment") not in (True, "true") or with_.get("check") not in (True, "true"):
                    problems.append(f"job {name}: the comment or the check run is not asked for")
            if str(step.get("uses", "")).startswith("actions/cache/save") and \
                    not default_branch_push_only(job, step.get("if", "")):
                problems.append(f"job {name}: a run other than the default branch's saves the history cache")
    return problems


def gitlab_jobs(pipeline):
    """Every job with its `extends` template merged in (hashes deep-merged, as GitLab does)."""
    def merge(base, over):
        out = copy.deepcopy(base)
        for key, value in over.items():
            out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
        return out
    jobs = {}
    for name, job in pipeline.items():
        if name.startswith(".") or not isinstance(job, dict) or "script" not in job and "extends" not in job:
            continue
        parents = job.get("extends", [])
        merged = {}
        for parent in [parents] if isinstance(parents, str) else parents:
            merged = merge(merged, pipeline[parent])
        jobs[name] = merge(merged, {k: v for k, v in job.items() if k != "extends"})
    return jobs


def gitlab_problems(pipeline):
    problems = []
    default_branch = "$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH"
    recording = []
    for name, job in gitlab_jobs(pipeline).items():
        script = "\n".join(job["script"])
        if "--record" not in script:
            continue
        variables = job.get("variables", {})
        rules = job.get("rules", [])
        records = str(variables.get("PERFGATE_RECORD")) == "true"
        pushes = variables.get("PERFGATE_HISTORY_CACHE") == "pull-push" or \
            str(job.get("cache", {}).get("policy", "pull-push")) == "pull-push"
        only_default = bool(rules) and all(r.get("if") == default_branch and r.get("when") != "never" for r in rules)
        if (records or pushes) and not only_default:
            problems.append(f"job {name}: records or pushes the history on branches other than the default")
        if records:
            recording.append(name)
            if not job.get("resource_group"):
                problems.append(f"job {name}: records without a resource_group (concurrent records are lost)")
        if any("--record" in line and '"$PERFGATE_RECORD" = true' not in line for line in job["script"]):
            problems.append(f"job {name}: --record outside the PERFGATE_RECORD condition")
        if "post_report.py gitlab-note" not in script or "PERFGATE_GITLAB_TOKEN" not in script:
            problems.append(f"job {name}: no merge-request note")
        reports = job.get("artifacts", {}).get("reports", {})
        if "junit" not in reports or "codequality" not in reports:
            problems.append(f"job {name}: JUnit or Code Quality report not published")
    if not recording:
        problems.append("the default branch never records")
    return problems


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ci_recipes_test.py SOURCE_DIR")
    source_dir = sys.argv[1]
    workflow = load_yaml(os.path.join(source_dir, "ci", "github-actions.yml"))
    problems = github_problems(workflow)
    check(not problems, "ci/github-actions.yml is safe by default" + "".join(f"\n    {p}" for p in problems))

    def plant(change):
        planted = copy.deepcopy(workflow)
        change(planted)
        return github_problems(planted)
    gate = lambda w: w["jobs"]["gate"]  # noqa: E731
    action = lambda w: next(s for s in gate(w)["steps"] if str(s.get("uses", "")).startswith("OWNER/"))  # noqa: E731
    check(plant(lambda w: w.__setitem__("permissions", "write-all")), "top-level write-all is found")
    check(plant(lambda w: w["jobs"]["profile"]["permissions"].__setitem__("pull-requests", "write")),
          "a token that writes on the self-hosted job (the PR's code) is found")
    check(plant(lambda w: gate(w)["steps"].insert(0, {"uses": "actions/checkout@v4"})),
          "a checkout in the job whose token writes is found")
    check(plant(lambda w: gate(w)["permissions"].__setitem__("contents", "write")), "contents: write is found")
    check(plant(lambda w: w["jobs"]["profile"].pop("if")), "a fork's pull request on the self-hosted runner is found")
    check(plant(lambda w: gate(w)["env"].__setitem__("RECORD", "true")), "a pull request that records is found")
    check(plant(lambda w: gate(w)["concurrency"].__setitem__("queue", "single")),
          "a concurrency group that cancels pending recording runs is found")
    check(plant(lambda w: gate(w).pop("concurrency")), "recording runs not serialised are found")
    check(plant(lambda w: action(w)["with"].pop("comment")), "a workflow that posts no comment is found")

    pipeline = load_yaml(os.path.join(source_dir, "ci", "gitlab-ci.yml"))
    problems = gitlab_problems(pipeline)
    check(not problems, "ci/gitlab-ci.yml is safe by default" + "".join(f"\n    {p}" for p in problems))

    def plant_gitlab(change):
        planted = copy.deepcopy(pipeline)
        change(planted)
        return gitlab_problems(planted)
    check(plant_gitlab(lambda p: p["perfgate-record"].pop("resource_group")), "a record job without a resource_group is found")
    check(plant_gitlab(lambda p: p["perfgate"].setdefault("variables", {}).__setitem__("PERFGATE_RECORD", "true")),
          "a merge-request job that records is found")
    check(plant_gitlab(lambda p: p["perfgate-record"].__setitem__("rules", [{"when": "always"}])),
          "a record job on every branch is found")
    check(plant_gitlab(lambda p: p[".perfgate-gate"]["script"].append("perfgate analyze profile --history h --record")),
          "--record outside the condition is found")
    check(plant_gitlab(lambda p: p[".perfgate-gate"]["artifacts"]["reports"].pop("codequality")),
          "a job without the Code Quality report is found")


if __name__ == "__main__":
    main()
    print(f"{failures} failed")
    sys.exit(1 if failures else 0)
