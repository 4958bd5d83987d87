#!/usr/bin/python3
"""CTest CiRecipes.SafeByDefault (label `recipes`): the ready-to-copy CI jobs are safe by default.

ci/github-actions.yml:
- a top-level `permissions:` that only reads (no `write`, no `write-all`);
- the job on self-hosted runners never runs a fork's pull request (its `if:` admits pushes and pull
  requests whose head repository is this one);
- only a push to main records its run: the action's `record` input and the cache save are both
  limited to it.
ci/gitlab-ci.yml:
- the history cache's key names the branch (not one key for all), only protected branches push it
  (the policy is `pull` unless a protected-branch rule sets `pull-push`), and only protected
  branches pass `--record`.
Each check is also shown to fail on a planted unsafe variant (the old recipes' shapes).

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

failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


def github_problems(workflow):
    problems = []
    permissions = workflow.get("permissions")
    if not isinstance(permissions, dict) or not permissions:
        problems.append("no top-level permissions: block")
    elif any(v != "read" and v != "none" for v in permissions.values()):
        problems.append(f"permissions grant more than read: {permissions}")
    for name, job in workflow["jobs"].items():
        if "permissions" in job and any(v not in ("read", "none") for v in job["permissions"].values()):
            problems.append(f"job {name}: permissions grant more than read")
        runs_on = job.get("runs-on", [])
        self_hosted = "self-hosted" in (runs_on if isinstance(runs_on, list) else [runs_on])
        condition = str(job.get("if", ""))
        if self_hosted and "pull_request" in workflow.get(True, workflow.get("on", {})) and \
                "github.event.pull_request.head.repo.full_name == github.repository" not in condition:
            problems.append(f"job {name}: a fork's pull request runs on a self-hosted runner")
        for step in job.get("steps", []):
            with_ = step.get("with", {})
            if "history" in with_:
                record = str(with_.get("record", "true"))
                if "github.event_name == 'push'" not in record or "refs/heads/main" not in record:
                    problems.append(f"job {name}: runs other than main's pushes are recorded ({record!r})")
            if str(step.get("uses", "")).startswith("actions/cache/save"):
                condition = str(step.get("if", ""))
                if "github.event_name == 'push'" not in condition or "refs/heads/main" not in condition:
                    problems.append(f"job {name}: a pull request saves the history cache ({condition!r})")
    return problems


def gitlab_problems(pipeline):
    problems = []
    job = pipeline["perfgate"]
    cache = job.get("cache", {})
    if "$CI_COMMIT_REF_SLUG" not in str(cache.get("key", "")) and "$CI_COMMIT_REF_NAME" not in str(cache.get("key", "")):
        problems.append(f"the history cache key is shared by every branch ({cache.get('key')!r})")
    policy = str(cache.get("policy", "pull-push"))
    variable = re.fullmatch(r"\$(\w+)", policy)
    default_policy = job.get("variables", {}).get(variable.group(1)) if variable else policy
    if default_policy != "pull":
        problems.append(f"branches other than protected ones push the history cache (policy {default_policy!r})")
    pushing_rules = [r for r in job.get("rules", []) if variable and
                     r.get("variables", {}).get(variable.group(1)) == "pull-push"]
    if any(r.get("if") != '$CI_COMMIT_REF_PROTECTED == "true"' for r in pushing_rules):
        problems.append("a rule that is not for protected branches pushes the history cache")
    script = "\n".join(job["script"])
    for line in job["script"]:
        if "--record" in line and 'CI_COMMIT_REF_PROTECTED" = true' not in line:
            problems.append(f"--record outside the protected-branch condition: {line.strip()[:80]}")
    if "--record" not in script:
        problems.append("protected branches never record")
    return problems


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ci_recipes_test.py SOURCE_DIR")
    source_dir = sys.argv[1]
    with open(os.path.join(source_dir, "ci", "github-actions.yml")) as f:
        workflow = yaml.safe_load(f)
    problems = github_problems(workflow)
    check(not problems, "ci/github-actions.yml is safe by default" + "".join(f"\n    {p}" for p in problems))

    def plant(change):
        planted = copy.deepcopy(workflow)
        change(planted)
        return github_problems(planted)
    job = lambda w: w["jobs"]["perfgate"]  # noqa: E731
    check(plant(lambda w: w.pop("permissions", None)), "a workflow without permissions: is found")
    check(plant(lambda w: w.__setitem__("permissions", {"contents": "write"})), "permissions that write are found")
    check(plant(lambda w: job(w).pop("if", None)), "a fork's pull request on the self-hosted runner is found")
    check(plant(lambda w: [s["with"].pop("record", None) for s in job(w)["steps"] if "history" in s.get("with", {})]),
          "a pull request that records its run is found")

    with open(os.path.join(source_dir, "ci", "gitlab-ci.yml")) as f:
        pipeline = yaml.safe_load(f)
    problems = gitlab_problems(pipeline)
    check(not problems, "ci/gitlab-ci.yml is safe by default" + "".join(f"\n    {p}" for p in problems))
    old = copy.deepcopy(pipeline)
    old["perfgate"]["cache"] = {"key": "perfgate-history", "paths": ["perfgate.db"], "when": "always"}
    check(len(gitlab_problems(old)) >= 2, "the old shared cache, pushed by every branch, is found")
    recording = copy.deepcopy(pipeline)
    recording["perfgate"]["script"].append("perfgate analyze profile --history perfgate.db --record")
    check(gitlab_problems(recording), "--record on every branch is found")


if __name__ == "__main__":
    main()
    print(f"{failures} failed")
    sys.exit(1 if failures else 0)
