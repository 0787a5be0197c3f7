#!/usr/bin/env bash
# Instructions and mispredicted branches per action of each game's native random
# playouts (rust/examples/playouts.rs), counted by cachegrind. Unlike a time,
# the count does not depend on the machine's load, so two builds compare
# exactly. Each game is run twice (SMALL and LARGE games) and the difference is
# divided by the difference in actions, so start-up cancels out.
#
#   scripts/instructions.sh                 every game, 4 players
#   scripts/instructions.sh take5 hundred   some games
#   PLAYERS=5 scripts/instructions.sh hundred
#   MODE=points scripts/instructions.sh     the loop of cardref analyze, rule points
#                                           counted (MODE=analysis: not counted)
set -euo pipefail
cd "$(dirname "$0")/.."
PLAYERS="${PLAYERS:-4}"
MODE="${MODE:-plain}"
SMALL="${SMALL:-500}"
LARGE="${LARGE:-2500}"
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
games=("$@")
[ ${#games[@]} -gt 0 ] || games=(back_alley five_alive hundred take5 twenty_two)
cargo build --release --example playouts -q
bin=target/release/examples/playouts

# Prints "instructions mispredicts actions" for one run.
count() {
  valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes \
    --cachegrind-out-file=/dev/null "$bin" "$1" "$PLAYERS" "$2" "$MODE" 2>&1 |
    awk '/ games, .* actions,/ { for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^actions/) a = $i }
         /I *refs:/ { gsub(",", "", $NF); ir = $NF }
         /Mispredicts:/ { gsub(",", "", $3); mp = $3 }
         END { print ir, mp, a }'
}

printf "%-12s %8s %9s %14s %12s\n" game players mode "instr/action" "mispredicts"
for game in "${games[@]}"; do
  read -r ir1 mp1 a1 < <(count "$game" "$SMALL")
  read -r ir2 mp2 a2 < <(count "$game" "$LARGE")
  awk -v g="$game" -v p="$PLAYERS" -v mode="$MODE" -v i1="$ir1" -v i2="$ir2" -v m1="$mp1" \
      -v m2="$mp2" -v a1="$a1" -v a2="$a2" \
      'BEGIN { printf "%-12s %8d %9s %14.1f %12.3f\n", g, p, mode, (i2 - i1) / (a2 - a1), (m2 - m1) / (a2 - a1) }'
done
