#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/) with clang, AddressSanitizer and UBSan in build-sanitize/
# (the `sanitize` preset, which ci/sanitize.sh also builds the test suite with), makes their seed corpora and runs each for SECONDS (default 60). Exits non-zero, naming the
# crash file, when a harness finds a crash, a sanitizer report, a leak or an undocumented exception.
# Needs clang and libclang-rt-14-dev: `ci/setup.sh --fuzz`. docs/formats.md#fuzzing.
set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: ci/fuzz.sh [SECONDS]" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-sanitize"
shared="${PERFGATE_SHARED:-$root/../shared}"
jobs="${JOBS:-$(nproc)}"

launcher=()
# ccache (where installed) rewrites the paths under the checkout as relative ones, so that two
# checkouts of the same sources, in any folders, share its cache.
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
  # The tests' precompiled header (tests/CMakeLists.txt) is cached only with these settings.
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
  # The sanitizer build has line tables (-gline-tables-only), and with debug information ccache hashes the
  # build folder's absolute path unless told not to: every clean checkout in a new folder missed the cache
  # (the sanitizer build was about 1,090 s of a 2,002 s CI run). A cached object's line tables keep the
  # folder that first compiled it: a sanitizer report may print that folder before `../src/…`.
  export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
fi
(cd "$root" && cmake --preset sanitize "${launcher[@]}" >/dev/null)
harnesses=(kineto_fuzz legacy_fuzz capture_folder_fuzz neuron_fuzz nsys_fuzz xplane_fuzz rocprof_fuzz rules_fuzz expression_fuzz history_fuzz baseline_fuzz partial_fuzz partial_part_fuzz snapshot_fuzz mcp_message_fuzz)
ninja -C "$build" -j "$jobs" "${harnesses[@]}" perfgate  # perfgate writes the history and baseline seeds

# ---- seed corpora: build-sanitize/corpus/<harness>/ (what a run finds is added there and kept) ----
corpus="$build/corpus"
mkdir -p "$corpus"/{kineto_fuzz,legacy_fuzz,capture_folder_fuzz,neuron_fuzz,nsys_fuzz,xplane_fuzz,rocprof_fuzz,rules_fuzz,expression_fuzz,history_fuzz,baseline_fuzz,partial_fuzz,partial_part_fuzz,snapshot_fuzz,mcp_message_fuzz}
max_seed=$((2 * 1024 * 1024))
declare -A max_len=([kineto_fuzz]=262144 [legacy_fuzz]=262144 [capture_folder_fuzz]=65536 [neuron_fuzz]=65536 [nsys_fuzz]=$max_seed [xplane_fuzz]=$max_seed [rocprof_fuzz]=262144 [rules_fuzz]=65536 [expression_fuzz]=4096
  [history_fuzz]=131072 [baseline_fuzz]=262144 [partial_fuzz]=262144
  [partial_part_fuzz]=262144 [snapshot_fuzz]=262144 [mcp_message_fuzz]=16384)
