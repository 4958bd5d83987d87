#include <gtest/gtest.h>

#include <algorithm>

#include "load/kineto/categories.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

TEST(KinetoReader, CurrentSchemaFillsTheModel) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 85899345920, 108)
      .top_level("distributedInfo", R"({"backend": "nccl", "rank": 3, "world_size": 8})")
      .top_level("baseTimeNanoseconds", "1711964646000000000")
      .step(1, 100, 900)
      .op("aten::mm", 200, 100, 7, 1,
          R"("Input Dims": [[32, 64], [64, 16]], "Input type": ["float", "float"], "Sequence number": 42, "Call stack": "train.py(10): step")")
      .runtime("cudaLaunchKernel", 250.5, 3.25, 55, 7)
      .kernel("ampere_sgemm_128x64_nn", 260.125, 40, 55, 0, 7,
              KernelArgs{.blocks_per_sm = 0.5,
                         .occupancy_pct = 25,
                         .grid = {8, 2, 1},
                         .block = {256, 1, 1},
                         .registers_per_thread = 64,
                         .shared_memory = 1024})
      .memcpy("Memcpy HtoD (Pageable -> Device)", 300, 10, 56, 0, 7, 4096)
      .memset(320, 2, 57)
      .python_function("nn.Module: Linear_0", 150, 400)
      .raw_event(
          R"({"ph": "X", "cat": "gpu_user_annotation", "name": "## forward ##", "pid": 0, "tid": 7, "ts": 260, "dur": 50})")
      .raw_event(
          R"J({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 50, "dur": 2000})J");
  Profile p = load_json(t.json());

  EXPECT_EQ(p.info.format, "kineto-json");
  EXPECT_EQ(p.info.schema_version, "1");
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(p.devices[0].sm_count, 108);
  EXPECT_EQ(p.devices[0].total_memory_bytes, 85899345920u);
  EXPECT_EQ(p.info.rank, 3);
  EXPECT_EQ(p.info.world_size, 8);
  EXPECT_EQ(p.info.distributed_backend, "nccl");
  EXPECT_EQ(p.info.base_time_ns, 1711964646000000000LL);
  EXPECT_EQ(p.info.profiler_start, 50000);
  EXPECT_EQ(p.info.profiler_end, 2050000);

  ASSERT_EQ(p.host_events.size(), 3u);  // step, python function, op
  const HostEvent* mm = nullptr;
  for (const auto& e : p.host_events)
    if (p.str(e.name) == "aten::mm") mm = &e;
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->kind, HostKind::Op);
  EXPECT_EQ(mm->start, 200000);
  EXPECT_EQ(mm->end, 300000);
  EXPECT_EQ(p.details(*mm).external_id, 7);
  EXPECT_EQ(p.details(*mm).sequence_number, 42);
  EXPECT_EQ(p.str(p.details(*mm).input_dims), "[[32,64],[64,16]]");
  EXPECT_EQ(p.str(p.details(*mm).input_types), R"(["float","float"])");
  EXPECT_EQ(p.str(p.details(*mm).call_stack), "train.py(10): step");
  EXPECT_NE(mm->parent, kNone);
  EXPECT_EQ(p.str(p.host_events[mm->parent].name), "nn.Module: Linear_0");

  ASSERT_EQ(p.runtime_calls.size(), 1u);
  EXPECT_EQ(p.runtime_calls[0].start, 250500);
  EXPECT_EQ(p.runtime_calls[0].end, 253750);
  EXPECT_EQ(p.runtime_calls[0].correlation, 55);
  EXPECT_EQ(p.runtime_calls[0].external_id, 7);

  ASSERT_EQ(p.gpu_activities.size(), 3u);
  const GpuActivity& k = p.gpu_activities[0];
  EXPECT_EQ(k.kind, GpuActivityKind::Kernel);
  EXPECT_EQ(k.start, 260125);
  EXPECT_EQ(k.end, 300125);
  EXPECT_EQ(k.stream, 7u);
  const KernelLaunchInfo& info = p.kernel_info[k.kernel_info];
  EXPECT_FLOAT_EQ(info.blocks_per_sm, 0.5f);
  EXPECT_FLOAT_EQ(info.occupancy_pct, 25.0f);
  EXPECT_EQ(info.grid[0], 8);
  EXPECT_EQ(info.block[0], 256);
  EXPECT_EQ(info.registers_per_thread, 64);
  EXPECT_EQ(info.shared_memory, 1024);
  const GpuActivity& copy = p.gpu_activities[1];
  EXPECT_EQ(copy.kind, GpuActivityKind::Memcpy);
  EXPECT_EQ(copy.copy_kind, CopyKind::HostToDevice);
  EXPECT_TRUE(copy.pageable);
  EXPECT_EQ(copy.bytes, 4096u);
  EXPECT_EQ(p.gpu_activities[2].kind, GpuActivityKind::Memset);

  ASSERT_EQ(p.gpu_ranges.size(), 1u);
  EXPECT_EQ(p.str(p.gpu_ranges[0].name), "## forward ##");
}

