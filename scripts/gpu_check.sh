#!/usr/bin/env bash
# GPU checks on a machine with an NVIDIA GPU (docs/development.md), in stages so that each
# fits in a few minutes:
#   scripts/gpu_check.sh tests   every test program, compute-sanitizer on the kernels
#   scripts/gpu_check.sh cases   the cases on both backends, formats, the SpMV benchmark
#   scripts/gpu_check.sh solvers the Krylov tests and sanitizers, the solver benchmark
#   scripts/gpu_check.sh phases  report.json phase times of GPU-sized cases on cuda (the host
#                                phases: coefficients, errors, output), as a table
#   scripts/gpu_check.sh scale   mesh, pattern and whole-run times with the peak device memory
#                                (nvidia-smi every 20 ms) of bench_cube_4m, a Q2 cube and
#                                scale_cube_q1_64m (SCALE_CASES; on an H200 add scale_cube_100m),
#                                with this build and, if packed,
#                                bundle/bin/gpufem_old
#   scripts/gpu_check.sh amg     the multigrid tests and sanitizers, then AMG and p-multigrid
#                                against Jacobi on bench_cube_4m, degree_sweep_quads_4m, P2
#                                tetrahedra and refined Q1/P1/P2 cubes (iterations, setup,
#                                solve), as a table
#   scripts/gpu_check.sh benchmarks  every case of cases/benchmarks on cuda (output.write false):
#                                unknowns, iterations, phase times and peak device memory, as
#                                the table of docs/performance.md; report.json of each to $OUT
#   scripts/gpu_check.sh wall    what a user waits for: time(1) around gpufem run against
#                                report.json's startup, phases and wall (fv_cube_tets_4m,
#                                bench_cube_4m with AMG; three runs each)
#   scripts/gpu_check.sh memory  the memory estimate against the measured peaks: the GPU test
#                                (every format), then GPU-sized cases (report.json "memory"),
#                                as a table
#   scripts/gpu_check.sh compare bench spmv (bench_cube_4m), bench solver (bench_cube_262k; and
#                                bench_cube_4m with pmg and jacobi) and three runs of
#                                bench_cube_4m with pmg, with this build and with
#                                bundle/bin/gpufem_old (an earlier build packed as gpufem_old),
#                                in the same run
#   scripts/gpu_check.sh refine  gpufem's refinement and node numbering on the device (the GPU
#                                test, sanitizers) and the mesh phase of Gmsh meshes refined
#                                there: refined_ball_p2, refined_cube_tets_p2, as a table
#   scripts/gpu_check.sh fv      the finite-volume GPU tests and sanitizers, then
#                                fv_cube_tets_4m and fv_mixed_cube on cuda (phases, row lengths,
#                                passes, CG), and
#                                bench spmv (every format, % of copy) and the staircase sweep on
#                                its matrix
#   scripts/gpu_check.sh distributed  gpufem run under mpirun, one rank per GPU: test_mpi_ranks
#                                (NCCL and MPI paths) on 1 and every GPU and its memcheck,
#                                poisson_cube on every GPU against one (iterations, errors),
#                                then strong scaling of CG + Jacobi on a Q1 cube (DIST_SIZES:
#                                mesh sizes h) on 1, 2, ... every GPU, phases from report.json,
#                                as a table. NCCL from the machine (its Python's nvidia-nccl
#                                wheel) when the bundle has none
#   scripts/gpu_check.sh ranks   the same as distributed
#   scripts/gpu_check.sh formats reordering, format auto and matrix cases on cuda
#                                (test_external_systems_gpu), bench spmv with and without rcm on
#                                the structured cube and Gmsh P1/P2 tetrahedra, format auto's
#                                choice on four matrices against the bench's fastest, a system
#                                exported and read back as Matrix Market, the CSR sweep
# Expects the bundle made by
#   scripts/bundle.sh .device/gpufem.tar.xz build/gpufem build/gpufem-mesh-worker build/test_*
# (BUNDLE names another; with every test program it is about 75 MB: a bundle may hold a part of
# them, the stage runs those it holds), run from the repository root (it reads cases/), and
# writes logs and reports under $OUT (default ./gpu_out).
set -uo pipefail
stage=${1:-tests}
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT" /tmp/gpufem_runs
tar xJf "${BUNDLE:-.device/gpufem.tar.xz}" -C /tmp
run() { /tmp/bundle/run "$@"; }
# The case file of a case name: cases/benchmarks/NAME.yaml, or the example cases/examples/NN_NAME.yaml.
case_path() {
  local found=(cases/benchmarks/$1.yaml cases/examples/[0-9][0-9]_$1.yaml)
  for f in "${found[@]}"; do [[ -f $f ]] && { echo "$f"; return; }; done
  echo "cases/$1.yaml"  # not shipped: the error names it
}
export GPUFEM_EXECUTABLE="/tmp/bundle/run gpufem"
run_tests() {  # time limit, lines of output kept, test programs (those in the bundle)
  local limit=$1 lines=$2; shift 2
  for t in "$@"; do
    echo "-- $t"
    # Every test program together packs past the 64 MiB a call carries: bundles may hold a
    # part (two calls with BUNDLE set to each half).
    [[ -x /tmp/bundle/bin/$t ]] || { echo "   not in this bundle"; continue; }
    (cd /tmp && timeout "$limit" /tmp/bundle/run "$t" --gtest_brief=1 2>&1 | tail -"$lines")
  done
}
report_run() {  # prefix, name, case, extra arguments: report.json to $OUT/<prefix>_<name>.json
  local prefix=$1 name=$2 case=$3; shift 3
  run gpufem run $(case_path $case) --backend cuda -q -o /tmp/gpufem_runs/$name "$@" > /dev/null 2>&1 ||
    echo "$name: exit $?"
  cp /tmp/gpufem_runs/$name/report.json "$OUT/${prefix}_$name.json" 2>/dev/null
}
sanitize() {  # tool, test program, gtest filter (skipped when the bundle lacks the program)
  [[ -x /tmp/bundle/bin/$2 ]] || { echo "$1 $2: not in this bundle"; return; }
  LD_LIBRARY_PATH=/tmp/bundle/lib:/usr/local/cuda/lib64 timeout 240 compute-sanitizer --tool "$1" \
    --print-limit 20 /tmp/bundle/bin/"$2" --gtest_filter="$3" --gtest_brief=1 2>&1 | tail -8
}
{
  nvidia-smi -L
  echo "nproc $(nproc)"
  if [[ $stage == tests ]]; then
    run_tests 400 40 test_linalg test_linalg_gpu test_assembly test_assembly_gpu \
      test_expression_gpu test_lma_gpu test_mesh test_solver test_krylov test_krylov_gpu \
      test_end_to_end test_end_to_end_gpu test_bench_spmv test_multigrid test_multigrid_gpu \
      test_mesh_gpu test_external_systems_gpu test_finite_volumes_gpu
    echo "== compute-sanitizer"
    sanitize memcheck test_assembly_gpu '*'
    sanitize memcheck test_expression_gpu '*'
    sanitize racecheck test_expression_gpu '*FirstFailing*:*ErrorNorms*'
    sanitize memcheck test_linalg_gpu '*Blas1*:*Timer*:*RoundTrip*:*Reorder*:*Bdia*:*Staircase*:*Ell*:*Sell*'
    sanitize racecheck test_linalg_gpu '*Blas1*:*Bdia*'
    sanitize synccheck test_linalg_gpu '*Bdia*:*Sell*'
    sanitize memcheck test_krylov_gpu '*VariantsAgree*:*MultiDot*:*SplitReductions*:*TwoRanks*'
    sanitize racecheck test_krylov_gpu 'KrylovGpu/1.SplitReductions*'
    sanitize racecheck test_krylov_gpu 'KrylovGpu/1.VariantsAgreeOnSpdSystem'
  elif [[ $stage == refine ]]; then
    # gpufem's refinement and node numbering on the device: CPU = CUDA, sanitizers, and the
    # mesh phase of Gmsh meshes refined on the device (report.json times).
    run_tests 600 20 test_mesh_gpu
    echo "== compute-sanitizer"
    sanitize memcheck test_mesh_gpu '*LoadMeshRefinesOnTheDevice*'
    sanitize racecheck test_mesh_gpu '*LoadMeshRefinesOnTheDevice*'
    refine_run() { report_run refine "$@"; }
    refine_run warmup poisson_square
    refine_run ball_p2 refined_ball_p2
    refine_run cube_tets_p2_r1 refined_cube_tets_p2 --set mesh.refine=1
    refine_run cube_tets_p2 refined_cube_tets_p2
    refine_run cube_tets_p1_r2 refined_cube_tets_p2 --set degree=1
    refine_run gmsh_cube_tets gmsh_cube_tets
    python3 - "$OUT" <<'PY'
import glob, json, os, sys
print(f"{'case':<18}{'cells':>11}{'unknowns':>11}{'mesh':>8}{'gmsh':>8}{'extract':>8}{'refine':>8}"
      f"{'assembly':>9}{'solve':>8}{'iters':>6}{'output':>8}{'total':>8}{'dev GB':>8}  seconds")
for f in sorted(glob.glob(os.path.join(sys.argv[1], 'refine_*.json'))):
    r = json.load(open(f)); t = r['times']
    cells = r.get('mesh', {}).get('cells', 0)
    print(f"{os.path.basename(f)[7:-5]:<18}{cells:>11}{r['unknowns']['count']:>11}{t['mesh']:>8.3f}"
          f"{t.get('mesh_gmsh', 0):>8.3f}{t.get('mesh_gpufem', 0):>8.3f}{t.get('mesh_refinement', 0):>8.3f}"
          f"{t['assembly']['total']:>9.3f}{t['solve']:>8.3f}{r['solver']['iterations']:>6}"
          f"{t['output']:>8.3f}{t['total']:>8.2f}{r['memory']['peak_measured']['device']/1e9:>8.2f}")
PY
  elif [[ $stage == fv ]]; then
    run_tests 600 20 test_finite_volumes_gpu
    echo "== compute-sanitizer"
    sanitize memcheck test_finite_volumes_gpu '*EveryKernel*'
    sanitize racecheck test_finite_volumes_gpu '*EveryKernel*'
    fv_run() { report_run fv "$@"; }
    fv_run warmup fv_convection_hexes
    fv_run tets_4m fv_cube_tets_4m
    fv_run tets_4m_deferred fv_cube_tets_4m --set fv.correction=deferred
    fv_run tets_4m_jacobi fv_cube_tets_4m --set solver.preconditioner=jacobi
    fv_run tets_4m_plain fv_cube_tets_4m --set fv.nonorthogonal_correctors=0
    fv_run mixed_cube fv_mixed_cube
    python3 - "$OUT" <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], 'fv_*.json'))):
    r = json.load(open(f)); t = r['times']; a = t['assembly']; d = r.get('discretisation', {})
    print(f"== {os.path.basename(f)[3:-5]}: {r['unknowns']['count']} cells, nnz {r['matrix']['nnz']}, per row "
          f"{r['matrix']['nnz_per_row']}, non-orthogonality {d.get('max_nonorthogonality_degrees', 0):.1f} deg")
    print(f"   mesh {t['mesh']:.3f} (gmsh {t['mesh_gmsh']:.3f}, refinement {t['mesh_refinement']:.3f}); assembly "
          f"{a['total']:.4f} (geometry {a['geometry']:.4f}, coefficients {a['coefficients']:.4f}, pattern "
          f"{a['pattern']:.4f}, values {a['values']:.4f}, boundary {a['boundary']:.4f})")
    s = r['solver']
    print(f"   solve {t['solve']:.3f} (setup {t['preconditioner_setup']:.3f}), {s['iterations']} iterations in "
          f"passes {s['pass_iterations']} ({s.get('correction')}), residual {s['true_relative_residual']}, correction {s['correction_change']:.2e}; "
          f"errors {t['errors']:.3f}, output {t['output']:.3f}, total {t['total']:.2f}; L2 {r.get('errors', {}).get('l2')}")
