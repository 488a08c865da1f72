# shellcheck shell=bash
# CPU-bound neighbours (`yes >/dev/null`) for the measuring scripts that
# stand for a noisy host (ab_targets.sh, record_targets.sh); sourced. The
# EXIT trap stops any still running when the script ends.
neighbours=()

# Starts N more neighbours.
start_neighbours() {
  local i
  for ((i = 0; i < $1; ++i)); do
    yes >/dev/null &
    neighbours+=($!)
  done
}

stop_neighbours() {
  if ((${#neighbours[@]})); then kill "${neighbours[@]}" 2>/dev/null || true; fi
  neighbours=()
}
trap stop_neighbours EXIT
