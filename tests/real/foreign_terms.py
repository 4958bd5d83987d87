#!/usr/bin/env python3
"""Every report speaks of the capture in front of it (issue 89): no device, vendor, framework or
workload term other than its capture profile's in the words perfgate writes itself.

    foreign_terms.py FOLDER      checks the reports capture_words_test.sh wrote (NAME.json beside
                                 NAME.html, NAME.md, NAME.pr.md, NAME.txt, NAME.junit.xml): exit 1
                                 with each term out of place, 0 when there is none
    foreign_terms.py --self-test a planted term in each kind of output is caught

What is checked is perfgate's own prose: the findings' titles and texts, the run notes, the HTML
page without its table cells, code spans and rule sources (a citation keeps its source's words),
the Markdown and terminal summaries without code spans and table rows; links (a rule's docs) are
left out too. Names from the trace (kernels, ops,
files) stand in table cells and code spans, which are left out. Each term belongs to the captures
that may name it (the capture profile's devices, vendors, frameworks and workload, in the JSON
report's "capture"); a capture whose devices or frameworks are unknown may name any of them.
"""
import html
import json
import os
import re
import sys
import tempfile


def vendors(c):
    return {d.get("vendor") for d in c.get("devices", [])} - {None, "unknown"}


def kinds(c):
    return {d.get("kind") for d in c.get("devices", [])} - {None, "unknown"}


def frameworks(c):
    return {f["name"] for f in c.get("frameworks", [])}


def unknown_vendor(c):
    return not vendors(c) or "cpu-only" in kinds(c)


def any_framework(c, *names):
    return not frameworks(c) or any(n in frameworks(c) for n in names)


def workload(c, *names):
    return c.get("workload") in names + ("unknown", None, "")


# (pattern, whether the capture may name it)
TERMS = [
    (r"\bTensor[ -]Cores?\b", lambda c: "nvidia" in vendors(c) or unknown_vendor(c)),
    (r"\bMatrix Cores?\b", lambda c: "amd" in vendors(c) or unknown_vendor(c)),
    (r"\bMXUs?\b", lambda c: "tpu" in kinds(c)),
    (r"\bNVIDIA\b|\bcuBLAS(Lt)?\b|\bcuDNN\b|\bCUPTI\b|\bNsight\b|\bHopper\b|\bTensorRT\b|nvidia-smi",
     lambda c: "nvidia" in vendors(c) or unknown_vendor(c)),
    (r"(?<!torch\.)\bCUDA\b", lambda c: "nvidia" in vendors(c) or "cuda" in frameworks(c) or unknown_vendor(c)),
    (r"\bHIP\b|\bROCm\b|\bRCCL\b|rocprof|hipBLASLt|\bAMD\b", lambda c: "amd" in vendors(c) or unknown_vendor(c)),
    (r"\bNCCL\b", lambda c: bool({"nccl", "rccl", "pytorch"} & frameworks(c)) or "nvidia" in vendors(c)
     or unknown_vendor(c)),
    (r"\bTPUs?\b", lambda c: "tpu" in kinds(c) or not kinds(c)),
    (r"\bGPUs?\b", lambda c: "gpu" in kinds(c) or not kinds(c) or "cpu-only" in kinds(c)),
    (r"\bPyTorch\b|\bDataLoader\b|with_stack|pin_memory|\btorch\.\w", lambda c: any_framework(c, "pytorch")),
    (r"\bJAX\b|\bjax\.", lambda c: any_framework(c, "jax")),
    (r"\bTensorFlow\b|\btf\.data\b|\btf\.function\b", lambda c: any_framework(c, "tensorflow")),
    (r"\bvLLM\b", lambda c: any_framework(c, "vllm")),
    (r"\bSGLang\b", lambda c: any_framework(c, "sglang")),
    (r"\bDeepSpeed\b", lambda c: any_framework(c, "deepspeed")),
    (r"\bMegatron\b", lambda c: any_framework(c, "megatron")),
    (r"\b(DDP|FSDP)\b", lambda c: any_framework(c, "pytorch") and workload(c, "training")),
    (r"training steps?|larger batch size|convergence|\boptimizer\b", lambda c: workload(c, "training")),
    (r"let the server|\brequests\b", lambda c: workload(c, "serving")),
]