PY
    echo "== row lengths (fv_cube_tets_4m)"
    run gpufem bench spmv $(case_path fv_cube_tets_4m) --backend cuda -o /tmp/gpufem_runs/fvbench \
      --formats csr,csr-scalar,ell,ellr,sellp,staircase,cusparse,cusparse-sell 2>&1 | grep -v "\[info\]"
    cp /tmp/gpufem_runs/fvbench/bench_spmv.json "$OUT/fv_bench_spmv.json" 2>/dev/null
    run gpufem bench spmv $(case_path fv_cube_tets_4m) --backend cuda -o /tmp/gpufem_runs/fvsweep \
      --staircase-sweep 2>&1 | grep -v "\[info\]"
    cp /tmp/gpufem_runs/fvsweep/staircase_sweep.* "$OUT/" 2>/dev/null
  elif [[ $stage == benchmarks ]]; then
    for c in cases/benchmarks/*.yaml; do
      name=$(basename "$c" .yaml)
      run gpufem run "$c" --backend cuda -q --set output.write=false -o /tmp/gpufem_runs/bench_$name \
        > /tmp/log_$name.txt 2>&1 || { echo "$name: exit $?"; tail -3 /tmp/log_$name.txt; }
      cp /tmp/gpufem_runs/bench_$name/report.json "$OUT/benchmark_$name.json" 2>/dev/null
    done
    python3 - /tmp/gpufem_runs <<'PY'
import glob, json, os, sys
print("| case | unknowns | iterations | mesh s | assembly s | solve s (setup) | wall s | peak GPU GB |")
print("|---|---:|---|---:|---:|---|---:|---:|")
for folder in sorted(glob.glob(os.path.join(sys.argv[1], "bench_*"))):
    name = os.path.basename(folder)[len("bench_"):]
    reports = [json.load(open(f)) for f in sorted(glob.glob(folder + "/*/report.json"))] or \
              [json.load(open(folder + "/report.json"))]
    t = [r["times"] for r in reports]
    print("| %s | %s | %s | %.3f | %.3f | %s | %.2f | %.2f |" % (
        name, " / ".join("{:,}".format(r["unknowns"]["count"]) for r in reports),
        " / ".join("%s %d" % (r["solver"]["preconditioner"], r["solver"]["iterations"]) for r in reports),
        max(x["mesh"] for x in t), max(x["assembly"]["total"] for x in t),
        " / ".join("%.3f (%.3f)" % (x["solve"], x["preconditioner_setup"]) for x in t),
        max(x["wall"] for x in t), max(r["memory"]["peak_measured"]["device"] for r in reports) / 1e9))