TEST(KinetoReader, LegacySchemaReadsStreamTidsAndLowercaseExternalId) {
  TraceBuilder t(Schema::Legacy);
  t.step(5, 0, 1000)
      .op("aten::conv2d", 10, 100, 3)
      .launch("volta_scudnn_128x64_relu", 20, 30, 50, 3, 0, 1, 7);
  Profile p = load_json(t.json());
  ASSERT_EQ(p.gpu_activities.size(), 1u);
  EXPECT_EQ(p.gpu_activities[0].stream, 7u);
  EXPECT_EQ(p.gpu_activities[0].device, 0);
  EXPECT_EQ(p.gpu_activities[0].external_id, 3);
  ASSERT_EQ(p.runtime_calls.size(), 1u);
  EXPECT_EQ(p.runtime_calls[0].external_id, 3);
  // The step (category Operator in 1.8) is a host event like the ops.
  EXPECT_EQ(p.host_events.size(), 2u);
  // String tids "1" become numeric thread ids: both ranges share one thread.
  EXPECT_EQ(p.host_events[0].thread, p.host_events[1].thread);
}

TEST(KinetoReader, CategoriesOfBothSchemasAndOtherAccelerators) {
  using kineto::classify_category;
  using kineto::EventClass;
  EXPECT_EQ(classify_category("cpu_op"), EventClass::Op);
  EXPECT_EQ(classify_category("Operator"), EventClass::Op);
  EXPECT_EQ(classify_category("Runtime"), EventClass::Runtime);
  EXPECT_EQ(classify_category("cuda_driver"), EventClass::Runtime);
  EXPECT_EQ(classify_category("mtia_runtime"), EventClass::Runtime);
  EXPECT_EQ(classify_category("Kernel"), EventClass::Kernel);
  EXPECT_EQ(classify_category("Memcpy"), EventClass::Memcpy);
  EXPECT_EQ(classify_category("gpu_memset"), EventClass::Memset);
  EXPECT_EQ(classify_category("python_function"), EventClass::PythonFunction);
  EXPECT_EQ(classify_category("gpu_user_annotation"), EventClass::GpuAnnotation);
  EXPECT_EQ(classify_category("cuda_sync"), EventClass::GpuSync);
  EXPECT_EQ(classify_category("cuda_profiler_range"), EventClass::Ignored);
  // Each spelling the exact-match switch takes, and its neighbours of the same length.
  EXPECT_EQ(classify_category("kernel"), EventClass::Kernel);
  EXPECT_EQ(classify_category("cuda_runtime"), EventClass::Runtime);
  EXPECT_EQ(classify_category("gpu_memcpy"), EventClass::Memcpy);
  EXPECT_EQ(classify_category("user_annotation"), EventClass::Annotation);
  EXPECT_EQ(classify_category("operator"), EventClass::Op);
  EXPECT_EQ(classify_category("runtime"), EventClass::Runtime);
  EXPECT_EQ(classify_category("Memset"), EventClass::Memset);
  EXPECT_EQ(classify_category("python"), EventClass::PythonFunction);
  EXPECT_EQ(classify_category("memset"), EventClass::Memset);
  EXPECT_EQ(classify_category("kernal"), EventClass::Ignored);
  EXPECT_EQ(classify_category("Operatr"), EventClass::Ignored);
  // Any case, the whole name; categories longer than any name still end in _runtime or _driver.
  EXPECT_EQ(classify_category("CPU_OP"), EventClass::Op);
  EXPECT_EQ(classify_category("Trace"), EventClass::ProfilerSpan);
  EXPECT_EQ(classify_category("XPU_Runtime"), EventClass::Runtime);
  EXPECT_EQ(classify_category("kernels"), EventClass::Ignored);
  EXPECT_EQ(classify_category(""), EventClass::Ignored);
  EXPECT_EQ(classify_category("a_very_long_accelerator_vendor_name_Runtime"), EventClass::Runtime);
  EXPECT_EQ(classify_category("a_very_long_accelerator_vendor_name_DRIVER"), EventClass::Runtime);
  EXPECT_EQ(classify_category("a_very_long_accelerator_vendor_name_kernel"), EventClass::Ignored);
  EXPECT_EQ(kineto::parse_memcpy_name("Memcpy DtoH (Device -> Pinned)").kind, CopyKind::DeviceToHost);
  EXPECT_FALSE(kineto::parse_memcpy_name("Memcpy DtoH (Device -> Pinned)").pageable);
}

