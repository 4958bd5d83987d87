#!/usr/bin/env python3
"""Publishes perfgate's reports where a reviewer reads them, with the CI system's REST API (stdlib only).

  post_report.py github-comment FILE   one pull-request comment with FILE (reports/pr-comment.md):
                                       created the first time, edited on every later run (found by
                                       a hidden marker), never a second one.
  post_report.py github-check JUNIT    a completed check run from perfgate's JUnit report: the failed
                                       rules as `failure` annotations (conclusion failure), the
                                       warnings as `warning` annotations, both listed in its summary.
  post_report.py gitlab-note FILE      one merge-request note with FILE, edited as the comment is.

GitHub: GITHUB_TOKEN (the job's token: pull-requests: write for the comment, checks: write for the
check), GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_EVENT_PATH (the pull request's number and head
commit), GITHUB_SHA and GITHUB_WORKFLOW_REF (the annotations' file: the workflow). GitLab:
PERFGATE_GITLAB_TOKEN (a project access token with the `api` scope: a job token cannot write notes),
CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID (else the open merge request of CI_COMMIT_BRANCH).
Outside a pull request (merge request) the comment (note) is skipped, saying so, with exit 0.
Exit codes: 0 posted or skipped, 2 usage or missing setting, 3 the API refused or is unreachable.
tests/package/post_report_test.py replays recorded API exchanges against it.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree

# The hidden line that marks perfgate's own comment; KEY tells several perfgate jobs of one
# workflow apart (--key).
MARKER = "<!-- perfgate-report: {key} -->"
# GitHub's limits: 65,536 characters in a comment or a check's summary and text, 50 annotations
# per request (a check run takes more in later updates).
BODY_LIMIT = 65000
ANNOTATIONS_PER_REQUEST = 50


class Failed(Exception):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def setting(name):
    value = os.environ.get(name, "")
    if not value:
        raise Failed(f"post_report.py: {name} is not set", 2)
    return value


class Api:
    """JSON over HTTPS with one authorisation header; every failure names the request."""

    def __init__(self, base, headers):
        self.base = base.rstrip("/")
        self.headers = headers

    def call(self, method, path, body=None):
        url = self.base + path
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method, headers=dict(self.headers))
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as error:
            detail = error.read().decode(errors="replace")[:300]
            raise Failed(f"post_report.py: {method} {url}: HTTP {error.code} {error.reason}: {detail}", 3)
        except (urllib.error.URLError, OSError) as error:
            raise Failed(f"post_report.py: {method} {url}: {error}", 3)
        return json.loads(text) if text.strip() else None

    def pages(self, path):
        """Every item of a paginated list (100 a page, until a short page)."""
        items, page = [], 1
        separator = "&" if "?" in path else "?"
        while True:
            batch = self.call("GET", f"{path}{separator}per_page=100&page={page}")
            items += batch
            if len(batch) < 100:
                return items
            page += 1


def body_with_marker(path, key):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise Failed(f"post_report.py: {path}: cannot read: {error.strerror}", 2)
    if len(text) > BODY_LIMIT:
        text = text[:BODY_LIMIT] + "\n\n*(cut at the CI system's size limit: the full report is attached to the job)*\n"
    return MARKER.format(key=key) + "\n" + text


def upsert(api, items_path, item_path, edit, body, marker, mine):
    """Edits (EDIT: the method) the first of our items that carries the marker, else creates one;
    someone else's comment that quotes the marker is left alone. Returns what it did."""
    for item in api.pages(items_path):
        if marker in (item.get("body") or "") and mine(item):
            api.call(edit, item_path(item["id"]), {"body": body})
            return f"updated {item['id']}"
    created = api.call("POST", items_path.split("?")[0], {"body": body})
    return f"created {created.get('id')}"


# ---- GitHub ----

def github_api():
    return Api(os.environ.get("GITHUB_API_URL", "https://api.github.com"), {
        "Authorization": "Bearer " + setting("GITHUB_TOKEN"),
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": "perfgate-post-report",
    })


def github_event():
    path = os.environ.get("GITHUB_EVENT_PATH", "")
    if not path:
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def github_comment(file, key, author):
    pull = github_event().get("pull_request")
    if not pull:
        print("post_report.py: not a pull request: no comment")
        return
    repository = setting("GITHUB_REPOSITORY")
    api = github_api()
    marker = MARKER.format(key=key)
    done = upsert(api, f"/repos/{repository}/issues/{pull['number']}/comments",
                  lambda i: f"/repos/{repository}/issues/comments/{i}", "PATCH", body_with_marker(file, key), marker,
                  lambda item: (item.get("user") or {}).get("login") == author)
    print(f"post_report.py: pull request #{pull['number']}: comment {done}")


def junit_results(path):
    """(failed, warned, counts) from perfgate's JUnit report: each a list of (rule, message, details)."""
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError) as error:
        raise Failed(f"post_report.py: {path}: not a readable JUnit report: {error}", 2)
    failed, warned, passed, skipped = [], [], 0, 0
    for case in root.iter("testcase"):
        rule = case.get("name", "")
        failure = case.find("failure")
        out = case.find("system-out")
        if failure is not None:
            failed.append((rule, failure.get("message", ""), failure.text or ""))
        elif case.find("skipped") is not None:
            skipped += 1
        elif out is not None and (out.text or "").startswith("warning: "):
            message, _, details = out.text[len("warning: "):].partition("\n")
            warned.append((rule, message, details))
        else:
            passed += 1
    return failed, warned, {"passed": passed, "skipped": skipped}


