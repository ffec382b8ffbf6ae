#!/usr/bin/env bash
# Prints the multigrid quality table: CG iterations to ||b - A x|| / ||b|| <= 1e-12 and the time
# per iteration for amg and pmg at P1-P3 on Gmsh's unstructured unit square (triangles) and unit
# cube (tetrahedra), -lap u = 1 with u = 0 on the boundary, on the CPU backend, meshed on one
# Gmsh thread so that every run sees the same meshes.
#   scripts/amg_quality.sh [--set key=value ...]     (extra overrides go to every run)
# Environment: GPUFEM (default build/gpufem), SQUARE_SIZE (0.01), CUBE_SIZE (0.05),
# BACKEND (cpu), WORK (a temporary folder, removed at the end unless given).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
gpufem=${GPUFEM:-$here/build/gpufem}
work=${WORK:-$(mktemp -d)}
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"

# case_file NAME GEO SIZE: a degree sweep of the Poisson problem on that mesh.
case_file() {
    cat >"$work/$1.yaml" <<EOF
mesh: {geo: $here/cases/meshes/$2, size: $3, gmsh_threads: 1}
degree: [1, 2, 3]
problem: {f: 1, dirichlet: {boundary: 0}}
solver: {tolerance: 1e-12}
output: {write: false}
EOF
}
case_file square square.geo "${SQUARE_SIZE:-0.01}"
case_file cube cube.geo "${CUBE_SIZE:-0.05}"

printf '%-7s %-4s %-6s %10s %11s %14s %11s\n' mesh prec degree unknowns iterations "ms/iteration" complexity
for mesh in square cube; do
    for prec in amg pmg; do
        out="$work/${mesh}_$prec"
        "$gpufem" run "$work/$mesh.yaml" --backend "${BACKEND:-cpu}" -o "$out" \
            --set "solver.preconditioner=$prec" "$@" >"$out.log" 2>&1 ||
            { echo "$mesh $prec failed: see $out.log" >&2; tail -5 "$out.log" >&2; exit 1; }
        /usr/bin/python3 - "$out" "$mesh" "$prec" <<'EOF'
import json, pathlib, sys
out, mesh, prec = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
for point in json.loads((out / "report.json").read_text())["sweep"]:
    solver = json.loads((out / point["folder"] / "report.json").read_text())["solver"]
    complexity = solver["preconditioner_details"].get("operator_complexity") or float("nan")
    print(f"{mesh:<7} {prec:<4} P{point['degree']:<5} {point['unknowns']:>10} "
          f"{solver['iterations']:>11} {1e3 * solver['seconds_per_iteration']:>14.3f} {complexity:>11.2f}")
EOF
    done
done
