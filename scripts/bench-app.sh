#!/usr/bin/env bash
# The whole app against its floor (issue 16, BENCHMARKS.md): Colmena and an
# empty Tauri 2 app on the same Tauri (bench/empty-shell: one window, a
# static page), started alternately under Xvfb, side by side:
#   - start: from the launch to the first painted frame of real content (the
#     page reports it; the app writes the time to COLMENA_FIRST_PAINT_FILE),
#   - idle PSS of the whole process tree (the app and its WebKit processes,
#     /proc/*/smaps_rollup) 10 s after that frame,
#   - the size of the .deb,
# with the ratios Colmena / empty shell.
#
# Usage:
#   scripts/bench-app.sh                  release builds, 5 rounds
#   scripts/bench-app.sh --rounds N
#   scripts/bench-app.sh --large          also a large workspace (1,000
#                                         canvases, 100,000 memories,
#                                         1,000,000 messages, 10,000 runs):
#                                         start, and the first paint of each
#                                         view opened by a colmena:// link,
#                                         next to a new workspace's
#   scripts/bench-app.sh --before BIN     also an earlier build of the app
#                                         (its colmena-desktop, kept aside),
#                                         in the same rounds: the before/after
#   scripts/bench-app.sh --no-build       the release builds already there
#   scripts/bench-app.sh --quick          one round on the debug builds the
#                                         test command made (CI: checks that it
#                                         runs and prints every figure; debug
#                                         figures are not the release ones)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rounds=5 profile=release settle=10 large=0 before= build=1
given=("$@")
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --large) large=1 ;;
    --no-build) build=0 ;;
    --before) before=$(realpath "$2"); shift ;;
    --quick) rounds=1 profile=debug settle=${BENCH_SETTLE:-3} ;;
    *) echo "unknown option $1 (see the header of $0)" >&2; exit 2 ;;
  esac
  shift
done

# Under Xvfb when there is no display.
if [[ -z ${DISPLAY:-} ]]; then
  exec xvfb-run -a -s "-screen 0 1280x800x24" "$0" "${given[@]}"
fi

bin=$CARGO_TARGET_DIR/$profile
if [[ $build == 0 ]]; then
  step "Using the $profile builds already in $bin"
elif [[ $profile == release ]]; then
  step "Release builds: Colmena (.deb) and the empty shell"
  tauri_cli build --bundles deb
  "$REPO/scripts/repack-deb.sh" "$(ls -t "$bin"/bundle/deb/*.deb | head -1)"
  (cd "$REPO" && cargo build --release --locked -p colmena-empty-shell)
else
  # Debug: the workspace's programs, as the test command builds them (cargo
  # picks a dependency's features from the packages selected; the shell
  # alone would build Tauri's tree again with other features).
  (cd "$REPO" && cargo build --locked --workspace --bins)