PY
  elif [[ $stage == wall ]]; then
    # Prompt to prompt (time(1)) against report.json's startup, phases (total) and wall.
    for c in fv_cube_tets_4m bench_cube_4m; do
      for i in 1 2 3; do
        /usr/bin/time -f "$c: time(1) %e s" /tmp/bundle/run gpufem run $(case_path $c) --backend cuda -q \
          -o /tmp/gpufem_runs/wall_$c --set solver.preconditioner=amg > /dev/null 2> /tmp/gpufem_runs/time.txt
        tail -1 /tmp/gpufem_runs/time.txt
        python3 -c "import json,sys; t = json.load(open(sys.argv[1]))['times']; print('  startup %.3f, phases %.3f, wall %.3f (mesh %.3f, solve %.3f)' % (t['startup'], t['total'], t['wall'], t['mesh'], t['solve']))" /tmp/gpufem_runs/wall_$c/report.json
      done
    done
  elif [[ $stage == memory ]]; then
    (cd /tmp && /tmp/bundle/run test_end_to_end_gpu --gtest_filter='*Memory*' 2>&1 | tail -30)
    memory_run() { report_run memory "$@"; }
    memory_run cube_4m_csr bench_cube_4m
    memory_run cube_4m_sellp bench_cube_4m --set format=sellp
    memory_run cube_4m_lma bench_cube_4m --set format=lma
    memory_run cube_4m_amg bench_cube_4m --set solver.preconditioner=amg
    memory_run quads_q4_pmg degree_sweep_quads_4m --set degree=4 --set solver.preconditioner=pmg
    memory_run cube_64m scale_cube_q1_64m
    memory_run cube_64m_amg scale_cube_q1_64m --set solver.preconditioner=amg
    memory_run fv_tets_4m fv_cube_tets_4m
    run gpufem run $(case_path scale_cube_q1_64m) --backend cuda --dry-run --set mesh.refine=1 2>&1 | tail -12
    python3 - "$OUT" <<'PY'
import glob, json, os, sys
print(f"{'case':<16}{'unknowns':>11}{'host est':>10}{'host':>10}{'dev est':>10}{'device':>10}  GB, peaks")
for f in sorted(glob.glob(os.path.join(sys.argv[1], 'memory_*.json'))):
    m = json.load(open(f))['memory']; e, r = m['peak_estimate'], m['peak_measured']
    print(f"{os.path.basename(f)[7:-5]:<16}{m['matrix_estimate']['rows']:>11.0f}{e['host']/1e9:>10.3f}"
          f"{r['host']/1e9:>10.3f}{e['device']/1e9:>10.3f}{r['device']/1e9:>10.3f}"
          f"  ({100*(e['device']/max(r['device'],1)-1):+.1f}% device)")