TEST(KinetoReader, LinksForwardBackwardFlowsAndReadsMemorySamples) {
  TraceBuilder t;
  t.op("aten::mm", 10, 5, 1, 1).op("MmBackward0", 100, 5, 2, 2).flow_forward_backward(9, 10, 1, 100, 2);
  t.memory(20, 1024, 4096, 1, 0).memory(30, -512, 3584, 1, 0).memory(40, 64, 64, 0, -1);
  Profile p = load_json(t.json());
  ASSERT_EQ(p.forward_backward_links.size(), 1u);
  EXPECT_EQ(p.forward_backward_links[0].forward_start, 10000);
  EXPECT_EQ(p.forward_backward_links[0].backward_start, 100000);
  EXPECT_NE(p.forward_backward_links[0].forward_thread, p.forward_backward_links[0].backward_thread);
  ASSERT_EQ(p.memory_samples.size(), 2u);  // the host sample is not kept
  EXPECT_EQ(p.memory_samples[0].device_id, 0);
  EXPECT_EQ(p.memory_samples[1].total_allocated, 3584);
  EXPECT_EQ(p.memory_samples[1].total_reserved, 3584);
  EXPECT_EQ(p.memory_samples[1].bytes, -512);
  ASSERT_LT(p.memory_samples[1].thread, p.threads.size());
  EXPECT_EQ(p.threads[p.memory_samples[1].thread].tid, 1);

  // PyTorch 1.8/1.9 wrote the change alone.
  Profile old = load_json(TraceBuilder().memory_change(5, 2048, 1, 3).json());
  ASSERT_EQ(old.memory_samples.size(), 1u);
  EXPECT_EQ(old.memory_samples[0].bytes, 2048);
  EXPECT_EQ(old.memory_samples[0].device_id, 1);
  EXPECT_EQ(old.memory_samples[0].total_allocated, -1);
  EXPECT_EQ(old.memory_samples[0].total_reserved, -1);
}

TEST(KinetoReader, ReadsTheBareArrayFormatAndGzipAndAByteOrderMark) {
  std::string events =
      R"([{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1.5, "dur": 2}])";
  Profile array = load_json(events);
  ASSERT_EQ(array.host_events.size(), 1u);
  EXPECT_EQ(array.host_events[0].start, 1500);

  Profile gz = load_json(TraceBuilder().op("aten::add", 1, 2).json(), "t.json.gz");
  EXPECT_EQ(gz.host_events.size(), 1u);

  Profile bom = load_json("\xEF\xBB\xBF" + TraceBuilder().op("aten::add", 1, 2).json());
  EXPECT_EQ(bom.host_events.size(), 1u);
}

TEST(KinetoReader, ReadsConcatenatedGzipMembersAsOneStream) {
  std::string json = TraceBuilder().op("aten::add", 1, 2).op("aten::mul", 5, 2).json();
  std::string dir = temp_dir();
  std::string a = write_gzip(dir + "/a.gz", json.substr(0, json.size() / 2));
  std::string b = write_gzip(dir + "/b.gz", json.substr(json.size() / 2));
  std::string joined = read_text(a) + read_text(b);
  std::string path = write_text(dir + "/joined.json.gz", joined);
  LoadedRun run = load_run({path});
  EXPECT_EQ(run.workers[0].host_events.size(), 2u);
}

