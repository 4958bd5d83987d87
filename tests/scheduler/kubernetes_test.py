#!/usr/bin/python3
"""CTest Scheduler.KubernetesObjects (label `kubernetes`): examples/kubernetes/ against the
Kubernetes object models, offline (no cluster is reached; the Jobs are not run here).

- Every document of every examples/kubernetes/*.yaml deserializes into its model (V1Job,
  V1PersistentVolumeClaim) with the Kubernetes client's deserializer, and serializes back
  (sanitize_for_serialization) to the same keys and values: a misspelt or unknown field, which the
  deserializer drops, or a missing required one, fails. A planted misspelling shows the check sees it.
- The Indexed Job: completionMode Indexed, parallelism and completions equal to the N of its
  `--slice $(JOB_COMPLETION_INDEX)/N`, one partial per index named with that N, written where the
  merge Job reads; both Jobs run the image localhost/perfgate:0.1.0 as the Containerfile's uid, on
  the volume that perfgate-work-pvc.yaml claims.
- Safe by default: no service account token in the pods (automountServiceAccountToken false), a
  deadline on each Job (activeDeadlineSeconds), and a memory limit with headroom above what
  perfgate's own limit lets the inputs hold (--max-input-memory × --threads, both given
  explicitly, plus HEADROOM), so that perfgate refuses a huge input (exit 3) before the kernel
  kills the pod. A planted unsafe variant shows each check sees it.
- Every option in the Jobs' args is one that `perfgate analyze --help` / `perfgate merge --help`
  lists; run.sh passes shellcheck where it is installed.

Usage: tests/scheduler/kubernetes_test.py SOURCE_DIR PERFGATE
Skips (exit 77) without Debian's python3-kubernetes (and python3-yaml).
"""
import copy
import glob
import json
import os
import re
import shutil
import subprocess
import sys

try:
    import yaml
    from kubernetes import client
except ImportError as error:
    print(f"SKIP: {error.name} is not importable by {sys.executable} "
          "(Debian: apt-get install python3-kubernetes; ci/setup.sh --tests)")
    sys.exit(77)

MODELS = {("batch/v1", "Job"): "V1Job", ("v1", "PersistentVolumeClaim"): "V1PersistentVolumeClaim"}
IMAGE = "localhost/perfgate:0.1.0"

failures = 0

