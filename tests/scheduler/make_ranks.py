#!/usr/bin/env python3
"""Writes a run folder of COUNT ranks from two real rank traces, for the Slurm test.

Usage: make_ranks.py SOURCE_FOLDER OUT_FOLDER COUNT
OUT_FOLDER/rank-R.json.gz is a copy of SOURCE_FOLDER/rank-(R % 2).json.gz whose "distributedInfo"
object says rank R of COUNT; nothing else of the trace changes (the object is rewritten in place,
the rest of the text is copied byte for byte). The gzip header carries no time or name, so the
same inputs give the same bytes.
"""
import gzip
import json
import os
import re
import sys

DISTRIBUTED_INFO = re.compile(rb'"distributedInfo"\s*:\s*(\{[^{}]*\})')


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: make_ranks.py SOURCE_FOLDER OUT_FOLDER COUNT")
    source, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    texts = []
    for r in (0, 1):
        with gzip.open(os.path.join(source, f"rank-{r}.json.gz")) as f:
            text = f.read()
        match = DISTRIBUTED_INFO.search(text)
        if not match:
            sys.exit(f"make_ranks.py: no distributedInfo object in rank-{r}.json.gz")
        texts.append((text, match))
    for rank in range(count):
        text, match = texts[rank % 2]
        info = json.loads(match.group(1))
        info["rank"] = rank
        info["world_size"] = count
        rewritten = json.dumps(info).encode()
        body = text[: match.start(1)] + rewritten + text[match.end(1) :]
        path = os.path.join(out, f"rank-{rank}.json.gz")
        with open(path, "wb") as raw, gzip.GzipFile(
            filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=1
        ) as f:
            f.write(body)


if __name__ == "__main__":
    main()