def check_output(failed, warned, counts, junit):
    verdict = "FAIL" if failed else ("PASS with warnings" if warned else "PASS")
    title = f"perfgate: {verdict}: {len(failed)} failed, {len(warned)} warnings"
    lines = [f"**{len(failed)} failed · {len(warned)} warnings · {counts['passed']} passed · "
             f"{counts['skipped']} skipped or n/a** (from `{junit}`)", ""]
    for label, results in (("Failed", failed), ("Warnings", warned)):
        if results:
            lines.append(f"### {label}")
            lines += [f"- `{rule}`: {message}" for rule, message, _ in results]
            lines.append("")
    summary = "\n".join(lines)
    return title, summary[:BODY_LIMIT]


def github_check(junit, name, annotation_path):
    failed, warned, counts = junit_results(junit)
    repository = setting("GITHUB_REPOSITORY")
    pull = github_event().get("pull_request")
    # A pull request's GITHUB_SHA is GitHub's merge commit; the check belongs on the head commit.
    sha = pull["head"]["sha"] if pull else setting("GITHUB_SHA")
    if not annotation_path:
        # owner/repo/.github/workflows/x.yml@refs/...: the workflow file, which the check's
        # annotations name (the findings are about the run, not a line of the repository).
        ref = os.environ.get("GITHUB_WORKFLOW_REF", "")
        annotation_path = ref.split("@")[0].split("/", 2)[2] if ref.count("/") >= 2 else ".github"
    annotations = [{"path": annotation_path, "start_line": 1, "end_line": 1, "annotation_level": level,
                    "title": f"{rule}: {message}"[:255], "message": (message + "\n" + details).strip()[:60000]}
                   for level, results in (("failure", failed), ("warning", warned))
                   for rule, message, details in results]
    title, summary = check_output(failed, warned, counts, junit)
    api = github_api()
    first = annotations[:ANNOTATIONS_PER_REQUEST]
    created = api.call("POST", f"/repos/{repository}/check-runs", {
        "name": name, "head_sha": sha, "status": "completed", "conclusion": "failure" if failed else "success",
        "output": {"title": title, "summary": summary, "annotations": first}})
    for start in range(ANNOTATIONS_PER_REQUEST, len(annotations), ANNOTATIONS_PER_REQUEST):
        api.call("PATCH", f"/repos/{repository}/check-runs/{created['id']}", {
            "output": {"title": title, "summary": summary,
                       "annotations": annotations[start:start + ANNOTATIONS_PER_REQUEST]}})
    print(f"post_report.py: check run {created['id']} '{name}' on {sha[:12]}: {title}")


# ---- GitLab ----

def gitlab_note(file, key):
    api = Api(setting("CI_API_V4_URL"), {"PRIVATE-TOKEN": setting("PERFGATE_GITLAB_TOKEN"),
                                         "User-Agent": "perfgate-post-report"})
    project = urllib.parse.quote(setting("CI_PROJECT_ID"), safe="")
    iid = os.environ.get("CI_MERGE_REQUEST_IID", "")
    if not iid and os.environ.get("CI_COMMIT_BRANCH"):
        branch = urllib.parse.quote(os.environ["CI_COMMIT_BRANCH"], safe="")
        opened = api.call("GET", f"/projects/{project}/merge_requests?state=opened&source_branch={branch}")
        iid = str(opened[0]["iid"]) if opened else ""
    if not iid:
        print("post_report.py: no merge request for this pipeline: no note")
        return
    me = api.call("GET", "/user")["id"]
    notes = f"/projects/{project}/merge_requests/{iid}/notes"
    done = upsert(api, notes + "?sort=asc", lambda i: f"{notes}/{i}", "PUT", body_with_marker(file, key),
                  MARKER.format(key=key),
                  lambda item: not item.get("system") and (item.get("author") or {}).get("id") == me)
    print(f"post_report.py: merge request !{iid}: note {done}")


def main(argv):
    usage = ("usage: post_report.py github-comment FILE [--key KEY] [--author LOGIN] | "
             "github-check JUNIT [--name NAME] [--path FILE] | gitlab-note FILE [--key KEY]")
    if len(argv) < 2 or argv[0] not in ("github-comment", "github-check", "gitlab-note"):
        raise Failed(usage, 2)
    command, path, rest = argv[0], argv[1], argv[2:]
    options = {"--key": "perfgate", "--author": "github-actions[bot]", "--name": "perfgate", "--path": ""}
    while rest:
        if rest[0] not in options or len(rest) < 2:
            raise Failed(usage, 2)
        options[rest[0]] = rest[1]
        rest = rest[2:]
    if command == "github-comment":
        github_comment(path, options["--key"], options["--author"])
    elif command == "github-check":
        github_check(path, options["--name"], options["--path"])
    else:
        gitlab_note(path, options["--key"])


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Failed as failure:
        print(failure, file=sys.stderr)
        sys.exit(failure.code)