# What a perfgate process needs beside its inputs: the report model, the rendered outputs, the
# program and its libraries (docs/install.md, "Kubernetes").
HEADROOM = 1 << 30
UNITS = {"": 1, "K": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4,
         "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}


def check(ok, what, detail=""):
    global failures
    if ok:
        print(f"ok: {what}")
    else:
        failures += 1
        print(f"FAIL: {what}" + (f"\n    {detail}" if detail else ""))


class Response:
    """What ApiClient.deserialize reads: the body of an API server's answer."""

    def __init__(self, document):
        self.data = json.dumps(document)


def differences(original, round_trip, path=""):
    """Where the round trip differs: keys dropped or added, values changed (compared as text, as
    the models keep quantities and int-or-string fields as strings)."""
    if isinstance(original, dict) and isinstance(round_trip, dict):
        found = []
        for key in sorted(set(original) | set(round_trip), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in round_trip:
                found.append(f"{where}: not a field of the model (dropped)")
            elif key not in original:
                found.append(f"{where}: added by the model")
            else:
                found += differences(original[key], round_trip[key], where)
        return found
    if isinstance(original, list) and isinstance(round_trip, list):
        if len(original) != len(round_trip):
            return [f"{path}: {len(original)} items, {len(round_trip)} after the round trip"]
        return [d for i, (a, b) in enumerate(zip(original, round_trip)) for d in differences(a, b, f"{path}[{i}]")]
    if str(original) != str(round_trip) or isinstance(original, dict) != isinstance(round_trip, dict):
        return [f"{path}: {original!r} became {round_trip!r}"]
    return []


def model_problems(api, document):
    """The problems of one document against its model; empty when it round-trips."""
    kind = (document.get("apiVersion"), document.get("kind"))
    if kind not in MODELS:
        return [f"apiVersion/kind {kind} is not one this test knows"]
    try:
        model = api.deserialize(Response(document), MODELS[kind])
    except (ValueError, TypeError) as error:
        return [f"does not deserialize into {MODELS[kind]}: {error}"]
    return differences(document, api.sanitize_for_serialization(model))


def container(job):
    containers = job["spec"]["template"]["spec"]["containers"]
    return containers[0] if len(containers) == 1 else None


def option_value(args, option):
    return args[args.index(option) + 1] if option in args and args.index(option) + 1 < len(args) else None


def quantity_bytes(text):
    """A Kubernetes memory quantity (4Gi, 512M) in bytes; None when malformed."""
    match = re.fullmatch(r"([0-9]+)([KMGT]i?)?", str(text))
    return int(match.group(1)) * UNITS[match.group(2) or ""] if match else None


def size_bytes(text):
    """perfgate's --max-input-memory (8G, 512M: binary units, docs/formats.md) in bytes."""
    match = re.fullmatch(r"([0-9]+)([KMGT]?)", str(text))
    return int(match.group(1)) * (1 << (10 * " KMGT".index(match.group(2) or " "))) if match else None


def safety_problems(job):
    """Why a Job is not safe by default; empty when it is."""
    problems = []
    pod = job["spec"]["template"]["spec"]
    if pod.get("automountServiceAccountToken") is not False:
        problems.append("the pod mounts a service account token (automountServiceAccountToken)")
    deadline = job["spec"].get("activeDeadlineSeconds")
    if not isinstance(deadline, int) or deadline <= 0:
        problems.append("the Job has no activeDeadlineSeconds")
    args = container(job)["args"]
    limit = quantity_bytes(container(job).get("resources", {}).get("limits", {}).get("memory"))
    per_input = size_bytes(option_value(args, "--max-input-memory"))
    threads = option_value(args, "--threads")
    if limit is None or per_input is None or per_input == 0 or not (threads or "").isdigit() or threads == "0":
        problems.append("memory limit, --max-input-memory and --threads (not 0) must all be given")
    elif per_input * int(threads) + HEADROOM > limit:
        problems.append(f"--max-input-memory x --threads = {per_input * int(threads)} bytes leaves less than "
                        f"{HEADROOM} bytes of the {limit}-byte limit")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: kubernetes_test.py SOURCE_DIR PERFGATE")
    source_dir, perfgate = sys.argv[1], sys.argv[2]
    folder = os.path.join(source_dir, "examples", "kubernetes")
    api = client.ApiClient()

    documents = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.yaml"))):
        with open(path) as f:
            for index, document in enumerate(d for d in yaml.safe_load_all(f) if d is not None):
                name = f"{os.path.basename(path)}#{index}"
                problems = model_problems(api, document)
                check(not problems, f"{name} ({document.get('kind')} {document['metadata']['name']}) "
                      "round-trips through the Kubernetes model", "\n    ".join(problems))
                documents[(document["kind"], document["metadata"]["name"])] = document
    check(len(documents) == 3, f"three objects in examples/kubernetes ({sorted(documents)})")

    slices = documents.get(("Job", "perfgate-slices"))
    merge = documents.get(("Job", "perfgate-merge"))
    claim = documents.get(("PersistentVolumeClaim", "perfgate-work"))
    if not (slices and merge and claim):
        check(False, "the slices Job, the merge Job and the perfgate-work claim are there")
        return

    # The check sees what it is for: a misspelt field and a field of the wrong level.
    for where, plant in (("spec.paralelism", lambda d: d["spec"].__setitem__("paralelism", 4)),
                         ("containers[0].volumeMount",
                          lambda d: container(d).__setitem__("volumeMount", container(d)["volumeMounts"])),
                         ("spec.template.spec.completionMode",
                          lambda d: d["spec"]["template"]["spec"].__setitem__("completionMode", "Indexed"))):
        planted = copy.deepcopy(slices)
        plant(planted)
        check(any("dropped" in p for p in model_problems(api, planted)), f"a planted {where} is found")

    # ---- the Indexed Job and its slices ----
    spec = slices["spec"]
    args = container(slices)["args"]
    check(spec.get("completionMode") == "Indexed", "the slices Job is an Indexed Job")
    slice_value = option_value(args, "--slice") or ""
    match = re.fullmatch(r"\$\(JOB_COMPLETION_INDEX\)/([1-9][0-9]*)", slice_value)
    check(match is not None, f"its pods analyse --slice $(JOB_COMPLETION_INDEX)/N ({slice_value!r})")
    n = int(match.group(1)) if match else None
    check(spec.get("completions") == n and spec.get("parallelism") == n,
          f"parallelism and completions are the N of --slice ({spec.get('parallelism')}, "
          f"{spec.get('completions')}, {n})")
    check(args[0] == "analyze", "the slices run perfgate analyze")
    partial = option_value(args, "--partial") or ""
    check(re.fullmatch(rf".*/[^/]*\$\(JOB_COMPLETION_INDEX\)[^/]*{n}[^/]*\.pgp", partial) is not None,
          f"each index writes its own partial, named with N ({partial!r})")

    # ---- the merge Job reads what the slices wrote ----
    merge_args = container(merge)["args"]
    check(merge_args[0] == "merge", "the merge Job runs perfgate merge")
    partials_folder = os.path.dirname(partial)
    check(partials_folder in merge_args[1:], f"the merge reads the partials' folder {partials_folder}")

    def mount_claim(job, mount_path):
        pod = job["spec"]["template"]["spec"]
        mounts = [m for m in container(job).get("volumeMounts", []) if mount_path.startswith(m["mountPath"])]
        mount = max(mounts, key=lambda m: len(m["mountPath"]), default=None)
        volume = next((v for v in pod.get("volumes", []) if mount and v["name"] == mount["name"]), None)
        return (volume or {}).get("persistentVolumeClaim", {}).get("claimName")

    for job, path in ((slices, partial), (merge, partials_folder)):
        name = job["metadata"]["name"]
        check(mount_claim(job, path) == "perfgate-work",
              f"{name}: {path} is on the volume that perfgate-work-pvc.yaml claims")
    check("ReadWriteMany" in claim["spec"]["accessModes"], "the claim is ReadWriteMany (pods on several nodes)")
    for output in (option_value(merge_args, o) for o in ("--json", "--html", "--md", "--xlsx", "--junit")):
        if output:
            check(mount_claim(merge, output) == "perfgate-work", f"perfgate-merge writes {output} on the volume")

    # ---- the image and its user ----
    with open(os.path.join(source_dir, "Containerfile")) as f:
        user = re.search(r"^USER (\d+)", f.read(), re.M)
    for job in (slices, merge):
        name = job["metadata"]["name"]
        pod = job["spec"]["template"]["spec"]
        check(container(job)["image"] == IMAGE, f"{name} runs {IMAGE}")
        check(user is not None and pod["securityContext"].get("runAsUser") == int(user.group(1))
              and pod["securityContext"].get("fsGroup") == int(user.group(1)),
              f"{name} runs as the Containerfile's uid, which may write the volume (fsGroup)")
        check(pod.get("restartPolicy") == "Never", f"{name}: a failed pod is not restarted in place")

    # ---- safe by default ----
    for job in (slices, merge):
        name = job["metadata"]["name"]
        problems = safety_problems(job)
        check(not problems, f"{name}: no token, a deadline, memory headroom", "\n    ".join(problems))
    for where, plant in (("automountServiceAccountToken", lambda d: d["spec"]["template"]["spec"].pop(
                              "automountServiceAccountToken", None)),
                         ("activeDeadlineSeconds", lambda d: d["spec"].pop("activeDeadlineSeconds", None)),
                         ("2 threads x the default 4G in 8Gi", lambda d: container(d).__setitem__(
                             "args", [a for a in container(d)["args"] if a not in ("--max-input-memory", "3G")]
                             + ["--max-input-memory", "4G"]))):
        planted = copy.deepcopy(slices)
        plant(planted)
        check(safety_problems(planted), f"a slices Job without {where} is found")

    # ---- the options are perfgate's ----
    for command, command_args in (("analyze", args), ("merge", merge_args)):
        result = subprocess.run([perfgate, command, "--help"], capture_output=True, text=True)
        options = set(re.findall(r"--[a-z][a-z0-9-]*", result.stdout))
        used = [a for a in command_args if a.startswith("--")]
        unknown = [a for a in used if a not in options]
        check(result.returncode == 0 and not unknown,
              f"perfgate {command} --help lists {' '.join(used)}",
              f"exit {result.returncode}; not listed: {' '.join(unknown)}")

    shellcheck = shutil.which("shellcheck")
    if shellcheck:
        result = subprocess.run([shellcheck, os.path.join(folder, "run.sh")], capture_output=True, text=True)
        check(result.returncode == 0, "run.sh passes shellcheck", result.stdout)
    else:
        print("note: shellcheck is not installed; run.sh not checked")


if __name__ == "__main__":
    main()
    print(f"{failures} failed")
    sys.exit(1 if failures else 0)
