#!/usr/bin/python3
"""CTest CiRecipes.PostReport (label `recipes`): ci/post_report.py against recorded API exchanges.

A local HTTP server (no network) answers each request with the next response of a recorded
exchange (tests/package/data/ci_api_exchanges.json) and fails the request that is not the one
recorded next; the test then checks that every recorded request was made, with the token and the
body it must carry:
- GitHub: a pull request without perfgate's comment gets one (POST); with it, that comment is
  edited (PATCH) and a reviewer's comment quoting the marker is left alone; the marker is found on
  a second page of comments; a push (no pull request) makes no request;
- GitHub: a check run on the pull request's head commit, failed rules as failure annotations and
  warnings as warning ones, and more than 50 annotations sent in a second request;
- GitLab: a merge request without the note gets one, one with it (found from the branch when the
  pipeline is a branch pipeline) is edited, never someone else's;
- an API that refuses (HTTP 403) fails with exit 3, naming the request.
Usage: tests/package/post_report_test.py SOURCE_DIR
"""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading

failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


class Replay(http.server.BaseHTTPRequestHandler):
    """Answers from server.exchanges in order; records every request in server.seen."""

    def handle_one(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        self.server.seen.append({"method": self.command, "path": self.path, "body": body,
                                 "headers": {k.lower(): v for k, v in self.headers.items()}})
        expected = self.server.exchanges.pop(0) if self.server.exchanges else None
        if expected is None or (expected["method"], expected["path"]) != (self.command, self.path):
            self.server.unexpected.append(f"{self.command} {self.path}")
            status, response = 500, {"message": "not in the recorded exchange"}
        else:
            status, response = expected["status"], expected["response"]
        data = json.dumps(response).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = handle_one

    def log_message(self, *args):
        pass


def serve(exchanges):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Replay)
    server.exchanges, server.seen, server.unexpected = list(exchanges), [], []
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    return server


def at(value, dotted):
    for part in dotted.split("."):
        value = value[int(part)] if isinstance(value, list) else value.get(part)
        if value is None:
            return None
    return value


def run(script, work, scenario, exchanges, extra_env=None):
    """Runs the script against a replaying server; returns (exit code, output, server)."""
    server = serve(exchanges)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    event = os.path.join(work, "event.json")
    with open(event, "w") as f:
        json.dump(scenario.get("event", {}), f)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GITHUB_API_URL": base, "GITHUB_TOKEN": "ghs_test",
           "GITHUB_REPOSITORY": "acme/train", "GITHUB_EVENT_PATH": event, "GITHUB_SHA": "f" * 40,
           "GITHUB_WORKFLOW_REF": "acme/train/.github/workflows/perfgate.yml@refs/pull/7/merge",
           "CI_API_V4_URL": base + "/api/v4", "CI_PROJECT_ID": "acme/train", "PERFGATE_GITLAB_TOKEN": "glpat-test"}
    env.update(scenario.get("env", {}))
    env.update(extra_env or {})
    argv = [a.format(pr_comment=os.path.join(work, "pr-comment.md"), junit=os.path.join(work, "junit.xml"))
            for a in scenario["argv"]]
    done = subprocess.run([sys.executable, script] + argv, env=env, capture_output=True, text=True, timeout=60)
    server.shutdown()
    server.server_close()
    return done.returncode, done.stdout + done.stderr, server


def gitlab_paths(exchanges):
    """GitLab's paths are under /api/v4 (CI_API_V4_URL)."""
    return [dict(e, path="/api/v4" + e["path"]) for e in exchanges]


def replay_recorded(script, work, name, scenario):
    exchanges = scenario["exchanges"]
    if name.startswith("gitlab"):
        exchanges = gitlab_paths(exchanges)
    code, output, server = run(script, work, scenario, exchanges)
    check(code == 0, f"{name}: exit 0" + ("" if code == 0 else f" (got {code}: {output.strip()})"))
    check(not server.unexpected and not server.exchanges,
          f"{name}: made exactly the recorded requests (unexpected: {server.unexpected}, "
          f"not made: {[e['method'] + ' ' + e['path'] for e in server.exchanges]})")
    for expected, seen in zip(exchanges, server.seen):
        token = seen["headers"].get("private-token") if name.startswith("gitlab") else seen["headers"].get("authorization")
        check(token in ("glpat-test", "Bearer ghs_test"), f"{name}: {seen['method']} {seen['path']} carries the token")
        for key, wanted in expected.get("body_has", {}).items():
            value = at(seen["body"] or {}, key)
            for text in wanted:
                check(isinstance(value, str) and text in value,
                      f"{name}: {seen['method']} body {key} holds {text!r}" + ("" if isinstance(value, str) and text in value
                                                                               else f" (got {str(value)[:120]!r})"))
    return server


JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="perfgate" tests="4" failures="1" errors="0" skipped="1">
  <testsuite name="perfgate: rank0" tests="4" failures="1" errors="0" skipped="1" time="0">
    <testcase classname="perfgate.step" name="step.time" time="0">
      <failure message="Step time grew by 12.0%" type="error">Step time grew by 12.0% (limit 5.0%)</failure>
    </testcase>
    <testcase classname="perfgate.dataloader" name="dataloader.bottleneck" time="0">
      <system-out>warning: The data loader holds up the step: 27.0% (limit &gt; 5.0%)