def html_prose(text):
    for pattern in (r"<script.*?</script>", r"<style.*?</style>", r"<td[^>]*>.*?</td>", r"<code>.*?</code>"):
        text = re.sub(pattern, " ", text, flags=re.S)
    text = re.sub(r"Source:.*?(?=<)", " ", text, flags=re.S)  # a rule's source cites it as written
    return text_prose(html.unescape(re.sub(r"<[^>]+>", " ", text)))


def json_prose(report):
    out = []
    for f in report.get("findings", []):
        out += [str(f.get(k, "")) for k in ("title", "problem", "recommendation", "reason", "threshold_text")]
    for w in report.get("warnings", []) + report.get("run_warnings", []):
        out.append(json.dumps(w))
    return "\n".join(out)


def text_prose(text):
    return re.sub(r"`[^`]*`|https?://\S+", " ", text)


def markdown_prose(text):
    # Table rows hold the trace's names (op types, kernels): left out like the HTML's cells.
    return text_prose("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("|")))


def check_folder(folder):
    found = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json") or name.endswith(".gl.json"):
            continue
        stem = name[: -len(".json")]
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            report = json.load(f)
        capture = report.get("capture", {})
        texts = {"json": json_prose(report)}
        for ext, prose in ((".html", html_prose), (".md", markdown_prose), (".pr.md", markdown_prose),
                           (".txt", text_prose), (".junit.xml", html_prose)):
            path = os.path.join(folder, stem + ext)
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    texts[ext.lstrip(".")] = prose(f.read())
        for kind, text in texts.items():
            for pattern, belongs in TERMS:
                if belongs(capture):
                    continue
                for m in re.finditer(pattern, text):
                    around = text[max(0, m.start() - 60): m.end() + 40].replace("\n", " ")
                    found.append(f"{stem} ({capture.get('line', 'no capture')}), {kind}: '{m.group(0)}' in ...{around}...")
                    break
    return found


def self_test():
    amd = {"line": "AMD Instinct MI300X ×1 · PyTorch + HIP · inference serving",
           "devices": [{"kind": "gpu", "vendor": "amd"}],
           "frameworks": [{"name": "pytorch"}, {"name": "hip"}], "workload": "serving"}
    planted = {
        "json": ({"capture": amd, "findings": [{"title": "Tensor Cores are not used"}]}, None),
        "html": ({"capture": amd}, "<p>Use <b>JAX</b> here</p><td>JAX in a cell is the trace's</td>"),
        "md": ({"capture": amd}, "Try a larger batch size.\n| convergence in a table row |"),
        "txt": ({"capture": amd}, "Host  CUDA runtime calls `cudaFree`"),
    }
    failures = 0
    for ext, (report, text) in planted.items():
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "case.json"), "w", encoding="utf-8") as f:
                json.dump(report, f)
            if text is not None:
                with open(os.path.join(d, "case." + ext), "w", encoding="utf-8") as f:
                    f.write(text)
            found = check_folder(d)
            if len(found) != 1:
                print(f"self-test: a term planted in the {ext} output gave {found}", file=sys.stderr)
                failures += 1
    clean = {"capture": amd, "findings": [{"title": "Matrix Cores are not used", "problem": "HIP graphs"}]}
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "clean.json"), "w", encoding="utf-8") as f:
            json.dump(clean, f)
        if check_folder(d):
            print("self-test: the capture's own words were flagged", file=sys.stderr)
            failures += 1
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    found = check_folder(sys.argv[1])
    for line in found:
        print(line)
    print(f"foreign_terms.py: {len(found)} term(s) out of their capture", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
