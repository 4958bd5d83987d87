// The Neuron reader on hand-built files (neuron_fixture.h): what it keeps, the pitfalls of real
// files, and the one-line errors of bad input.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "load/neuron/text_filter.h"
#include "neuron/neuron_fixture.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

TEST(NeuronReader, DetectsBothFormatsByContentAndLeavesKinetoAlone) {
  std::string dir = temp_dir();
  EXPECT_EQ(detect_format(write_text(dir + "/p.json", neuron_full_json())), "neuron-json");
  EXPECT_EQ(detect_format(write_text(dir + "/s.json", neuron_summary_json())), "neuron-summary-json");
  EXPECT_EQ(detect_format(write_text(dir + "/k.json", R"({"schemaVersion": 1, "traceEvents": []})")),
            "kineto-json");
  EXPECT_EQ(detect_format(write_text(dir + "/d.json", R"({"distributedInfo": {"backend": "nccl"}})")),
            "kineto-json");
}

TEST(NeuronReader, ReadsInstructionsAsLanesOfTheirEngineNamedByHloOp) {
  Profile p = load_json(neuron_full_json(), "profile_rank_3.json");
  ASSERT_TRUE(p.neuron.present);
  EXPECT_TRUE(p.neuron.full_profile);
  EXPECT_EQ(p.info.format, "neuron-json");
  EXPECT_EQ(p.info.rank, 3);  // profile_rank_<i>
  // Lanes in first-seen order: Tensor, TensorMatrix (both the Tensor engine), Vector, CC-core 0.
  ASSERT_EQ(p.neuron.lanes.size(), 4u);
  EXPECT_EQ(p.str(p.neuron.lanes[1].name), "TensorMatrix");
  EXPECT_EQ(p.neuron.lanes[1].engine, NeuronEngine::Tensor);
  EXPECT_EQ(p.neuron.lanes[3].engine, NeuronEngine::Other);  // CC-core 0, from `subgroup`
  ASSERT_EQ(p.neuron.instructions.size(), 5u);
  const NeuronInstruction& last = p.neuron.instructions[4];
  EXPECT_EQ(last.start, 4000);  // "4000" and "20": numbers written as strings
  EXPECT_EQ(last.end, 4020);
  EXPECT_EQ(p.str(last.hlo_op), "NaN <script>");  // NaN inside a string is text, not a number
  EXPECT_EQ(p.str(p.neuron.instructions[0].hlo_op), "%dot.1 = dot(%p0, %p1)");
}

TEST(NeuronReader, ReadsDmaRowsSummaryLayersAndWarnings) {
  Profile p = load_json(neuron_full_json());
  ASSERT_EQ(p.neuron.dmas.size(), 3u);
  EXPECT_EQ(p.neuron.dmas[1].bytes, 1096u);   // "1096"
  EXPECT_FALSE(p.neuron.dmas[0].collective);  // "false"
  EXPECT_TRUE(p.neuron.dmas[2].collective);
  ASSERT_EQ(p.neuron.dma_queues.size(), 2u);
  EXPECT_EQ(p.str(p.neuron.dma_queues[0]), "qSyncIO");
  // Summary numbers as written (fractions), a numeric string read as a number, NaN as absent.
  EXPECT_EQ(p.neuron.summary_value("tensor_engine_active_time_percent"), 0.25);
  EXPECT_EQ(p.neuron.summary_value("vector_engine_active_time_percent"), 0.1);
  EXPECT_FALSE(p.neuron.summary_value("gpsimd_engine_active_time_percent"));
  ASSERT_EQ(p.neuron.layers.size(), 1u);
  EXPECT_EQ(p.neuron.layers[0].name, "encoder/0");
  EXPECT_EQ(p.neuron.layers[0].mfu, 0.2);
  ASSERT_EQ(p.neuron.warnings.size(), 3u);
  EXPECT_EQ(p.neuron.warnings[0].category, "Missing Data");
  bool instance = false, ntff = false;
  for (const auto& [key, value] : p.info.attributes) {
    instance = instance || (key == "instance_type" && value == "trn1.32xlarge");
    ntff = ntff || (key == "ntff_version" && value == "2");
  }
  EXPECT_TRUE(instance);
  EXPECT_TRUE(ntff);
  bool nan_note = false;
  for (const std::string& n : note_texts(p.notes))
    nan_note = nan_note || n.find("1 NaN or infinite") != std::string::npos;
  EXPECT_TRUE(nan_note);
}

