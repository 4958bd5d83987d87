// Issue 91, item 7: a folder of Neuron profiles of different NEFFs (different compiled programs:
// different matmul shapes) is not one run's ranks. Before: 117 unrelated profiles were one run of
// 117 ranks with a "slowest" column. Now refused as unrelated Kineto captures are (exit 4, naming
// the files), unless --one-run says they are one run.
#include <gtest/gtest.h>

#include <string>

#include "neuron/real_structure.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// real_structure_json() is a 256 x 256 x 256 matmul's profile: model_flops 33,554,432
// (2 x 256^3), tensor 1, vector 2 and sync 1 instructions. The same profile of a 512 x 256 x 256
// matmul: model_flops 2 x 512 x 256 x 256 = 67,108,864 and twice the tensor instructions.
std::string other_neff() {
  std::string json = real_structure_json();
  auto swap = [&json](const std::string& from, const std::string& to) {
    std::size_t at = json.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) json.replace(at, from.size(), to);
  };
  swap("\"model_flops\": 33554432", "\"model_flops\": 67108864");
  swap("\"tensor_engine_instruction_count\": 1,", "\"tensor_engine_instruction_count\": 2,");
  return json;
}

TEST(NeuronPrograms, ProfilesOfDifferentNeffsAreRefusedUnlessOneRun) {
  std::string dir = temp_dir();
  std::string first = write_text(dir + "/matmul_256.json", real_structure_json());
  std::string second = write_text(dir + "/matmul_512.json", other_neff());
  std::string json = dir + "/../report-91-neff.json";
  CommandResult refused = run_perfgate("analyze -q '" + dir + "' --json '" + json + "'");
  EXPECT_EQ(refused.exit_code, 4) << refused.out;
  EXPECT_TRUE(contains(refused.out, first + ", " + second +
                                        ": not one capture, so not one run: The Neuron "
                                        "profiles ran 2 different compiled programs (NEFFs)"))
      << refused.out;
  EXPECT_TRUE(
      contains(refused.out, "model_flops 33554432, tensor 1, vector 2, sync 1 instructions (matmul_256)"))
      << refused.out;
  EXPECT_TRUE(
      contains(refused.out, "model_flops 67108864, tensor 2, vector 2, sync 1 instructions (matmul_512)"))
      << refused.out;
  EXPECT_TRUE(contains(refused.out, "give --one-run if they are one run")) << refused.out;

  CommandResult together = run_perfgate("analyze -q '" + dir + "' --one-run --json '" + json + "'");
  EXPECT_EQ(together.exit_code, 0) << together.out;
  EXPECT_TRUE(contains(read_text(json), "2 different compiled programs")) << "the note stays in the report";
}

// Ranks of one NEFF (one run's profile_rank_<i>) are one run, as before.
TEST(NeuronPrograms, RanksOfOneNeffAreOneRun) {
  std::string dir = temp_dir();
  write_text(dir + "/profile_rank_0.json", real_structure_json());
  write_text(dir + "/profile_rank_1.json", real_structure_json(3));  // its sections in another order
  CommandResult run = run_perfgate("analyze -q '" + dir + "'");
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_FALSE(contains(run.out, "compiled programs")) << run.out;
}

}  // namespace
}  // namespace perfgate::testing
