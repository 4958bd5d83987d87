// Issue #44, item 9: values of a Neuron profile that are no value are refused or noted by name,
// never silently 0: a DMA row's transfer_size that is not a byte count (NaN, 1e308, text, a flag,
// 2^64), and a summary share (*_percent) outside 0-100 (-1 would show as -100%, 2^64 as 1.8e21%).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "neuron/neuron_fixture.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

TEST(NeuronValues, ATransferSizeThatIsNoByteCountIsRefusedByName) {
  for (const char* size : {"1e308", "\"abc\"", "true", "18446744073709551616", "\"NaN\""}) {
    std::string path = write_text(
        temp_dir() + "/dma.json",
        fmt::format(R"({{"dma": [{{"timestamp": 1, "duration": 1, "transfer_size": {}}}]}})", size));
    try {
      load_run({path});
      ADD_FAILURE() << "no error for transfer_size " << size;
    } catch (const InputError& e) {
      std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;
      EXPECT_NE(message.find("'transfer_size' is not a number of bytes"), std::string::npos) << message;
    }
  }
  // A bare NaN (not JSON) is read as absent by the reader's filter, which notes how many it read.
  Profile nan = load_json(R"({"dma": [{"timestamp": 1, "duration": 1, "transfer_size": NaN}]})", "nan.json");
  bool noted = false;
  for (const std::string& note : note_texts(nan.notes))
    noted = noted || note.find("NaN or infinite values") != std::string::npos;
  EXPECT_TRUE(noted);
  std::string ok = write_text(temp_dir() + "/dma.json",
                              R"({"dma": [{"timestamp": 1, "duration": 1, "transfer_size": "4096"}]})");
  EXPECT_NO_THROW(load_run({ok}));
}

TEST(NeuronValues, ASummaryShareOutsideZeroToHundredIsNotedAndLeftOut) {
  for (const char* share : {"-1", "18446744073709551616", "101"}) {
    std::string json = neuron_full_json();
    std::string key = "\"dma_active_time_percent\": 0.5";
    json.replace(json.find(key), key.size(), std::string("\"dma_active_time_percent\": ") + share);
    Profile p = load_json(json, "profile_rank_0.json");
    EXPECT_FALSE(p.neuron.summary_value("dma_active_time_percent")) << share;
    bool noted = false;
    for (const std::string& note : note_texts(p.notes))
      noted = noted || note.find("'dma_active_time_percent'") != std::string::npos;
    EXPECT_TRUE(noted) << share;
  }
  Profile fine = load_json(neuron_full_json(), "profile_rank_0.json");
  EXPECT_EQ(fine.neuron.summary_value("dma_active_time_percent"), 0.5);
}

}  // namespace
}  // namespace perfgate::testing