TEST(NeuronReader, SummaryJsonGivesOneWorkerPerNodeAndSaysWhatItLacks) {
  std::string path = write_text(temp_dir() + "/summary.json", neuron_summary_json());
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 2u);
  EXPECT_EQ(run.workers[0].worker, "summary/n_fdc71a0b");
  EXPECT_EQ(run.workers[1].worker, "summary/n_47cf9972");
  const Profile& p = run.workers[0];
  EXPECT_FALSE(p.neuron.full_profile);
  EXPECT_TRUE(p.neuron.instructions.empty());
  EXPECT_EQ(p.neuron.summary_value("total_time"), 0.002);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_EQ(p.notes.back().id, NoteId::neuron_summary_only);
  EXPECT_NE(note_text(p.notes.back()).find("need the full JSON"), std::string::npos);
}

// Each bad input: exit-code-3 error (InputError) naming the file and the problem.
void expect_error(const std::string& json, const std::string& what) {
  std::string path = write_text(temp_dir() + "/bad.json", json);
  try {
    load_run({path});
    ADD_FAILURE() << "no error for: " << json;
  } catch (const InputError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(NeuronReader, BadInputIsAOneLineErrorNamingTheFileAndTheProblem) {
  expect_error(R"({"instruction": [{"duration": 5, "label": "Tensor"}]})",
               "instruction row 1 has no timestamp");
  expect_error(R"({"instruction": [{"timestamp": 1, "label": "Tensor"}]})",
               "instruction row 1 has no duration");
  expect_error(R"({"instruction": [{"timestamp": 1, "duration": -4}]})", "duration -4 ns is out of range");
  expect_error(R"({"dma": [{"timestamp": "soon", "duration": 1}]})", "'timestamp' is not a number");
  expect_error(R"({"dma": [{"timestamp": 1, "duration": 1, "transfer_size": -5}]})",
               "'transfer_size' is negative");
  expect_error(R"({"instruction": [5]})", "where a row (an object) was expected");
  expect_error(R"({"summary": [{"total_time": 0.1}], "instruction": [{"timestamp": 1,)", "ends early");
  expect_error(R"({"summary": [{"total_time": 0.1}]} x)", "extra data");
  expect_error(R"({"summary": [], "metadata": {"ntff_version": 2}})", "without a Neuron profile's summary");
  expect_error(R"({"instruction": [{"timestamp": 9223372036854775807, "duration": 1}]})", "out of range");
}

// The text as the reader hands it to the filter: cut after each of `cuts` bytes, the bytes a
// call leaves unused carried into the next.
std::string filtered_in_pieces(std::string_view text, std::size_t cut) {
  neuron::NonFiniteFilter filter;
  std::string out, pending;
  for (std::size_t at = 0; at < text.size() || !pending.empty();) {
    std::size_t take = std::min(cut, text.size() - at);
    pending.append(text.substr(at, take));
    at += take;
    bool last = at == text.size();
    std::size_t used = 0;
    out.append(filter.filter(pending, last, used));
    pending.erase(0, used);
    if (last && !pending.empty()) ADD_FAILURE() << "left unused at the end: " << pending;
    if (last) break;
  }
  return out;
}

TEST(NeuronReader, NonFiniteWordsBecomeNullWhereverTheChunksAreCut) {
  const std::string text =
      R"({"a": -NaN, "b": "NaN", "c": -5, "d": Infinity, "e": [NaN, -Infinity], "f": "\"NaN\\", "g": NaN})";
  const std::string want =
      R"({"a": null, "b": "NaN", "c": -5, "d": null, "e": [null, null], "f": "\"NaN\\", "g": null})";
  // Every chunk size, so that each word is cut at each of its bytes (a '-' last in a chunk too).
  for (std::size_t cut = 1; cut <= text.size(); ++cut) EXPECT_EQ(filtered_in_pieces(text, cut), want) << cut;
}

TEST(NeuronReader, ANonProfileJsonInARunFolderIsSkippedWithAWarning) {
  std::string dir = temp_dir();
  write_text(dir + "/profile_rank_0.json", neuron_full_json());
  write_text(dir + "/notes.json", R"({"metadata": {"owner": "me"}})");
  LoadedRun run = load_run({dir});
  ASSERT_EQ(run.workers.size(), 1u);
  ASSERT_EQ(run.skipped.size(), 1u);
  EXPECT_NE(note_text(run.skipped[0]).find("notes.json"), std::string::npos);
}

}  // namespace
}  // namespace perfgate::testing