fi
app=$bin/colmena-desktop shell=$bin/colmena-empty-shell
for program in "$app" "$shell" ${before:+"$before"}; do
  [[ -x $program ]] || { echo "not built: $program" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export WEBKIT_DISABLE_DMABUF_RENDERER=1 NO_AT_BRIDGE=1 COLMENA_SECRET_BACKEND=file

# A workspace past its first run, so Colmena paints its real shell.
workspace() {
  local dir=$1
  # The app's binary is the CLI too (as /usr/bin/colmena runs it).
  "$app" --colmena-cli --data-dir "$dir" setup apply >/dev/null
}

now_ms() { date +%s%3N; }

# Every process under $1, itself included.
tree() {
  local pids=("$1") i=0
  while [[ $i -lt ${#pids[@]} ]]; do
    for stat in /proc/[0-9]*/stat; do
      local fields
      read -r -a fields <"$stat" 2>/dev/null || continue
      # Field 4 is the parent; the name (field 2) has no spaces here.
      [[ ${fields[3]:-} == "${pids[$i]}" ]] && pids+=("${fields[0]}")
    done
    i=$((i + 1))
  done
  echo "${pids[@]}"
}

pss_kb() {
  local total=0 pid kb
  for pid in $(tree "$1"); do
    kb=$(awk '/^Pss:/ {print $2}' "/proc/$pid/smaps_rollup" 2>/dev/null || echo 0)
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}

# One start: prints "<ms to first paint> <PSS kB after settling>".
measure() {
  local program=$1 data=$2 paint=$work/paint-$RANDOM
  local home=$work/home-$RANDOM
  mkdir -p "$home"
  local started
  started=$(now_ms)
  XDG_DATA_HOME=$home XDG_CONFIG_HOME=$home XDG_CACHE_HOME=$home COLMENA_DATA_DIR=$data \
    COLMENA_FIRST_PAINT_FILE=$paint "$program" >"$work/log" 2>&1 &
  local pid=$!
  local deadline=$((SECONDS + 60))
  until [[ -s $paint ]]; do
    if [[ $SECONDS -gt $deadline ]] || ! kill -0 "$pid" 2>/dev/null; then
      echo "$(basename "$program") painted nothing; its log:" >&2
      cat "$work/log" >&2
      kill "$pid" 2>/dev/null || true
      exit 1
    fi
    sleep 0.01
  done
  local start=$(($(head -1 "$paint" | awk '{print $2}') - started))
  # Colmena must paint its shell, not the first-run screen.
  if [[ $(head -1 "$paint" | awk '{print $1}') == firstrun ]]; then
    echo "$(basename "$program") showed its first-run screen on $data: the figures would not be the shell's" >&2
    exit 1
  fi
  sleep "$settle"
  local pss
  pss=$(pss_kb "$pid")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "$start $pss"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", (b > 0) ? a / b : 0}'; }

run_rounds() {
  local label=$1 data=$2
  local app_start=() app_pss=() shell_start=() shell_pss=() old_start=() old_pss=()
  for ((round = 1; round <= rounds; round++)); do
    read -r s p < <(measure "$shell" "$work/shell-data")
    shell_start+=("$s") shell_pss+=("$p")
    read -r s p < <(measure "$app" "$data")
    app_start+=("$s") app_pss+=("$p")
    local also=""
    if [[ -n $before ]]; then
      read -r s p < <(measure "$before" "$data")
      old_start+=("$s") old_pss+=("$p")
      also=" · before ${old_start[-1]} ms ${old_pss[-1]} kB"
    fi
    echo "round $round/$rounds ($label): empty shell ${shell_start[-1]} ms ${shell_pss[-1]} kB · Colmena ${app_start[-1]} ms ${app_pss[-1]} kB$also"
  done
  local as ap ss sp
  as=$(printf '%s\n' "${app_start[@]}" | median) ap=$(printf '%s\n' "${app_pss[@]}" | median)
  ss=$(printf '%s\n' "${shell_start[@]}" | median) sp=$(printf '%s\n' "${shell_pss[@]}" | median)
  printf '%-34s %12s %12s %8s\n' "$label (median of $rounds)" "Colmena" "empty shell" "ratio"
  printf '%-34s %9s ms %9s ms %8s\n' "start to first paint" "$as" "$ss" "$(ratio "$as" "$ss")"
  printf '%-34s %9s MB %9s MB %8s\n' "idle PSS after ${settle} s" "$((ap / 1024))" "$((sp / 1024))" "$(ratio "$ap" "$sp")"
  if [[ -n $before ]]; then
    local bs bp
    bs=$(printf '%s\n' "${old_start[@]}" | median) bp=$(printf '%s\n' "${old_pss[@]}" | median)
    printf '%-34s %9s ms %9s MB %8s / %s\n' "before ($(basename "$before")): start, PSS" "$bs" "$((bp / 1024))" \
      "$(ratio "$bs" "$ss")" "$(ratio "$bp" "$sp")"
  fi
}

step "Start and memory ($profile, $rounds round(s), alternating)"
workspace "$work/data"
run_rounds "a new workspace" "$work/data"

# Colmena on workspace $1: each view opened in turn by a colmena:// link
# (a second launch hands it over); prints "<view> <ms from the link to the
# view's first paint>" per view.
view_paints() {
  local data=$1 paint=$work/views-$RANDOM home=$work/home-$RANDOM
  mkdir -p "$home"
  local env=(XDG_DATA_HOME=$home XDG_CONFIG_HOME=$home XDG_CACHE_HOME=$home COLMENA_DATA_DIR=$data COLMENA_FIRST_PAINT_FILE=$paint)
  # Opened on the canvas, which then comes last: every link changes view.
  env "${env[@]}" "$app" colmena://canvas >"$work/log" 2>&1 &
  local pid=$!
  until [[ -s $paint ]]; do sleep 0.05; kill -0 "$pid" 2>/dev/null || { cat "$work/log" >&2; exit 1; }; done
  sleep 2
  local view
  for view in catalog swarms chat inbox cron memory activity settings canvas; do
    local before sent
    before=$(grep -c "^$view " "$paint" || true)
    sent=$(now_ms)
    env "${env[@]}" "$app" "colmena://$view" >/dev/null 2>&1
    local deadline=$((SECONDS + 30))
    until [[ $(grep -c "^$view " "$paint" || true) -gt $before ]]; do
      [[ $SECONDS -lt $deadline ]] || {
        echo "the $view view never painted; the paints so far and the app's log:" >&2
        cat "$paint" "$work/log" >&2
        exit 1
      }
      sleep 0.01
    done
    echo "$view $(($(grep "^$view " "$paint" | tail -1 | awk '{print $2}') - sent))"
    sleep 0.5
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

if [[ $large == 1 ]]; then
  step "A large workspace: 1,000 canvases, 100,000 memories, 1,000,000 messages, 10,000 runs"
  (cd "$REPO" && cargo run --release --locked -q -p colmena-core --example seed_workspace -- "$work/large")
  # Past its first run too: the shell is what is measured.
  workspace "$work/large"
  run_rounds "the large workspace" "$work/large"
  step "Each view's first paint after its colmena:// link (ms): new workspace vs large"
  # One after the other: two apps at once would share the two cores.
  view_paints "$work/data" >"$work/views-new"
  view_paints "$work/large" >"$work/views-large"
  paste "$work/views-new" "$work/views-large" |
    awk 'BEGIN {printf "%-10s %14s %10s\n", "view", "new workspace", "large"} {printf "%-10s %11s ms %7s ms\n", $1, $2, $4}'
fi

step ".deb size"
deb=$(ls -t "$bin"/bundle/deb/*.deb 2>/dev/null | head -1 || true)
if [[ -z $deb ]]; then
  echo "no .deb under $bin/bundle/deb: build it with scripts/package.sh (release) or the test command (debug)" >&2
  exit 1
fi
bytes=$(stat -c %s "$deb")
awk -v b="$bytes" -v n="$(basename "$deb")" 'BEGIN {printf "%s: %.1f MB (goal <= 15 MB)\n", n, b / 1048576}'
