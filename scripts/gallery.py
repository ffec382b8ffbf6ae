#!/usr/bin/python3
"""Runs every shipped case on the CPU and draws its picture for the gallery (docs/gallery.md).

    scripts/gallery.py                 # every case: run, render docs/gallery/NAME.png, summarise
    scripts/gallery.py 06_heat_sink    # only the cases whose name starts so

For each case of cases/examples and cases/benchmarks: `gpufem run` on the CPU backend into a
temporary folder (a benchmark at the size its "Try on a CPU:" line sets), then
scripts/render_case.py (3D results cut in half) into docs/gallery/NAME.png, and one line of what
the run gave (unknowns, iterations, error, peak memory): an example's "Expected" comment
quotes it. The benchmarks' expected figures are their GPU runs' (scripts/gpu_check.sh).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GPUFEM = os.environ.get("GPUFEM", os.path.join(ROOT, "build", "gpufem"))


def summary(report):
    """unknowns, iterations, relative L2 error and peak host memory of a run or a sweep."""
    if "sweep" in report:
        rows = report["sweep"]
        unknowns = "-".join(str(rows[i]["unknowns"]) for i in (0, -1)) if len(rows) > 1 else str(rows[0]["unknowns"])
        iterations = ", ".join(str(r["iterations"]) for r in rows)
        return "%d runs: %s unknowns, iterations %s" % (len(rows), unknowns, iterations)
    text = "%s unknowns, %s %s iterations" % (report["unknowns"]["count"], report["solver"]["method"],
                                              report["solver"]["iterations"])
    errors = report.get("errors")
    if errors and errors.get("relative_l2") is not None:
        text += ", relative L2 error %.2g" % errors["relative_l2"]
    memory = report.get("memory", {}).get("peak_measured", {}).get("host")
    if memory:
        text += ", peak %.0f MB" % (memory / 1e6)
    return text


def cpu_size(path):
    """The --set arguments of a case's "# Try on a CPU:" line (none for the examples)."""
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            if line.startswith("# Try on a CPU:"):
                return line[len("# Try on a CPU:"):].split()
    return []


def header(path):
    """A case's header comment: the purpose line, the Memory: line, the Expected lines."""
    lines = []
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            lines.append(line[1:].strip())
    purpose = lines[0] if lines else ""
    memory = expected = ""
    for i, line in enumerate(lines):
        if line.startswith("Memory:"):
            memory = line[len("Memory:"):].strip()
        if line.startswith("Expected"):
            expected = line
            for more in lines[i + 1:]:  # continuation lines, up to the next key or command
                if more.startswith(("Try on", "gpufem ", "Memory:")) or not more:
                    break
                expected += " " + more
    return purpose, memory, expected


def write_table(cases):
    """The gallery's tables (between the markers of docs/gallery.md) from the cases' headers."""
    page = os.path.join(ROOT, "docs", "gallery.md")
    with open(page) as f:
        text = f.read()
    for folder in ("examples", "benchmarks"):
        begin, end = "<!-- %s table: scripts/gallery.py -->" % folder, "<!-- end of %s table -->" % folder
        rows = ["| | case | what | memory | expected |", "|---|---|---|---|---|"]
        for path in cases:
            if os.path.basename(os.path.dirname(path)) != folder:
                continue
            stem = os.path.basename(path)[:-5]
            purpose, memory, expected = header(path)
            picture = '<img src="gallery/%s.png" width="220">' % stem
            memory = memory.rstrip(".")
            for said in ("Expected: ", "Expected (H200): ", "Expected (CPU): "):
                expected = expected.replace(said, "", 1) if expected.startswith(said) else expected
            rows.append("| %s | [%s](../cases/%s/%s.yaml) | %s | %s | %s |" % (
                picture, stem, folder, stem, purpose.replace("|", "/"), memory, expected.replace("|", "/")))
        if begin in text and end in text:
            text = text[:text.index(begin) + len(begin)] + "\n" + "\n".join(rows) + "\n" + text[text.index(end):]
    with open(page, "w") as f:
        f.write(text)


def main():
    prefix = sys.argv[1] if len(sys.argv) > 1 else ""
    pictures = os.path.join(ROOT, "docs", "gallery")
    os.makedirs(pictures, exist_ok=True)
    cases = []
    for folder in ("examples", "benchmarks"):
        folder = os.path.join(ROOT, "cases", folder)
        cases += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".yaml")]
    write_table(cases)
    with tempfile.TemporaryDirectory() as scratch:
        for path in cases:
            stem = os.path.basename(path)[:-5]
            if not stem.startswith(prefix):
                continue
            out = os.path.join(scratch, stem)
            run = subprocess.run([GPUFEM, "run", path, "--backend", "cpu", "-q", "-o", out] + cpu_size(path),
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print("%s: gpufem exited with %d\n%s" % (stem, run.returncode, run.stdout + run.stderr))
                continue
            with open(os.path.join(out, "report.json")) as f:
                report = json.load(f)
            last = report
            if "sweep" in report:  # the last point's own report
                with open(os.path.join(out, report["sweep"][-1]["folder"], "report.json")) as f:
                    last = json.load(f)
            dim = last["mesh"]["dim"]
            picture = os.path.join(pictures, stem + ".png")
            command = [sys.executable, os.path.join(HERE, "render_case.py"), out, "-o", picture]
            if dim == 3:
                command.append("--clip")
            subprocess.run(command, check=True, capture_output=True)
            print("%s: %s" % (stem, summary(report)))


if __name__ == "__main__":
    main()
