#!/usr/bin/python3
"""CTest CiRecipes.Schemas (label `recipes`): the CI files are valid against the CI systems' own
published JSON schemas, vendored in tests/package/schemas/ (README.md there names their sources):
- ci/github-actions.yml and .github/workflows/release.yml against SchemaStore's github-workflow.json;
- action.yml against SchemaStore's github-action.json;
- ci/gitlab-ci.yml against GitLab's ci.json: the file, each hidden template against the schema's
  job definition (the file-level schema accepts any hidden key), and each job with its `extends`
  merged in, as GitLab runs it.
Each schema is shown to catch a planted mistake in its file (a misspelt key, a wrong value).

Usage: tests/package/ci_schema_test.py SOURCE_DIR
Skips (exit 77) without Debian's python3-yaml or python3-jsonschema (ci/setup.sh --tests).
"""
import copy
import json
import os
import sys

try:
    import jsonschema
    import yaml  # noqa: F401 (ci_yaml needs it)
except ImportError as error:
    print(f"SKIP: {error.name} is not importable by {sys.executable} "
          "(Debian: apt-get install python3-jsonschema python3-yaml)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ci_recipes_test import gitlab_jobs  # noqa: E402
from ci_yaml import load_yaml  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


def errors(validator, document):
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:160]}"
            for e in validator.iter_errors(document)]


def validator(schema, ref=None):
    """A draft-07 validator of the schema, or of one of its definitions (ref)."""
    if ref:
        schema = {"$schema": schema["$schema"], "$ref": ref, "definitions": schema["definitions"]}
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())


def gitlab_errors(schema, pipeline):
    found = errors(validator(schema), pipeline)
    template = validator(schema, "#/definitions/job_template")
    for name, job in pipeline.items():
        if name.startswith(".") and isinstance(job, dict):
            found += [f"{name}: {e}" for e in errors(template, job)]
    job_validator = validator(schema, "#/definitions/job")
    for name, job in gitlab_jobs(pipeline).items():
        found += [f"{name} (extends merged): {e}" for e in errors(job_validator, job)]
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ci_schema_test.py SOURCE_DIR")
    source = sys.argv[1]
    schemas = os.path.join(source, "tests", "package", "schemas")

    def schema(name):
        with open(os.path.join(schemas, name), encoding="utf-8") as f:
            return json.load(f)
    workflow_schema, action_schema, gitlab_schema = (schema("github-workflow.json"), schema("github-action.json"),
                                                     schema("gitlab-ci.json"))

    planted = {}
    for path, kind, plant in (
            ("ci/github-actions.yml", workflow_schema,
             lambda d: d["jobs"]["gate"]["permissions"].__setitem__("pull-requests", "writ")),
            (".github/workflows/release.yml", workflow_schema,
             lambda d: next(iter(d["jobs"].values())).__setitem__("runs_on", "ubuntu-latest")),
            ("action.yml", action_schema, lambda d: d["runs"].__setitem__("using", "docker2"))):
        document = load_yaml(os.path.join(source, path))
        found = errors(validator(kind), document)
        check(not found, f"{path} is valid against its schema" + "".join(f"\n    {e}" for e in found))
        changed = copy.deepcopy(document)
        plant(changed)
        planted[path] = errors(validator(kind), changed)
        check(planted[path], f"{path}: a planted mistake is caught ({(planted[path] or ['none'])[0]})")

    pipeline = load_yaml(os.path.join(source, "ci", "gitlab-ci.yml"))
    found = gitlab_errors(gitlab_schema, pipeline)
    check(not found, "ci/gitlab-ci.yml is valid against GitLab's schema" + "".join(f"\n    {e}" for e in found))
    for what, plant in (
            ("a misspelt key in the hidden template", lambda p: p[".perfgate-gate"].__setitem__("artefacts", {})),
            ("a wrong report name", lambda p: p[".perfgate-gate"]["artifacts"]["reports"].__setitem__("code_quality", "x")),
            ("a resource_group that is not a string", lambda p: p["perfgate-record"].__setitem__("resource_group", ["x"]))):
        changed = copy.deepcopy(pipeline)
        plant(changed)
        caught = gitlab_errors(gitlab_schema, changed)
        check(caught, f"ci/gitlab-ci.yml: {what} is caught ({(caught or ['none'])[0]})")


if __name__ == "__main__":
    main()
    print(f"{failures} failed")
    sys.exit(1 if failures else 0)
