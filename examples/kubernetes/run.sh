#!/usr/bin/env bash
# Runs perfgate on a large run with kubectl: creates the shared volume (perfgate-work-pvc.yaml) and
# the Indexed slices Job (perfgate-slices-job.yaml), waits until every index has completed, then
# creates the merge Job (perfgate-merge-job.yaml), waits for it and prints its log (the terminal
# summary). Kubernetes has no dependency between Jobs: this script is the afterok. When a slice
# fails for good the merge is not created, and the script exits 1.
# Usage: examples/kubernetes/run.sh [-n NAMESPACE] [-t TIMEOUT_SECONDS]
# Exit code: the merge's (0 the gate passed, 1 the gate failed or a step failed).
# A new run needs the previous run's objects gone: kubectl delete -f examples/kubernetes/
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
namespace=()
timeout=3600
while getopts "n:t:h" opt; do
  case $opt in
    n) namespace=(--namespace "$OPTARG") ;;
    t) timeout=$OPTARG ;;
    *)
      echo "usage: $0 [-n NAMESPACE] [-t TIMEOUT_SECONDS]" >&2
      exit 2
      ;;
  esac
done

kube() { kubectl "${namespace[@]}" "$@"; }
finished() {  # JOB: prints Complete or Failed once the Job has ended; fails after the timeout
  local deadline=$((SECONDS + timeout)) conditions
  while [ $SECONDS -lt $deadline ]; do
    conditions=$(kube get job "$1" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}')
    case " $conditions " in
      *" Complete "*) echo Complete; return 0 ;;
      *" Failed "*) echo Failed; return 0 ;;
    esac
    sleep 10
  done
  echo "run.sh: job $1 has not ended after $timeout s" >&2
  return 1
}

# kubectl create, not apply: an existing volume would hold another run's partials.
kube create -f "$here/perfgate-work-pvc.yaml"
kube create -f "$here/perfgate-slices-job.yaml"
if [ "$(finished perfgate-slices)" != Complete ]; then
  echo "run.sh: the slices Job failed; the merge was not started (kubectl logs -l app.kubernetes.io/component=slices)" >&2
  exit 1
fi
kube create -f "$here/perfgate-merge-job.yaml"
state=$(finished perfgate-merge)
kube logs job/perfgate-merge
[ "$state" = Complete ]