Set num_workers on the DataLoader.</system-out>
    </testcase>
    <testcase classname="perfgate.gpu" name="gpu.idle" time="0"></testcase>
    <testcase classname="perfgate.gpu" name="gpu.idle-clock-offset" time="0">
      <skipped message="applies only when gpu.clock_offset &gt; 0"/>
    </testcase>
  </testsuite>
</testsuites>
"""


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: post_report_test.py SOURCE_DIR")
    source = sys.argv[1]
    script = os.path.join(source, "ci", "post_report.py")
    with open(os.path.join(source, "tests", "package", "data", "ci_api_exchanges.json")) as f:
        recorded = {k: v for k, v in json.load(f).items() if not k.startswith("_")}
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "pr-comment.md"), "w") as f:
            f.write("## perfgate: FAIL\n\n**1 failed · 1 warnings**\n")
        with open(os.path.join(work, "junit.xml"), "w") as f:
            f.write(JUNIT)
        for name, scenario in recorded.items():
            replay_recorded(script, work, name, scenario)

        # The marker on the second page of comments: 100 others first.
        pull = recorded["github_comment_created"]
        page1 = [{"id": i, "user": {"login": "alice"}, "body": f"comment {i}"} for i in range(1, 101)]
        page2 = [{"id": 700, "user": {"login": "github-actions[bot]"}, "body": "<!-- perfgate-report: perfgate -->\nold"}]
        base = "/repos/acme/train/issues/7/comments?per_page=100&page="
        paged = [{"method": "GET", "path": base + "1", "status": 200, "response": page1},
                 {"method": "GET", "path": base + "2", "status": 200, "response": page2},
                 {"method": "PATCH", "path": "/repos/acme/train/issues/comments/700", "status": 200,
                  "response": {"id": 700}}]
        code, output, server = run(script, work, pull, paged)
        check(code == 0 and not server.unexpected and not server.exchanges,
              f"the marker on the second page: that comment is edited ({output.strip()})")

        # Another job's key is another comment: perfgate's own with key `perfgate` is not edited.
        keyed = dict(pull, argv=pull["argv"] + ["--key", "gpu-a100"])
        code, output, server = run(script, work, keyed, recorded["github_comment_updated"]["exchanges"][:1] +
                                   [dict(recorded["github_comment_created"]["exchanges"][1], path="/repos/acme/train/issues/7/comments")])
        check(code == 0 and not server.unexpected and server.seen[-1]["method"] == "POST" and
              server.seen[-1]["body"]["body"].startswith("<!-- perfgate-report: gpu-a100 -->"),
              "--key: another job's comment is created beside perfgate's, with its own marker")

        # A push has no pull request: nothing is posted.
        code, output, server = run(script, work, dict(pull, event={"ref": "refs/heads/main"}), [])
        check(code == 0 and not server.seen and "not a pull request" in output,
              "a push: no request, and it says why")
        # Nor a GitLab pipeline without a merge request (a branch with none open).
        note = recorded["gitlab_note_created"]
        code, output, server = run(script, work, dict(note, env={"CI_COMMIT_BRANCH": "main"}), gitlab_paths([
            {"method": "GET", "path": "/projects/acme%2Ftrain/merge_requests?state=opened&source_branch=main",
             "status": 200, "response": []}]))
        check(code == 0 and len(server.seen) == 1 and "no merge request" in output,
              "a GitLab branch without a merge request: no note, and it says why")

        # More than 50 annotations: the rest in a PATCH of the same check run.
        many = JUNIT.replace("</testsuite>", "".join(
            f'<testcase classname="perfgate.x" name="x.w{i}" time="0"><system-out>warning: w{i}\nd</system-out></testcase>'
            for i in range(60)) + "</testsuite>")
        with open(os.path.join(work, "junit.xml"), "w") as f:
            f.write(many)
        check_scenario = recorded["github_check"]
        code, output, server = run(script, work, dict(check_scenario, event={}), [
            {"method": "POST", "path": "/repos/acme/train/check-runs", "status": 201, "response": {"id": 9}},
            {"method": "PATCH", "path": "/repos/acme/train/check-runs/9", "status": 200, "response": {"id": 9}}])
        posted = server.seen[0]["body"] if server.seen else {}
        patched = server.seen[1]["body"] if len(server.seen) > 1 else {}
        check(code == 0 and len(posted["output"]["annotations"]) == 50 and len(patched["output"]["annotations"]) == 12,
              "62 annotations: 50 in the check run, 12 in its update")
        check(posted.get("head_sha") == "f" * 40, "a push's check run is on GITHUB_SHA")

        # A refusal: exit 3, naming the request and GitHub's message.
        code, output, server = run(script, work, pull, [
            {"method": "GET", "path": base + "1", "status": 403,
             "response": {"message": "Resource not accessible by integration"}}])
        check(code == 3 and "HTTP 403" in output and "/issues/7/comments" in output and
              "Resource not accessible by integration" in output,
              f"a 403 (a token without pull-requests: write): exit 3, naming the request ({output.strip()[:160]})")
        code, output, server = run(script, work, pull, [], {"GITHUB_TOKEN": ""})
        check(code == 2 and "GITHUB_TOKEN is not set" in output, "no token: exit 2, saying which setting")


if __name__ == "__main__":
    main()
    print(f"{failures} failed")
    sys.exit(1 if failures else 0)