# Kineto: the shared traces and the example, decompressed and cut to the harness's max_len (the
# fuzzer would cut them there), plus two hand-written ones.
for f in "$shared"/traces/*.json.gz "$shared"/traces/*/*.json.gz "$root"/examples/*.json.gz; do
  [ -f "$f" ] || continue
  out="$corpus/kineto_fuzz/$(basename "$f" .gz)"
  [ -f "$out" ] || { gzip -dc "$f" 2>/dev/null || true; } | head -c "${max_len[kineto_fuzz]}" >"$out"
done
printf '{"traceEvents":[]}' >"$corpus/kineto_fuzz/empty.json"
# Legacy (torch.autograd.profiler's export_chrome_trace): a hand-written trace with steps, shapes and
# a flow, and one whose first event has its args before its pid and a '}' in its name (issue 55).
legacy_event() {  # NAME TS DUR TID
  printf '{"name": "%s", "ph": "X", "ts": %s, "dur": %s, "tid": %s, "pid": "CPU functions", "args": {}}' "$@"
}
{
  printf '['
  legacy_event aten::zeros 10 5 1; printf ', '
  legacy_event 'ProfilerStep#1' 100 1000 1; printf ', '
  printf '{"name": "aten::addmm", "ph": "X", "ts": 120.5, "dur": 250.25, "tid": 1, "pid": "CPU functions", "args": {"Input Dims": [[16, 32], [32, 64]], "Input type": ["float", "float"]}}, '
  legacy_event AddmmBackward0 450 100 2; printf ', '
  printf '{"name": "aten::relu", "ph": "s", "ts": 1200, "tid": 1, "pid": "CPU functions", "id": 0, "cat": "cpu_to_cuda", "args": {}}]'
} >"$corpus/legacy_fuzz/steps.json"
printf '[{"args": {"note": "}{"}, "name": "aten::x}{", "ph": "X", "ts": 10, "dur": 5, "tid": 1, "pid": "CPU functions"}, {"name": "aten::mm", "ph": "X", "ts": 20, "dur": 1, "tid": 1, "pid": "CPU functions", "args": {}}]' \
  >"$corpus/legacy_fuzz/args-first.json"
# Memory snapshots (issue 60): the shared snapshot, cut to max_len, and a
# small one pickled by Python itself in each protocol (a dict, lists, a tuple, a shared list).
for f in "$shared"/references/memory_snapshots/*.pickle; do
  [ -f "$f" ] || continue
  head -c "${max_len[snapshot_fuzz]}" "$f" >"$corpus/snapshot_fuzz/$(basename "$f")"
done
if command -v python3 >/dev/null; then
  for protocol in 2 3 4 5; do
    python3 -c "import pickle, sys; f = [{'name': 'fwd', 'filename': 'm.py', 'line': 3}]; sys.stdout.buffer.write(pickle.dumps({'segments': [{'device': 0, 'address': 4096, 'total_size': 2097152, 'is_expandable': False, 'blocks': [{'address': 4096, 'size': 512, 'state': 'active_allocated', 'frames': f}, {'address': 4608, 'size': 2096640, 'state': 'inactive', 'frames': []}]}], 'device_traces': [[{'action': 'alloc', 'addr': 4096, 'size': 4, 'time_us': 1, 'frames': f}, {'action': 'oom', 'addr': 0, 'size': 1 << 40, 'device_free': 7, 'time_us': 2, 'frames': (f, f)}]], 'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': 'expandable_segments:True'}}, protocol=$protocol))" \
      >"$corpus/snapshot_fuzz/protocol$protocol.pickle"
  done
  # Memo-shared values (issue 78): each a value held once and placed many times through BINGET,
  # which made gigabytes before it was counted per placement (50 million live blocks, 200 million
  # steps), and a first pass of distinct GET indices.
  python3 "$root/fuzz/snapshot_memo_seed.py" blocks 10000 5000 "$corpus/snapshot_fuzz/memo-blocks.pickle"
  python3 "$root/fuzz/snapshot_memo_seed.py" traces 4000 50000 "$corpus/snapshot_fuzz/memo-traces.pickle"
  python3 "$root/fuzz/snapshot_memo_seed.py" gets 40000 "$corpus/snapshot_fuzz/memo-gets.pickle"
  # Cut short before its first key (issue 78, item 7): refused by the sniff as a truncated pickle.
  head -c 20 "$corpus/snapshot_fuzz/protocol4.pickle" >"$corpus/snapshot_fuzz/cut-before-key.pickle"
fi
# Capture folders: the shared serving references' execution_details.json, and lists naming files
# outside the folder (relative and absolute).
for f in "$shared"/references/serving_graphs/*/capture_traces/execution_details.json; do
  [ -f "$f" ] || continue
  head -c "${max_len[capture_folder_fuzz]}" "$f" >"$corpus/capture_folder_fuzz/$(basename "$(dirname "$(dirname "$f")")").json"
done
printf '[{"file": "a.json", "batch_size": 1, "mode": "FULL"}, {"file": "../outside/x.json"}, {"file": "/etc/passwd"}, {"file": "b.json", "batch_size": 2}]' \
  >"$corpus/capture_folder_fuzz/outside.json"