TEST(KinetoReader, NotesIgnoredCategoriesAndPhases) {
  TraceBuilder t;
  t.op("aten::add", 1, 2)
      .raw_event(
          R"({"ph": "X", "cat": "cuda_profiler_range", "name": "range", "pid": 0, "tid": 7, "ts": 3, "dur": 1})")
      .raw_event(R"({"ph": "B", "cat": "cpu_op", "name": "begin", "pid": 1, "tid": 1, "ts": 3})");
  Profile p = load_json(t.json());
  ASSERT_EQ(p.notes.size(), 2u);
  EXPECT_EQ(p.notes[0].id, NoteId::kineto_category_unused);
  EXPECT_NE(note_text(p.notes[0]).find("'cuda_profiler_range'"), std::string::npos);
  EXPECT_NE(note_text(p.notes[1]).find("phase 'B'"), std::string::npos);
}

// Captured argument text is compact JSON with the same escapes as the trace's: quotes,
// backslashes, tabs, newlines and other control characters inside plain runs of text. Plain ASCII
// texts (copied inline) and texts that need an escape or are not ASCII (the general path) in one
// array; DEL needs no escape in JSON and is kept as it is on both paths; a byte that is not UTF-8
// is replaced by U+FFFD.
TEST(KinetoReader, CapturedArgumentTextKeepsItsEscapes) {
  TraceBuilder t;
  t.op(
      "aten::add", 1, 10, 5, 1,
      R"("Input type": ["float", "plain \"quoted\" text", "back\\slash", "", "tab\there\nline", "bell\u0007", "é", "del\u007f", "bad)"
      "\xff"
      R"(", "Scalar", "worse)"
      "\xfe"
      R"("])");
  Profile p = load_json(t.json());
  EXPECT_EQ(p.str(p.details(0).input_types),
            "[\"float\",\"plain \\\"quoted\\\" "
            "text\",\"back\\\\slash\",\"\",\"tab\\there\\nline\",\"bell\\u0007\",\"é\","
            "\"del\x7f\",\"bad\xEF\xBF\xBD\",\"Scalar\",\"worse\xEF\xBF\xBD\"]");
  // Each text that was not UTF-8 is counted once, as every other string value is.
  std::vector<std::string> notes = note_texts(p.notes);
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "2 strings in the trace were not valid UTF-8: the bad bytes are shown as U+FFFD"),
            notes.end());
}

TEST(KinetoReader, ReadsConvolutionArgumentsFlopsAndCollectives) {
  TraceBuilder t;
  t.op(
      "aten::convolution", 1, 10, 5, 1,
      R"("Input Dims": [[8, 3, 32, 32], [16, 3, 3, 3], []], "Concrete Inputs": ["", "", "", "[2, 2]", "[1, 1]"], "flops": 1234567.0)");
  t.op(
      "record_param_comms", 20, 5, 6, 1,
      R"("Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": 4096, "Out msg nelems": 4096, "Group size": 8)");
  Profile p = load_json(t.json());
  EXPECT_EQ(p.str(p.details(0).concrete_inputs), R"(["","","","[2, 2]","[1, 1]"])");
  EXPECT_FLOAT_EQ(p.details(0).flops, 1234567.0f);
  EXPECT_FLOAT_EQ(p.details(1).flops, -1.0f);
  ASSERT_EQ(p.collectives.size(), 1u);
  EXPECT_EQ(p.collectives[0].external_id, 6);
  EXPECT_EQ(p.collectives[0].in_elements, 4096);
  EXPECT_EQ(p.str(p.collectives[0].dtype), "BFloat16");
  EXPECT_EQ(p.str(p.collectives[0].collective), "allreduce");
  EXPECT_EQ(p.collectives[0].group_size, 8);
}

TEST(KinetoReader, RocmStyleTextArgsAreReadLeniently) {
  TraceBuilder t;
  t.raw_event(
      R"({"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "args": {"External id": 8, "stream": "0x0", "size": "2560", "kind": "1", "correlation": 117}})");
  t.raw_event(
      R"J({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Host -> Device)", "pid": 2, "tid": 0, "ts": 2, "dur": 1, "args": {"device": 2, "stream": 0, "correlation": 117, "kind": "HtoD"}})J");
  Profile p = load_json(t.json());
  ASSERT_EQ(p.gpu_activities.size(), 1u);
  EXPECT_EQ(p.gpu_activities[0].device, 2);
  EXPECT_EQ(p.runtime_calls[0].correlation, 117);
}

}  // namespace
}  // namespace perfgate::testing
