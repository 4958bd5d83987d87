// The AWS Neuron profile, full JSON and summary-json, as formats of the registry (load/reader.h).
#include "load/neuron/neuron_reader.h"
#include "load/reader.h"

namespace perfgate {
namespace {

// A JSON object whose first key tells (neuron_reader.h).
Sniffed sniff(const FileHead& head, neuron::ProfileJson kind) {
  return head.json().starts_with('{') && neuron::detect_json(head.json()) == kind ? Sniffed::Yes
                                                                                  : Sniffed::No;
}

// Each node of a summary-json is a worker of its own, named after the file's.
void read(const ReaderInput& in, bool summary_json, const ProfileSink& emit) {
  neuron::read_profile(in.bytes.open(), in.name(), in.progress,
                       {.summary_json = summary_json, .max_memory = in.options.max_input_memory},
                       [&](Profile&& p) {
                         p.worker = p.worker.empty() ? in.worker : in.worker + "/" + p.worker;
                         emit(std::move(p));
                       });
}

}  // namespace

extern const Reader kNeuronJsonReader{
    "neuron-json", "a Neuron profile",
    [](const FileHead& head) { return sniff(head, neuron::ProfileJson::Full); },
    [](const ReaderInput& in, const ProfileSink& emit) { read(in, false, emit); }};
extern const Reader kNeuronSummaryJsonReader{
    "neuron-summary-json", nullptr,
    [](const FileHead& head) { return sniff(head, neuron::ProfileJson::Summary); },
    [](const ReaderInput& in, const ProfileSink& emit) { read(in, true, emit); }};

}  // namespace perfgate