# Neuron: the hand-built profiles of tests/neuron/neuron_fixture.h, cut out of the header.
sed -n '/return R"json(/,/)json";/p' "$root/tests/neuron/neuron_fixture.h" | awk '/return R"json\(/{n++} {print > ("'"$corpus"'/neuron_fuzz/fixture" n ".json")}'
printf '{"summary":[{"total_time":NaN}],"instruction":[{"timestamp":"1","duration":2,"label":"Tensor"}]}' \
  >"$corpus/neuron_fuzz/tiny.json"
# neuron-profile 2.27's shapes (issue 54): metadata as a list of one object, instruction_usage
# (SBUF/PSUM occupancy) and nc_mem_usage (device memory by use), keys in any order.
printf '{"metadata":[{"ntff_version":5,"pe_clock_freq":1400000000}],"instruction_usage":[{"type":"sb","timestamp":10,"usage_avg":0.5,"partition_0_usage":0.5},{"usage_avg":0,"type":"psum","bank_4_usage":1e400,"timestamp":-1}],"nc_mem_usage":[{"nd":0,"nc":0,"usage_type":"Total","amount_bytes":"25600"}],"summary":[{"total_time":0.001}]}' \
  >"$corpus/neuron_fuzz/metadata-list.json"
printf '{"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"args":{"device":0,"stream":7,"correlation":1}},{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":5}]}' \
  >"$corpus/kineto_fuzz/tiny.json"
# Inputs that found bugs (issue 28), small: a pid of "0e400" (NaN; kineto_fuzz's own find, with
# its trailing bytes), times at and past 2^62 ns (fractional and integer) and past 2^63 ns (CI's find), steps at +-9.2e15 us,
# and a gzip bomb of kernel events (10 MB of JSON in about 10 kB).
kineto_seed() { printf '%s' "$2" >"$corpus/kineto_fuzz/$1"; }
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0e400\xcfe' >"$corpus/kineto_fuzz/pid-nan.json"
kineto_seed ts-fraction.json '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":9223372036854775.807,"dur":1,"args":{"correlation":1}}]}'
kineto_seed ts-integer.json '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":9223372036854775,"dur":1}]}'
kineto_seed ts-overflow.json '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":9223372036854776.5,"dur":1}]}'
kineto_seed ts-2to62.json '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":4611686018427387,"dur":1},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1}]}'
kineto_seed steps-extreme.json '{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":-9200000000000000,"dur":5},{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":9200000000000000,"dur":5}]}'
repeat() { python3 -c 'import sys; sys.stdout.write(sys.argv[1] + sys.argv[2] * int(sys.argv[3]) + sys.argv[4])' "$@"; }
[ -f "$corpus/kineto_fuzz/events-bomb.json.gz" ] ||
  repeat '{"traceEvents":[' '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":1},' 150000 \
    '{"ph":"i"}]}' | gzip -9n >"$corpus/kineto_fuzz/events-bomb.json.gz"