PY
  elif [[ $stage == phases ]]; then
    phase_run() { report_run phases "$@"; }
    phase_run warmup poisson_square
    phase_run poisson_cube poisson_cube
    phase_run poisson_cube_float poisson_cube --set precision=float --set solver.tolerance=1e-6
    phase_run poisson_cube_q2 poisson_cube --set mesh.size=0.02 --set degree=2
    phase_run bench_cube_4m bench_cube_4m
    phase_run bench_cube_4m_none bench_cube_4m --set output.compression=none
    # P1 tetrahedra (6 per cube of the generated grid), kappa = 1 + x y z, 600k unknowns
    phase_run tet_cube_600k poisson_cube --set mesh.elements=tetrahedron --set mesh.size=0.012
    # the same problem on Gmsh's unstructured tetrahedra (HXT), about 430k unknowns
    [[ ${PHASES_GMSH:-1} == 1 ]] && phase_run gmsh_cube_tets gmsh_cube_tets
    python3 - "$OUT" <<'PY'
import glob, json, os, sys
print(f"{'case':<20}{'unknowns':>10}{'mesh':>9}{'gmsh':>9}{'geom':>9}{'coeff':>9}{'pattern':>9}{'values':>9}"
      f"{'boundary':>9}{'assembly':>9}{'solve':>9}{'errors':>9}{'output':>9}  seconds")
for f in sorted(glob.glob(os.path.join(sys.argv[1], 'phases_*.json'))):
    r = json.load(open(f)); t = r['times']; a = t['assembly']
    print(f"{os.path.basename(f)[7:-5]:<20}{r['unknowns']['count']:>10}{t['mesh']:>9.4f}{t.get('mesh_gmsh', 0):>9.4f}"
          f"{a.get('geometry', 0):>9.4f}{a['coefficients']:>9.4f}{a['pattern']:>9.4f}"
          f"{a['values']:>9.4f}{a['boundary']:>9.4f}{a['total']:>9.4f}{t['solve']:>9.4f}"
          f"{t['errors']:>9.4f}{t['output']:>9.4f}")
