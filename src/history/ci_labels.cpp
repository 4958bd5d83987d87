// The labels of a run from the CI system it ran in, and from the command line. Each CI system's
// variables are documented by it: GitHub Actions ("Variables reference"), GitLab CI ("Predefined
// CI/CD variables"), Jenkins ("Pipeline: global variables"; BRANCH_NAME in multibranch jobs,
// GIT_BRANCH and GIT_COMMIT from the Git plugin).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/errors.h"
#include "history/history.h"

namespace perfgate {
namespace {

// A CI variable copied into a label when set and not empty.
struct LabelVariable {
  const char* label;
  const char* variable;
};

std::string read(const EnvironmentReader& getenv, const char* name) {
  const char* value = getenv(name);
  return value ? value : "";
}

// The first of the variables that is set and not empty.
std::string first_set(const EnvironmentReader& getenv, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (std::string value = read(getenv, name); !value.empty()) return value;
  return "";
}

void add_labels(RunLabels& labels, const EnvironmentReader& getenv,
                std::initializer_list<LabelVariable> list) {
  for (const LabelVariable& l : list)
    if (std::string value = read(getenv, l.variable); !value.empty())
      labels.labels.emplace_back(l.label, value);
}

// Jenkins' Git plugin names the remote branch ("origin/main"); the branch is what follows.
std::string without_remote(std::string branch) {
  for (std::string_view remote : {"origin/", "refs/heads/"})
    if (branch.starts_with(remote)) return branch.substr(remote.size());
  return branch;
}

void sort_labels(RunLabels& labels) {
  std::stable_sort(labels.labels.begin(), labels.labels.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

}  // namespace

RunLabels ci_labels(const EnvironmentReader& getenv) {
  RunLabels labels;
  if (read(getenv, "GITHUB_ACTIONS") == "true") {
    // A pull request's GITHUB_REF_NAME is "123/merge"; its source branch is GITHUB_HEAD_REF.
    labels.branch = first_set(getenv, {"GITHUB_HEAD_REF", "GITHUB_REF_NAME"});
    labels.commit = read(getenv, "GITHUB_SHA");
    labels.labels.emplace_back("ci", "github-actions");
    add_labels(labels, getenv,
               {{"github.run_id", "GITHUB_RUN_ID"},
                {"github.workflow", "GITHUB_WORKFLOW"},
                {"github.repository", "GITHUB_REPOSITORY"}});
  } else if (read(getenv, "GITLAB_CI") == "true") {
    labels.branch = read(getenv, "CI_COMMIT_REF_NAME");
    labels.commit = read(getenv, "CI_COMMIT_SHA");
    labels.labels.emplace_back("ci", "gitlab-ci");
    add_labels(labels, getenv,
               {{"gitlab.pipeline_id", "CI_PIPELINE_ID"},
                {"gitlab.job_id", "CI_JOB_ID"},
                {"gitlab.project", "CI_PROJECT_PATH"}});
  } else if (!read(getenv, "JENKINS_URL").empty()) {
    labels.branch = without_remote(first_set(getenv, {"BRANCH_NAME", "GIT_BRANCH"}));
    labels.commit = read(getenv, "GIT_COMMIT");
    labels.labels.emplace_back("ci", "jenkins");
    add_labels(labels, getenv, {{"jenkins.build_number", "BUILD_NUMBER"}, {"jenkins.job", "JOB_NAME"}});
  }
  sort_labels(labels);
  return labels;
}

std::pair<std::string, std::string> parse_label(const std::string& text) {
  std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw RequestError("label", [text, eq](const RequestError::FieldNames& name) {
      return fmt::format("{} '{}': {}", name("label"), text,
                         eq == 0 ? "the key is empty" : "write it as KEY=VALUE");
    });
  return {text.substr(0, eq), text.substr(eq + 1)};
}

RunLabels merge_labels(RunLabels from_ci, const RunLabels& explicit_labels) {
  if (!explicit_labels.branch.empty()) from_ci.branch = explicit_labels.branch;
  if (!explicit_labels.commit.empty()) from_ci.commit = explicit_labels.commit;
  std::map<std::string, std::string> merged(from_ci.labels.begin(), from_ci.labels.end());
  for (const auto& [key, value] : explicit_labels.labels) merged[key] = value;
  from_ci.labels.assign(merged.begin(), merged.end());
  return from_ci;
}

}  // namespace perfgate