# nsys: the shared exports under 2 MB.
for f in "$shared"/traces/nsys/*.sqlite; do
  if [ -f "$f" ] && [ "$(stat -c %s "$f")" -le "$max_seed" ]; then install -m 0644 "$f" "$corpus/nsys_fuzz/"; fi
done
# XPlane: the shared JAX profile and a hand-built space of one GPU stream with one kernel (a plane
# "/device:GPU:0", a line "Stream #1" at 1000 ns, an event of 2000 ps named by metadata id 1).
for f in "$shared"/references/xplane/*.xplane.pb; do
  if [ -f "$f" ] && [ "$(stat -c %s "$f")" -le "$max_seed" ]; then install -m 0644 "$f" "$corpus/xplane_fuzz/"; fi
done
printf '\x0a\x3a\x12\x0d/device:GPU:0\x1a\x19\x08\x01\x12\x09Stream #1\x18\xe8\x07\x22\x07\x08\x01\x10\x00\x18\xd0\x0f\x22\x0e\x08\x01\x12\x0a\x08\x01\x12\x06kernel' \
  >"$corpus/xplane_fuzz/one-kernel.pb"
# Empty structures (issue 78): 1,000,000 empty lines, events, one event's stats, plane stats (2 MB each), made
# before it was counted (a 60 MB file of empty lines took 2.4 GB at a 64 MiB limit).
for kind in lines events event-stats plane-stats; do
  python3 "$root/fuzz/xplane_empty_seed.py" "$kind" 1000000 "$corpus/xplane_fuzz/empty-$kind.pb"
done
# and a space whose /host:metadata carries an HLO module its kernels name (the XLA ops' cost path).
python3 "$root/fuzz/xplane_hlo_seed.py" "$corpus/xplane_fuzz/hlo-ops.pb"
# and the same with a wide fusion tree (issue 78): 1,000 fusions a level, 3 levels (133 KB), which cost
# N^4 walks before the cost was memoised per computation.
python3 "$root/fuzz/xplane_hlo_seed.py" "$corpus/xplane_fuzz/hlo-wide-fusions.pb" 1000
# and a TPU space whose ops carry XLA's counts and whose program runs launch them, and a TensorFlow
# space whose steps are the devices' "Steps" lines (issue 75: tpu_ops.cpp, steps.cpp).
python3 "$root/fuzz/xplane_tpu_seed.py" tpu "$corpus/xplane_fuzz/tpu-ops.pb"
python3 "$root/fuzz/xplane_tpu_seed.py" steps "$corpus/xplane_fuzz/tf-steps.pb"
python3 "$root/fuzz/xplane_tpu_seed.py" steps-apart "$corpus/xplane_fuzz/tf-steps-apart.pb"
# and a TPU plane of 5,000 one-op "XLA Ops" lines at one instant, which hung the step timeline (issue 92).
python3 "$root/fuzz/xplane_tpu_seed.py" tpu-lines "$corpus/xplane_fuzz/tpu-lines.pb"
python3 "$root/fuzz/xplane_tpu_seed.py" tpu-links "$corpus/xplane_fuzz/tpu-links.pb"
# and a TPU space whose ops take their costs from the HLO module that ran them, and one with SparseCore
# planes (issue 75: tpu_ops.cpp, device_plane.cpp).
python3 "$root/fuzz/xplane_tpu_seed.py" tpu-hlo "$corpus/xplane_fuzz/tpu-hlo-ops.pb"
python3 "$root/fuzz/xplane_tpu_seed.py" sparse-core "$corpus/xplane_fuzz/tpu-sparse-core.pb"
# Our H100 JAX captures, with XLA's command buffers (command_buffers.cpp's path) and without.
for f in "$root"/tests/data/h100_jax_block*.xplane.pb.gz; do
  gzip -dc "$f" >"$corpus/xplane_fuzz/$(basename "$f" .gz)"
done
# rocprofv3: the shared run's JSON cut to 256 KB (the fuzzer would cut it there), and the hand-built
# document of tests/load/rocprof_reader_test.cpp, cut out of it.
for f in "$shared"/references/rocprofv3/*.json.gz; do
  out="$corpus/rocprof_fuzz/$(basename "$f" .gz)"
  if [ -f "$f" ] && [ ! -f "$out" ]; then { gzip -dc "$f" 2>/dev/null || true; } | head -c "${max_len[rocprof_fuzz]}" >"$out"; fi
done
sed -n '/return R"({"rocprofiler-sdk-tool"/,/]}}]})";/p' "$root/tests/load/rocprof_reader_test.cpp" |
  sed -e 's/^  return R"(//' -e 's/)" + dispatches_tail + R"(//' -e 's/)";$//' >"$corpus/rocprof_fuzz/hand-built.json"
# roctx: ranges (marker_api records) named by strings.marker_api, a mark, a record without a message.
cat >"$corpus/rocprof_fuzz/roctx.json" <<'EOF'
{"rocprofiler-sdk-tool":[{"metadata":{"pid":1},"strings":{"buffer_records":[],"marker_api":[{"key":1,"value":"epoch"},{"key":2,"value":"step"}]},"buffer_records":{"marker_api":[{"thread_id":1,"correlation_id":{"internal":1},"start_timestamp":10,"end_timestamp":70},{"thread_id":1,"correlation_id":{"internal":2},"start_timestamp":20,"end_timestamp":30},{"thread_id":2,"correlation_id":{"internal":3},"start_timestamp":40,"end_timestamp":40},{"thread_id":2,"correlation_id":{"internal":4},"start_timestamp":50,"end_timestamp":60}]}}]}
EOF
# Times written negative or not as integers, a 100 KB kernel name kept and a 100 KB command line
# passed over (issue 78, item 7).
long_text="$(head -c 100000 /dev/zero | tr '\0' k)"
printf '%s' '{"rocprofiler-sdk-tool":[{"metadata":{"pid":1,"command":"'"$long_text"'"},"kernel_symbols":[{"kernel_id":1,"kernel_name":"'"$long_text"'"}],"buffer_records":{"kernel_dispatch":[{"start_timestamp":-5,"end_timestamp":-1,"dispatch_info":{"kernel_id":1}},{"start_timestamp":1.5,"end_timestamp":2,"dispatch_info":{"kernel_id":1}},{"start_timestamp":null,"end_timestamp":9},{"start_timestamp":3,"end_timestamp":9,"dispatch_info":{"kernel_id":1}}]}}]}' \
  >"$corpus/rocprof_fuzz/times-and-long-names.json"
# rocprof v1 (issue 75): a results.json as tblextr.py writes it (every value a string, the row's
# columns in args), and a results.db of its HIP, OPS and COPY tables (the nsys harness's fallback).
cat >"$corpus/rocprof_fuzz/v1-results.json" <<'EOF'
{ "traceEvents":[{}
,{"args":{"name":"CPU HIP API"},"ph":"M","pid":2,"name":"process_name","sort_index":0}
,{"ph":"X","Index":"1","name":"hipLaunchKernel","pid":"2","tid":"77","ts":"5000001","dur":"0","args":{"BeginNs":"5000001000","EndNs":"5000001500","pid":"9","tid":"77","Name":"hipLaunchKernel","args":"","Index":"1","Data":"","DurationNs":"500"}}
,{"ph":"X","Index":"1","name":"gemm","pid":"6","tid":"0","ts":"5000001","dur":"1","args":{"BeginNs":"5000001600","EndNs":"5000002600","dev-id":"0","queue-id":"0","Name":"gemm","pid":"9","tid":"0","stream-id":"0","Index":"1","Data":"","DurationNs":"1000"}}
,{"ph":"X","Index":"2","name":"CopyHostToDevice","pid":"1","tid":"0","ts":"5000002","dur":"0","args":{"BeginNs":"5000002100","EndNs":"5000002500","dev-id":"0","queue-id":"0","Name":"CopyHostToDevice","Index":"2"}}
,{"ph":"X","name":"k","pid":6,"tid":1,"ts":12,"dur":3}
],
"otherData": {"ROCm version": "5.7.1"}
}
EOF
if command -v python3 >/dev/null; then
  rm -f "$corpus/nsys_fuzz/v1-results.db"
  python3 "$root/fuzz/rocprof_v1_db_seed.py" "$corpus/nsys_fuzz/v1-results.db"
  # Memory snapshots (issue 75): torch.cuda.memory_snapshot()'s list of segments, and a trace
  # without time_us (PyTorch 2.0, 2.1).
  python3 -c "import pickle, sys; sys.stdout.buffer.write(pickle.dumps([{'device': 0, 'address': 4096, 'total_size': 2097152, 'blocks': [{'address': 4096, 'size': 1024, 'requested_size': 1000, 'state': 'active_allocated', 'frames': []}, {'address': 5120, 'size': 2096128, 'state': 'inactive'}]}]))" \
    >"$corpus/snapshot_fuzz/list-of-segments.pickle"
  python3 -c "import pickle, sys; sys.stdout.buffer.write(pickle.dumps({'segments': [{'device': 0, 'address': 4096, 'total_size': 2097152, 'blocks': [{'address': 4096, 'size': 1024, 'requested_size': 1000, 'state': 'active_allocated'}]}], 'device_traces': [[{'action': 'alloc', 'addr': 8192, 'size': 10}, {'action': 'free_completed', 'addr': 8192, 'size': 10}, {'action': 'alloc', 'addr': 4096, 'size': 1000}]]}))" \
    >"$corpus/snapshot_fuzz/untimed.pickle"
fi
# Rule files: the shipped ones.
install -m 0644 "$root"/rules/*.yaml "$corpus/rules_fuzz/"
# Baseline reports: the JSON reports of the example and of two small shared traces (one gzip), as
# build-sanitize's perfgate writes them, and hand-written ones: the least a report needs, run
# tables with rows before their columns and a key given twice, and gzip bombs of zeros and of keys
# in small form (10 MB of JSON each).
report_seed() {  # NAME TRACE: the report of TRACE (the gate's exit code does not matter)
  local out="$corpus/baseline_fuzz/$1"
  [ -f "$out" ] || [ ! -f "$2" ] || "$build/perfgate" analyze "$2" -q --no-progress --json "$out" || [ -f "$out" ]
}
report_seed example.json "$root/examples/small_training.pt.trace.json.gz"
report_seed alexnet.json "$shared/traces/a100_alexnet.json.gz"
report_seed rocm.json "$shared/traces/mi250_rocm_minitoy.json.gz"
[ ! -f "$corpus/baseline_fuzz/rocm.json" ] || gzip -9nc "$corpus/baseline_fuzz/rocm.json" >"$corpus/baseline_fuzz/rocm.json.gz"
head='{"schema":"perfgate-report/1","tool":{"name":"perfgate","version":"0.1.0"},"inputs":[{"path":"t.json","bytes":10,"format":"kineto-json","worker":"t"}],"gpus":[{"name":"NVIDIA A100-SXM4-40GB"}]'
printf '%s' "$head"',"metrics":{"steps.mean_us":100,"gpu.count":1},"steps":[{"duration_us":100,"in_window":true},{"duration_us":90}],"workers":[{"tables":{"ops":{"columns":[{"name":"name"},{"name":"calls"},{"name":"device_self_us"},{"name":"host_self_us"}],"rows":[["aten::mm",2,10.5,3]]}}}]}' \
  >"$corpus/baseline_fuzz/tiny.json"
printf '%s' "$head"',"metrics":{"a":1,"a":null},"steps":[],"tables":{"run_ops":{"rows":[[1,"x"],["(2 more)"]],"columns":[{"name":"calls"},{"name":"name"}]},"run_regions":{"columns":[],"rows":[]},"run_kernels":{"columns":[{"name":"name"},{"name":"total_us"}],"rows":[["k",1e3]]}}}' \
  >"$corpus/baseline_fuzz/run-tables.json"
[ -f "$corpus/baseline_fuzz/zeros-bomb.json.gz" ] ||
  repeat '{"schema":"perfgate-report/1","x":[' '0,' 5000000 '0]}' | gzip -9n >"$corpus/baseline_fuzz/zeros-bomb.json.gz"
[ -f "$corpus/baseline_fuzz/keys-bomb.json.gz" ] ||
  repeat '{"schema":"perfgate-report/1","metrics":{' '"a":0,' 1700000 '"a":0}}' |
  gzip -9n >"$corpus/baseline_fuzz/keys-bomb.json.gz"
# Partial reports: whole files of the example and of a shared rank (the header fuzzed), and the
# same bodies inflated (partial_fuzz wraps what does not start like a partial report in a valid
# header, so the fuzzer reaches every field's decoder); for partial_part_fuzz, the flag byte 1 (set
# body_bytes), the header line and the inflated body (fuzz/partial_part_fuzz.cpp).
partial_seed() {  # NAME TRACE
  local out="$corpus/partial_fuzz/$1" whole="$corpus/partial_part_fuzz/$1"
  [ -f "$out.pgp" ] || [ ! -f "$2" ] || "$build/perfgate" analyze "$2" -q --no-progress --partial "$out.pgp"
  [ -f "$out.body" ] || [ ! -f "$out.pgp" ] || tail -n +4 "$out.pgp" | gzip -dc >"$out.body"
  [ -f "$whole.part" ] || [ ! -f "$out.body" ] ||
    { printf '\001'; sed -n 2p "$out.pgp"; cat "$out.body"; } >"$whole.part"
}
partial_seed example "$root/examples/small_training.pt.trace.json.gz"
partial_seed rank0 "$shared/traces/distributed_128ranks_sampled/rank-0.json.gz"
# Expressions: every value/condition/applies_if/gain/where of the default rules, one per file.
python3 - "$root/rules/default.yaml" "$corpus/expression_fuzz" <<'PY'
import hashlib, re, sys
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r'\s*(?:value|condition|applies_if|gain|where):\s*(.+?)\s*$', line)
    if not m:
        continue
    text = m.group(1)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    name = hashlib.sha1(text.encode()).hexdigest()
    open(f"{sys.argv[2]}/{name}", "w", encoding="utf-8").write(text)
PY
# MCP sessions (fuzz/mcp_message_fuzz.cpp): the first byte sets the read size, then the lines a client
# writes: a whole session, a batch, and messages that must get each JSON-RPC error.
mcp_seed() {  # NAME LINE...
  local out="$corpus/mcp_message_fuzz/$1"
  shift
  { printf '\007'; printf '%s\n' "$@"; } >"$out"
}
mcp_seed session '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"metrics","arguments":{"prefix":"gpu.","limit":3}}}' \
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"table","arguments":{"report":"r1","limit":5}}}' \
  '{"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}' '{"jsonrpc":"2.0","id":6,"method":"ping"}'
mcp_seed batch '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]'
mcp_seed errors '{"jsonrpc":"2.0","id":1,"method"' '[]' '{"jsonrpc":"2.0","id":[1],"method":"ping"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"analyze","arguments":{"paths":["/etc/passwd"]}}}' \
  '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"perfgate://report/r1/html"}}'
# Histories: real ones, recorded by this build's perfgate from the bundled example (one run; three
# runs of two branches). Other inputs fill an empty history's tables (fuzz/history_fuzz.cpp).
histories="$(mktemp -d)"
for commit in aaaaaaa bbbbbbb ccccccc; do
  branch=main
  [ "$commit" = bbbbbbb ] && branch=dev
  "$build/perfgate" analyze "$root/examples/small_training.pt.trace.json.gz" -q --history "$histories/runs.db" \
    --record --branch "$branch" --commit "$commit" --label "ci=fuzz"
  [ -f "$corpus/history_fuzz/one-run.db" ] || install -m 0644 "$histories/runs.db" "$corpus/history_fuzz/one-run.db"
done
install -m 0644 "$histories/runs.db" "$corpus/history_fuzz/three-runs.db"
rm -rf "$histories"

# ---- runs ----
artifacts="$build/crashes"
mkdir -p "$artifacts"
TMPDIR="$(mktemp -d)"  # the harnesses write each input there (fuzz/fuzz_file.h)
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
# Up to $jobs harnesses at once (each is one process on one core): 5 x 60 s take 3 minutes on 2 cores.
fuzz_one() {
  local h="$1" log="$build/$1.log"
  if "$build/fuzz/$h" "$corpus/$h" -max_total_time="$seconds" -max_len="${max_len[$h]}" -rss_limit_mb=2048 \
    -timeout=25 -print_final_stats=1 -artifact_prefix="$artifacts/$h-" >"$log" 2>&1; then
    grep -E '^stat::number_of_executed_units|^Done' "$log" | tail -2 | sed "s/^/  $h: /" >&2
  else
    echo "ci/fuzz.sh: $h FAILED:" >&2
    grep -E 'ERROR|runtime error|terminate called|Test unit written to' "$log" | head -5 | sed 's/^/  /' >&2
    return 1
  fi
}
failed=()
pids=()
for h in "${harnesses[@]}"; do
  echo "ci/fuzz.sh: $h for ${seconds}s (corpus $(ls "$corpus/$h" | wc -l) files, log $build/$h.log)" >&2
  fuzz_one "$h" &
  pids+=("$!:$h")
  if ((${#pids[@]} >= jobs)); then
    entry="${pids[0]}"
    wait "${entry%%:*}" || failed+=("${entry#*:}")
    pids=("${pids[@]:1}")
  fi
done
for entry in "${pids[@]}"; do wait "${entry%%:*}" || failed+=("${entry#*:}"); done
if ((${#failed[@]})); then
  echo "ci/fuzz.sh: crashes in ${failed[*]} (inputs in $artifacts/, logs in $build/)" >&2
  exit 1
fi
echo "ci/fuzz.sh: no crashes in ${seconds}s per harness" >&2