PY
  elif [[ $stage == scale ]]; then
    peak_run() {  # program, name, case, extra arguments: times and peak device memory
      local prog=$1 name=$2 case=$3; shift 3
      nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 20 > /tmp/mem_$name.txt &
      local sampler=$!
      local start=$(date +%s.%N)
      run $prog run $(case_path $case) --backend cuda -q -o /tmp/gpufem_runs/$name "$@" > /tmp/log_$name.txt 2>&1 ||
        { echo "$name failed"; tail -5 /tmp/log_$name.txt; }
      local end=$(date +%s.%N)
      kill $sampler; wait $sampler 2>/dev/null
      cp /tmp/gpufem_runs/$name/report.json "$OUT/scale_$name.json" 2>/dev/null
      python3 - "$OUT/scale_$name.json" "$name" "$(sort -n /tmp/mem_$name.txt | tail -1)" "$start" "$end" <<'PY'
import json, sys
path, name, peak, start, end = sys.argv[1:]
try:
    r = json.load(open(path)); t = r['times']; a = t['assembly']
    print(f"{name:<28}{r['unknowns']['count']:>11}{r['matrix']['nnz'] if 'matrix' in r else 0:>12}"
          f"{t['mesh']:>8.3f}{a['pattern']:>9.4f}{a['total']:>9.3f}{t['solve']:>8.3f}"
          f"{t['output']:>8.3f}{t['total']:>8.2f}{float(end) - float(start):>8.2f}{peak:>9} MiB")
except Exception as e:
    print(name, 'no report', e, 'peak', peak, 'MiB')
PY
    }
    echo "case                          unknowns         nnz    mesh  pattern assembly   solve  output   total    wall     peak"
    progs=gpufem; [[ -x /tmp/bundle/bin/gpufem_old ]] && progs="gpufem_old gpufem"
    for prog in $progs; do
      peak_run $prog ${prog}_cube_4m bench_cube_4m
      peak_run $prog ${prog}_cube_q2 poisson_cube --set degree=2 --set mesh.size=0.02
    done
    for c in ${SCALE_CASES:-scale_cube_q1_64m}; do peak_run gpufem $c $c; done
    peak_run gpufem scale_cube_q1_64m_lma scale_cube_q1_64m --set format=lma \
      --set format_options.lma.symmetric=true --set solver.preconditioner=jacobi
  elif [[ $stage == amg ]]; then
    run_tests 400 20 test_multigrid_gpu test_multigrid
    echo "== compute-sanitizer"
    sanitize memcheck test_multigrid_gpu '*'
    sanitize racecheck test_multigrid_gpu '*Aggregates*'
    amg_run() {  # name, case, extra arguments
      local name=$1 case=$2; shift 2
      run gpufem run $(case_path $case) --backend cuda -q -o /tmp/gpufem_runs/$name --set output.write=false "$@" \
        > /tmp/log_$name.txt 2>&1 || { echo "$name failed"; tail -3 /tmp/log_$name.txt; }
      for f in /tmp/gpufem_runs/$name/report.json /tmp/gpufem_runs/$name/*/report.json; do
        [[ -f $f ]] || continue
        local d; d=$(basename "$(dirname "$f")"); [[ $d == "$name" ]] && d= || d=_$d
        cp "$f" "$OUT/amg_${name}$d.json"
      done
    }
    amg_run warmup poisson_square --set solver.preconditioner=amg
    for p in jacobi amg pmg; do
      amg_run cube4m_$p bench_cube_4m --set solver.preconditioner=$p
      amg_run sweep4m_$p degree_sweep_quads_4m --set solver.preconditioner=$p
    done
    amg_run sweep4m_pmg_lma degree_sweep_quads_4m --set solver.preconditioner=pmg --set format=lma
    amg_run sweep4m_pmg_distance1 degree_sweep_quads_4m --set solver.preconditioner=pmg \
      --set solver.amg.aggregation=distance1
    amg_run cube4m_amg_distance1 bench_cube_4m --set solver.preconditioner=amg --set solver.amg.aggregation=distance1
    amg_run tri4m_amg poisson_square --set mesh.elements=triangle --set mesh.size=0.00048828125 \
      --set solver.preconditioner=amg
    amg_run tri4m_amg_distance1 poisson_square --set mesh.elements=triangle --set mesh.size=0.00048828125 \
      --set solver.preconditioner=amg --set solver.amg.aggregation=distance1
    amg_run tet2_600k_amg poisson_cube --set mesh.elements=tet --set mesh.size=0.024 --set degree=2 \
      --set solver.preconditioner=amg
    amg_run tet2_600k_pmg poisson_cube --set mesh.elements=tet --set mesh.size=0.024 --set degree=2 \
      --set solver.preconditioner=pmg
    amg_run tet2_600k_jacobi poisson_cube --set mesh.elements=tet --set mesh.size=0.024 --set degree=2 \
      --set solver.preconditioner=jacobi
    amg_run cube4m_amg_float bench_cube_4m --set solver.preconditioner=amg --set precision=float \
      --set solver.tolerance=1e-6
    amg_run cube4m_jacobi_float bench_cube_4m --set solver.preconditioner=jacobi --set precision=float \
      --set solver.tolerance=1e-6
    amg_run cube4m_amg_jacobi_smoother bench_cube_4m --set solver.preconditioner=amg \
      --set solver.amg.smoother=jacobi
    for r in 0 1 2 3; do  # h-independence: generated meshes, then Gmsh's tetrahedra refined on the device
      amg_run gtet1_r$r gmsh_cube_tets --set mesh.size=0.1 --set mesh.refine=$r --set solver.preconditioner=amg
      amg_run gtet2pmg_r$r gmsh_cube_tets --set mesh.size=0.1 --set mesh.refine=$r --set degree=2 \
        --set solver.preconditioner=pmg
      amg_run hex_r$r poisson_cube --set mesh.size=0.05 --set mesh.refine=$r --set solver.preconditioner=amg
      amg_run tet1_r$r poisson_cube --set mesh.elements=tet --set mesh.size=0.05 --set mesh.refine=$r \
        --set solver.preconditioner=amg
      [[ $r -lt 3 ]] && amg_run tet2_r$r poisson_cube --set mesh.elements=tet --set mesh.size=0.1 \
        --set mesh.refine=$r --set degree=2 --set solver.preconditioner=amg
    done
    python3 - "$OUT" <<'PY' | tee "$OUT/amg_table.txt"
import glob, json, os, sys
print(f"{'run':<34}{'unknowns':>10}{'its':>6}{'setup':>9}{'solve':>9}{'s/it':>10}{'total':>8}  levels")
for f in sorted(glob.glob(os.path.join(sys.argv[1], 'amg_*.json'))):
    r = json.load(open(f))
    if 'times' not in r: continue  # a sweep's summary
    t = r['times']; s = r['solver']
    d = s.get('preconditioner_details', {})
    levels = '/'.join(str(l['rows']) for l in d.get('levels', []))
    print(f"{os.path.basename(f)[4:-5]:<34}{r['unknowns']['count']:>10}{s['iterations']:>6}"
          f"{t.get('preconditioner_setup', 0):>9.4f}{t['solve']:>9.4f}{s['seconds_per_iteration']:>10.2e}"
          f"{t['total']:>8.2f}  {levels} {s['status']}")
PY
    tar czf "$OUT/amg_reports.tgz" -C "$OUT" $(cd "$OUT" && ls amg_*.json) && rm -f "$OUT"/amg_*.json
  elif [[ $stage == compare ]]; then
    for prog in gpufem_old gpufem; do
      echo "== $prog: bench spmv bench_cube_4m"
      run $prog bench spmv $(case_path bench_cube_4m) --backend cuda -o /tmp/gpufem_runs/spmv_$prog 2>&1 | \
        grep -v "\[info\]"
      cp /tmp/gpufem_runs/spmv_$prog/bench_spmv.json "$OUT/bench_spmv_$prog.json" 2>/dev/null
      echo "== $prog: bench solver bench_cube_262k"
      run $prog bench solver $(case_path bench_cube_262k) --backend cuda -o /tmp/gpufem_runs/solver_$prog \
        -m cg,bicgstab -p none,jacobi 2>&1 | grep -v "\[info\]"
      cp /tmp/gpufem_runs/solver_$prog/bench_solver.json "$OUT/bench_solver_$prog.json" 2>/dev/null
      echo "== $prog: bench solver bench_cube_4m, CG with pmg and with jacobi"
      run $prog bench solver $(case_path bench_cube_4m) --backend cuda -o /tmp/gpufem_runs/solver4m_$prog \
        -m cg -p pmg,jacobi 2>&1 | grep -v "\[info\]"
      cp /tmp/gpufem_runs/solver4m_$prog/bench_solver.json "$OUT/bench_solver_4m_$prog.json" 2>/dev/null
      echo "== $prog: run bench_cube_4m with pmg (report.json phases)"
      for k in 1 2 3; do
        run $prog run $(case_path bench_cube_4m) --backend cuda -q -o /tmp/gpufem_runs/pmg4m_$prog \
          --set solver.preconditioner=pmg > /dev/null 2>&1 || echo "exit $?"
        cp /tmp/gpufem_runs/pmg4m_$prog/report.json "$OUT/pmg4m_${prog}_$k.json" 2>/dev/null
      done
    done
    python3 - "$OUT" <<'PY'
import glob, json, os, sys
print(f"{'run':<22}{'its':>5}{'assembly':>10}{'setup':>9}{'solve':>9}{'total':>8}")
for f in sorted(glob.glob(os.path.join(sys.argv[1], 'pmg4m_*.json'))):
    r = json.load(open(f)); t = r['times']
    assembly = t['assembly']['total'] if isinstance(t.get('assembly'), dict) else t.get('assembly', 0)
    print(f"{os.path.basename(f)[6:-5]:<22}{r['solver']['iterations']:>5}{assembly:>10.4f}"
          f"{t.get('preconditioner_setup', 0):>9.4f}{t['solve']:>9.4f}{t['total']:>8.3f}")
PY
    tar czf "$OUT/pmg4m_reports.tgz" -C "$OUT" $(cd "$OUT" && ls pmg4m_*.json) && rm -f "$OUT"/pmg4m_*.json
  elif [[ $stage == solvers ]]; then
    run_tests 300 30 test_krylov_gpu test_krylov
    echo "== compute-sanitizer"
    sanitize memcheck test_krylov_gpu '*MultiDot*:*Deterministic*:*Breakdowns*/1:*MatchesCpu*'
    sanitize racecheck test_krylov_gpu '*MultiDot*:*Breakdowns*/1'
    sanitize synccheck test_krylov_gpu '*MultiDot*'
    sanitize memcheck test_krylov_gpu '*.CgInOneResidentKernelFollowsTheMergedKernels:*Breakdowns*'
    sanitize racecheck test_krylov_gpu '*.CgInOneResidentKernelFollowsTheMergedKernels:*Breakdowns*'
    sanitize synccheck test_krylov_gpu '*.CgInOneResidentKernelFollowsTheMergedKernels'
    echo "== convection case, cuda against cpu"
    for b in cuda cpu; do
      run gpufem run $(case_path convection_diffusion) --backend $b -q -o /tmp/gpufem_runs/conv_$b 2>&1 | tail -14
    done
    run gpufem compare /tmp/gpufem_runs/conv_cpu/result.vtu /tmp/gpufem_runs/conv_cuda/result.vtu
    echo "== poisson_cube: merged CG variants on cuda"
    for extra in "" "--set solver.variant=reference" "--set solver.preconditioner=jacobi" \
                 "--set format=lma --set solver.preconditioner=jacobi" \
                 "--set solver.method=bicgstab" "--set precision=float --set solver.tolerance=1e-6"; do
      echo "-- $extra"
      run gpufem run $(case_path poisson_cube) --backend cuda -q -o /tmp/gpufem_runs/cube $extra 2>&1 | \
        grep -E "solver|solve time|SpMV|error  "
    done
    echo "== bench solver"
    run gpufem bench solver $(case_path bench_cube_4m) --backend cuda -o /tmp/gpufem_runs/bs4m \
      -f csr,ell,cusparse-sell -m cg -p none,jacobi 2>&1 | grep -v "\[info\]"
    cp /tmp/gpufem_runs/bs4m/bench_solver.json "$OUT/bench_solver_cube_4m.json" 2>/dev/null
    for graph in auto off; do
      run gpufem bench solver $(case_path bench_cube_262k) --backend cuda -o /tmp/gpufem_runs/bs262k \
        -f csr -m cg,bicgstab -i 300 --set solver.cuda_graph=$graph 2>&1 | grep -v "\[info\]"
      cp /tmp/gpufem_runs/bs262k/bench_solver.json "$OUT/bench_solver_cube_262k_graph_$graph.json" 2>/dev/null
    done
    echo "== CG in one resident kernel (bdia, 262k cube): off against on, twice"
    for round in 1 2; do
      for resident in off on; do
        run gpufem bench solver $(case_path bench_cube_262k) --backend cuda -o /tmp/gpufem_runs/bsres \
          -f bdia -m cg -p none,jacobi --set solver.resident_cg=$resident 2>&1 | grep -v "\[info\]"
        cp /tmp/gpufem_runs/bsres/bench_solver.json "$OUT/bench_solver_262k_resident_${resident}_$round.json" 2>/dev/null
      done
    done
    run gpufem bench solver $(case_path convection_diffusion_4m) --backend cuda \
      -o /tmp/gpufem_runs/bsconv -f csr,sellp -p none,jacobi 2>&1 | grep -v "\[info\]"
    cp /tmp/gpufem_runs/bsconv/bench_solver.json "$OUT/bench_solver_convection_4m.json" 2>/dev/null
    run gpufem bench solver $(case_path bench_cube_4m) --backend cuda -o /tmp/gpufem_runs/bs4mf \
      -f csr -m cg,bicgstab --set precision=float 2>&1 | grep -v "\[info\]"
  elif [[ $stage == formats ]]; then
    run_tests 300 20 test_external_systems_gpu test_linalg_gpu
    formats=csr,ell,ellr,sellp,bdia,staircase,cusparse,cusparse-sell
    bench() {  # name, case, extra arguments: bench spmv's table and json
      local name=$1 case=$2; shift 2
      echo "== bench spmv $name"
      run gpufem bench spmv "$case" --backend cuda -f $formats -n 50 --cg-iterations 0 \
        -o /tmp/gpufem_runs/b_$name "$@" 2>&1 | grep -v "\[info\]" | head -24
      cp /tmp/gpufem_runs/b_$name/bench_spmv.json "$OUT/bench_$name.json" 2>/dev/null
    }
    auto() {  # name, case, extra arguments: format auto's table and report
      local name=$1 case=$2; shift 2
      echo "== format auto $name"
      run gpufem run "$case" --backend cuda -o /tmp/gpufem_runs/a_$name --set format=auto \
        --set output.write=false "$@" > /tmp/log_a_$name.txt 2>&1
      grep -A12 "format auto:" /tmp/log_a_$name.txt | head -12; grep -E "solve time|status" /tmp/log_a_$name.txt
      cp /tmp/gpufem_runs/a_$name/report.json "$OUT/auto_$name.json" 2>/dev/null
    }
    export_case() {  # name, extra arguments: the Gmsh tetrahedral cube exported, then a matrix case
      local name=$1; shift
      echo "== export $name"
      run gpufem run $(case_path gmsh_cube_tets) --backend cuda -o /tmp/gpufem_runs/$name \
        --set output.write=false --export-matrix /tmp/${name}_mtx "$@" > /tmp/log_$name.txt 2>&1
      grep -E "unknowns|mesh time|solve time|status|error  " /tmp/log_$name.txt
      cp /tmp/gpufem_runs/$name/report.json "$OUT/$name.json" 2>/dev/null
      ls -l /tmp/${name}_mtx
      printf 'matrix: {file: /tmp/%s_mtx/A.mtx, rhs: /tmp/%s_mtx/b.mtx}\nsolver: {tolerance: 1e-8, max_iterations: 20000}\n' \
        $name $name > /tmp/${name}_matrix.yaml
      run gpufem run /tmp/${name}_matrix.yaml --backend cuda -q -o /tmp/gpufem_runs/${name}_mtx 2>&1 | \
        grep -E "system|solve time|status"
      cp /tmp/gpufem_runs/${name}_mtx/report.json "$OUT/${name}_matrix.json" 2>/dev/null
      python3 - /tmp/${name}_mtx/x.mtx /tmp/gpufem_runs/${name}_mtx/solution.mtx <<'PY'
import sys
def read(p):
    lines = [l for l in open(p) if not l.startswith('%')]
    return [float(l) for l in lines[1:]]
a, b = read(sys.argv[1]), read(sys.argv[2])
print('matrix case against the mesh run: rows', len(a), len(b), 'max |diff| / max |x| =',
      max(abs(p - q) for p, q in zip(a, b)) / max(abs(p) for p in a))
PY
      run gpufem bench mtx --file /tmp/${name}_mtx/A.mtx -n 3 -o /tmp 2>&1 | grep -v "\[info\]"
    }
    if [[ ${FORMATS_PART:-} == 3 ]]; then  # format auto again (after its estimate changed)
      run_tests 600 6 test_end_to_end_gpu
      auto cube4m $(case_path bench_cube_4m)
      auto cube4m_amg $(case_path bench_cube_4m) --set solver.preconditioner=amg
      auto quads_q4 $(case_path degree_sweep_quads_4m) --set degree=4 --set solver.tolerance=1e-8
      auto tet2 $(case_path gmsh_cube_tets) --set degree=2
      auto tet2_rcm $(case_path gmsh_cube_tets) --set degree=2 --set reorder=rcm
      return 0 2>/dev/null || exit 0
    fi
    if [[ ${FORMATS_PART:-} == 4 ]]; then  # P2 tetrahedra past 4M rows, with and without rcm
      export_case tet2b --set mesh.size=0.0108 --set degree=2
      bench tet2b /tmp/tet2b_matrix.yaml
      bench tet2b_rcm /tmp/tet2b_matrix.yaml --set reorder=rcm
      return 0 2>/dev/null || exit 0
    fi
    # Two parts (FORMATS_PART=1 or 2; both when unset), each within one call's time; 3: the
    # GPU end-to-end tests and format auto alone.
    tets=()
    [[ ${FORMATS_PART:-1} == 1 ]] && tets+=(tet1) && export_case tet1 --set mesh.size=0.0105 --set mesh.refine=1
    [[ ${FORMATS_PART:-2} == 2 ]] && tets+=(tet2) && export_case tet2 --set mesh.size=0.011 --set degree=2
    for t in "${tets[@]}"; do
      bench $t /tmp/${t}_matrix.yaml
      bench ${t}_rcm /tmp/${t}_matrix.yaml --set reorder=rcm
      auto $t /tmp/${t}_matrix.yaml
    done
    if [[ ${FORMATS_PART:-1} == 1 ]]; then
      bench cube4m $(case_path bench_cube_4m)
      bench cube4m_rcm $(case_path bench_cube_4m) --set reorder=rcm
      auto cube4m $(case_path bench_cube_4m)
      auto cube4m_amg $(case_path bench_cube_4m) --set solver.preconditioner=amg
    fi
    if [[ ${FORMATS_PART:-2} == 2 ]]; then
      auto tet2_rcm /tmp/tet2_matrix.yaml --set reorder=rcm
      [[ ${FORMATS_PART:-} == 2 ]] && auto cube4m $(case_path bench_cube_4m)
      bench quads_q4 $(case_path degree_sweep_quads_4m) --set degree=4
      auto quads_q4 $(case_path degree_sweep_quads_4m) --set degree=4 --set solver.tolerance=1e-8
      echo "== csr sweep"
      run gpufem bench spmv $(case_path bench_cube_4m) --backend cuda --csr-sweep -o /tmp/gpufem_runs/sweep 2>&1 | \
        grep -v "\[info\]" | head -30
      cp /tmp/gpufem_runs/sweep/csr_sweep.json "$OUT/csr_sweep.json" 2>/dev/null
    fi
  elif [[ $stage == distributed || $stage == ranks ]]; then
    gpus=$(nvidia-smi -L | wc -l)
    nccl=$(dirname "$(ls /tmp/bundle/lib/libnccl.so.2 2>/dev/null || find / -name libnccl.so.2 -path '*nvidia*' 2>/dev/null | head -1)")
    echo "NCCL from $nccl"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
    libs=/tmp/bundle/lib:/usr/local/cuda/lib64:$nccl
    mpi() { local n=$1; shift; timeout 300 /usr/bin/mpirun -np "$n" --oversubscribe --bind-to none \
              -x LD_LIBRARY_PATH=$libs -x NCCL_NVLS_ENABLE=0 "$@"; }
    for n in 1 "$gpus"; do
      echo "-- test_mpi_ranks on $n ranks"
      (cd /tmp && mpi "$n" /tmp/bundle/bin/test_mpi_ranks --gtest_brief=1 2>&1 | tail -25)
    done
    echo "-- memcheck, $gpus ranks"
    (cd /tmp && mpi "$gpus" compute-sanitizer --tool memcheck --report-api-errors no --print-limit 10 /tmp/bundle/bin/test_mpi_ranks \
       --gtest_filter='NcclRanks.*' --gtest_brief=1 > "$OUT/memcheck_ranks.txt" 2>&1)
    grep -E "ERROR SUMMARY|PASSED|FAILED" "$OUT/memcheck_ranks.txt"
    echo "== poisson_cube with jacobi on 1 and $gpus GPUs"
    for n in 1 "$gpus"; do
      mpi "$n" /tmp/bundle/bin/gpufem run $(case_path poisson_cube) --backend cuda -q -o /tmp/gpufem_runs/pc_$n \
        --set solver.preconditioner=jacobi 2>&1 | grep -E "unknowns|solve time|status|error|L2" 
      cp /tmp/gpufem_runs/pc_$n/report.json "$OUT/poisson_cube_np$n.json" 2>/dev/null
    done
    nvidia-smi topo -m
    echo "== poisson_cube on $gpus GPUs: graph off (SpMV times), MPI instead of NCCL, NCCL's transports"
    mpi "$gpus" -x NCCL_DEBUG=INFO /tmp/bundle/bin/gpufem run $(case_path poisson_cube) --backend cuda -q \
      -o /tmp/gpufem_runs/pc_nograph --set solver.preconditioner=jacobi --set solver.cuda_graph=off 2>&1 | \
      grep -E "solve time|SpMV|via|NCCL version" | sort | uniq -c | head -20
    cp /tmp/gpufem_runs/pc_nograph/report.json "$OUT/poisson_cube_nograph.json" 2>/dev/null
    mpi "$gpus" -x GPUFEM_DEVICE_COMMUNICATOR=mpi /tmp/bundle/bin/gpufem run $(case_path poisson_cube) --backend cuda \
      -q -o /tmp/gpufem_runs/pc_mpi --set solver.preconditioner=jacobi 2>&1 | grep -E "solve time|status|error  "
    cp /tmp/gpufem_runs/pc_mpi/report.json "$OUT/poisson_cube_mpi.json" 2>/dev/null
    for h in ${DIST_SIZES:-0.00625 0.004}; do
      for n in $(seq 1 "$gpus"); do
        mpi "$n" /tmp/bundle/bin/gpufem run $(case_path bench_cube_4m) --backend cuda -q -o /tmp/gpufem_runs/d_$n \
          --set solver.preconditioner=jacobi --set format=csr --set mesh.size=$h --set output.write=false > "$OUT/log_h${h}_np$n.txt" 2>&1 ||
          echo "h $h np $n: exit $? ($(tail -3 "$OUT/log_h${h}_np$n.txt"))"
        cp /tmp/gpufem_runs/d_$n/report.json "$OUT/dist_h${h}_np$n.json" 2>/dev/null
      done
    done
    python3 - "$OUT" <<'PY'
import glob, json, os, sys
print(f"{'run':<22}{'rows':>11}{'its':>6}{'mesh':>8}{'asm':>8}{'op':>8}{'solve':>8}{'us/it':>8}{'wall':>8}")
for f in sorted(glob.glob(os.path.join(sys.argv[1], 'dist_*.json'))):
    r = json.load(open(f)); t = r['times']; its = r['solver']['iterations']
    solve = t.get('solve', 0)
    print(f"{os.path.basename(f)[5:-5]:<22}{r['matrix']['rows']:>11}{its:>6}{t.get('mesh',0):>8.3f}"
          f"{t['assembly']['total']:>8.3f}{t['format_conversion']:>8.3f}{solve:>8.3f}"
          f"{1e6*(solve - t['preconditioner_setup'])/max(its,1):>8.1f}{t['wall']:>8.3f}")
PY
  else
    for c in ${GPU_CHECK_CASES:-poisson_square poisson_cube}; do
      for b in cuda cpu; do
        echo "== case $c on $b"
        run gpufem run $(case_path $c) --backend $b -q -o /tmp/gpufem_runs/${c}_$b 2>&1 | tail -16
        [[ $c == poisson_cube ]] && cp /tmp/gpufem_runs/${c}_$b/report.json "$OUT/${c}_$b.json" 2>/dev/null
      done
      echo "== $c: cuda against cpu"
      run gpufem compare /tmp/gpufem_runs/${c}_cpu/result.vtu /tmp/gpufem_runs/${c}_cuda/result.vtu
    done
    echo "== poisson_cube on cuda: other formats and float"
    for extra in "--set format=csr-scalar" "--set format=cusparse" "--set format=sellp" \
                 "--set format=staircase" "--set precision=float --set solver.tolerance=1e-6"; do
      echo "-- $extra"
      run gpufem run $(case_path poisson_cube) --backend cuda -q -o /tmp/gpufem_runs/extra $extra 2>&1 | \
        grep -E "precision|assembly time|solve time|SpMV|error  "
    done
    echo "== degree sweeps on cuda"
    run gpufem run $(case_path curved_ball) --backend cuda -q -o /tmp/gpufem_runs/ball 2>&1 | tail -4
    run gpufem run $(case_path degree_sweep_quads_4m) --backend cuda -q -o /tmp/gpufem_runs/sweep4m 2>&1 | tail -6
    cp /tmp/gpufem_runs/sweep4m/report.json "$OUT/sweep4m.json" 2>/dev/null
    for d in 1 2 3 4; do
      python3 -c "import json,sys; r=json.load(open('/tmp/gpufem_runs/sweep4m/d${d}_r0/report.json')); a=r['times']['assembly']; print('degree $d: cells', r['mesh']['cells'], 'values', a['values'], 's ->', '%.3g' % (r['mesh']['cells']/a['values']), 'cells/s; pattern', a['pattern'], 's; format', r['format_parameters'])" 2>&1
    done
    echo "== bench spmv"
    for extra in "" "--set precision=float"; do
      run gpufem bench spmv $(case_path bench_cube_4m) --backend cuda -o /tmp/gpufem_runs/bench $extra 2>&1 | \
        grep -v "\[info\]"
      cp /tmp/gpufem_runs/bench/bench_spmv.json "$OUT/bench_spmv${extra:+_float}.json" 2>/dev/null
    done
  fi
} 2>&1 | tee "$OUT/log_$stage.txt"
