#!/usr/bin/python3
"""Draws the plots of `gpufem report` and `gpufem study` with matplotlib (Debian's
python3-matplotlib), each 800 x 500 pixels, and writes a run's or a sweep's report.md.

    gpufem_plots.py run   RUN_FOLDER   OUT   # residual, phases, spmv, memory .png + report.md
    gpufem_plots.py sweep SWEEP_FOLDER OUT   # errors (with rates), times .png + report.md
    gpufem_plots.py study STUDY_FOLDER OUT   # study_<metric>.png, study_bandwidth.png

gpufem runs it; it reads only the folder's report.json, spmv_timings.csv or study.json and
writes only into OUT. Exit code 0 on success, 1 with a message on stderr otherwise.
"""
import csv
import json
import math
import os
import sys

FIGSIZE = (8, 5)  # inches, at DPI: 800 x 500 pixels
DPI = 100


def fail(message):
    """Stops with a message on stderr and exit code 1."""
    sys.stderr.write("gpufem_plots.py: " + message + "\n")
    sys.exit(1)


def pyplot():
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    try:
        import matplotlib
    except ImportError:
        fail("matplotlib is not installed (Debian: apt install python3-matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def read_json(path):
    """A JSON file, or a clear error naming it."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))


def save(plt, fig, out, name):
    """Writes the figure as OUT/name at 800 x 500 pixels and closes it."""
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=DPI)
    plt.close(fig)
    return name


def note_axes(ax, text):
    """An empty plot that says why there is nothing to draw."""
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])


def plot_residual(plt, report, out):
    """The recursive residual history and the true residual of the written solution."""
    solver = report.get("solver", {})
    history = solver.get("residual_history") or []
    fig, ax = plt.subplots(figsize=FIGSIZE)
    positive = [(k, r) for k, r in enumerate(history) if r and r > 0]
    if positive:
        ax.semilogy([k for k, _ in positive], [r for _, r in positive], label="recursive ||r_k|| / ||b||")
    true_residual = solver.get("true_relative_residual", -1)
    if true_residual and true_residual > 0:
        ax.semilogy([solver.get("iterations", len(history) - 1)], [true_residual], "o", color="C3",
                    label="true ||b - A u|| / ||b|| (written u)")
    tolerance = solver.get("tolerance")
    if tolerance:
        ax.axhline(tolerance, color="grey", linestyle="--", label="tolerance")
    if not positive:
        note_axes(ax, "no residual history recorded")
    ax.set_xlabel("iteration")
    ax.set_ylabel("relative residual")
    ax.set_title("%s %s, %s: %s after %s iterations" % (solver.get("method", ""), solver.get("variant", ""),
                                                         solver.get("preconditioner", ""), solver.get("status", ""),
                                                         solver.get("iterations", "?")))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return save(plt, fig, out, "residual.png")


PHASES = ["startup", "read", "mesh", "assembly", "format_choice", "format_conversion", "solve", "errors",
          "output", "export"]


def phase_seconds(times):
    """(phase, seconds) of every phase that took time, in pipeline order."""
    out = []
    for phase in PHASES:
        value = times.get(phase, 0)
        if isinstance(value, dict):
            value = value.get("total", 0)
        if value and value > 0:
            out.append((phase, value))
    return out


def plot_phases(plt, report, out):
    """Wall time of each phase."""
    times = report.get("times", {})
    phases = phase_seconds(times)
    fig, ax = plt.subplots(figsize=FIGSIZE)
    if phases:
        names = [p for p, _ in phases][::-1]
        values = [s for _, s in phases][::-1]
        bars = ax.barh(names, values, color="C0")
        for bar, value in zip(bars, values):
            ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, " %.3g s" % value, va="center")
        ax.set_xlim(0, max(values) * 1.25)
    else:
        note_axes(ax, "no phase times")
    ax.set_xlabel("seconds")
    ax.set_title("time per phase (total %.3g s, wall %.3g s)" % (times.get("total", 0), times.get("wall", 0)))
    return save(plt, fig, out, "phases.png")


def read_spmv_csv(path):
    """The seconds of every SpMV of spmv_timings.csv (empty when absent or empty)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [float(row["seconds"]) for row in csv.DictReader(f) if row.get("seconds")]


def plot_spmv(plt, report, folder, out):
    """The time of every SpMV of the iterations, with the median."""
    seconds = read_spmv_csv(os.path.join(folder, "spmv_timings.csv"))
    fig, ax = plt.subplots(figsize=FIGSIZE)
    spmv = report.get("spmv", {})
    if seconds:
        micro = [s * 1e6 for s in seconds]
        ax.plot(range(1, len(micro) + 1), micro, ".", markersize=3, label="each SpMV")
        median = sorted(micro)[len(micro) // 2]
        ax.axhline(median, color="C3", label="median %.4g us (%.1f GB/s)" % (median, spmv.get("effective_GBps", 0)))
        ax.set_ylim(0, max(micro) * 1.1)
        ax.legend()
    else:
        note_axes(ax, "no per-SpMV times (a CUDA graph replayed the iterations, or solver.time_spmv: false)")
    ax.set_xlabel("SpMV of the iterations")
    ax.set_ylabel("microseconds")
    ax.set_title("SpMV time per application, %s, %s (%s)" % (report.get("format", ""), report.get("precision", ""),
                                                              spmv.get("clock", "")))
    return save(plt, fig, out, "spmv.png")


def plot_memory(plt, report, out):
    """Each phase's memory, estimated before the run and measured, on the host and the device."""
    phases = report.get("memory", {}).get("phases", {})
    names = [p for p in ["mesh", "assembly", "solve", "errors", "output"] if p in phases]
    fig, axes = plt.subplots(1, 2, figsize=FIGSIZE)
    for ax, side in zip(axes, ["host", "device"]):
        estimate = [phases[p]["estimate"].get(side, 0) / 2**20 for p in names]
        measured = [phases[p]["measured"].get(side, 0) / 2**20 for p in names]
        if not names or max(estimate + measured + [0]) <= 0:
            note_axes(ax, "no %s memory" % side)
        else:
            xs = range(len(names))
            ax.bar([x - 0.2 for x in xs], estimate, 0.4, label="estimate")
            ax.bar([x + 0.2 for x in xs], measured, 0.4, label="measured")
            ax.set_xticks(list(xs))
            ax.set_xticklabels(names, rotation=30)
            ax.set_ylabel("MiB (high-water mark)")
            ax.legend()
        ax.set_title(side)
    fig.suptitle("memory per phase")
    return save(plt, fig, out, "memory.png")


def fmt(value, spec="%.4g"):
    """A number for a table, or '-' when absent."""
    return spec % value if isinstance(value, (int, float)) and not isinstance(value, bool) else "-"


def run_summary(report):
    """The run's summary as Markdown table rows."""
    solver, matrix, spmv = report.get("solver", {}), report.get("matrix", {}), report.get("spmv", {})
    mesh, errors, times = report.get("mesh", {}), report.get("errors", {}), report.get("times", {})
    rows = [
        ("device", "%s (%s backend)" % (report.get("device", "?"), report.get("backend", "?"))),
        ("precision, format", "%s, %s %s" % (report.get("precision", ""), report.get("format", ""),
                                             report.get("format_parameters", ""))),
        ("mesh", "%s: %s cells, %s nodes" % (mesh.get("source", ""), mesh.get("cells", "-"), mesh.get("nodes", "-"))),
        ("unknowns, non-zeros", "%s, %s" % (report.get("unknowns", {}).get("count", "-"), matrix.get("nnz", "-"))),
        ("solver", "%s %s, %s: %s, %s iterations" % (solver.get("method", ""), solver.get("variant", ""),
                                                   solver.get("preconditioner", ""), solver.get("status", ""),
                                                   solver.get("iterations", "-"))),
        ("relative residual", "recursive %s, true %s" % (fmt(solver.get("final_relative_residual")),
                                                        fmt(solver.get("true_relative_residual")))),
        ("times", "solve %s s, total %s s, wall %s s" % (fmt(times.get("solve")), fmt(times.get("total")),
                                                         fmt(times.get("wall")))),
        ("median SpMV", "%s s, %s GB/s, %s GFLOP/s" % (fmt(spmv.get("median_seconds")), fmt(spmv.get("effective_GBps")),
                                                      fmt(spmv.get("GFLOPs")))),
    ]
    if errors:
        rows.append(("errors", "L2 %s, H1-semi %s, relative L2 %s" % (fmt(errors.get("l2")), fmt(errors.get("h1_semi")),
                                                                      fmt(errors.get("relative_l2")))))
    return ["| %s | %s |" % row for row in rows]


def report_run(folder, out):
    """A run's plots and report.md."""
    plt = pyplot()
    report = read_json(os.path.join(folder, "report.json"))
    plots = [plot_residual(plt, report, out), plot_phases(plt, report, out), plot_spmv(plt, report, folder, out),
             plot_memory(plt, report, out)]
    title = os.path.basename(report.get("case_file", "")) or os.path.basename(os.path.abspath(folder))
    text = "# Run report: %s\n\ngpufem %s; the output folder `%s`.\n\n| | |\n|---|---|\n" % (
        title, report.get("gpufem_version", ""), os.path.abspath(folder))
    text += "\n".join(run_summary(report)) + "\n\n" + "\n\n".join("![%s](%s)" % (p, p) for p in plots) + "\n"
    write_text(out, "report.md", text)


def write_text(out, name, text):
    """Writes OUT/name."""
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


def by_degree(rows):
    """{degree: rows sorted by refinement}."""
    out = {}
    for row in rows:
        out.setdefault(row.get("degree", 1), []).append(row)
    return {d: sorted(rs, key=lambda r: r.get("refine", 0)) for d, rs in sorted(out.items())}


def plot_errors(plt, rows, out):
    """L2 and H1-semi errors against h / h0 per degree with the measured rates, or against the
    degree when the sweep has one refinement."""
    fig, axes = plt.subplots(1, 2, figsize=FIGSIZE)
    refines = sorted({r.get("refine", 0) for r in rows})
    for ax, key, rate_key, name in [(axes[0], "l2_error", "l2_rate", "L2"), (axes[1], "h1_error", "h1_rate", "H1-semi")]:
        drawn = False
        for degree, rs in by_degree(rows).items():
            pts = [(0.5 ** r.get("refine", 0), r[key], r.get(rate_key, 0)) for r in rs if r.get(key, 0) > 0]
            if len(refines) > 1 and pts:
                ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", label="degree %d" % degree)
                for h, e, rate in pts:
                    if rate:
                        ax.annotate("%.2f" % rate, (h, e), textcoords="offset points", xytext=(4, 4), fontsize=8)
                drawn = True
        if len(refines) == 1:
            pts = [(r.get("degree", 1), r[key]) for r in rows if r.get(key, 0) > 0]
            if pts:
                ax.semilogy([p[0] for p in pts], [p[1] for p in pts], "o-")
                ax.set_xlabel("degree")
                drawn = True
        else:
            ax.set_xlabel("h / h0 (rates: the numbers beside the points)")
        if drawn:
            ax.grid(True, which="both", alpha=0.3)
            if len(refines) > 1:
                ax.legend(fontsize=8)
        else:
            note_axes(ax, "no %s errors (the case has no exact solution)" % name)
        ax.set_title("%s error" % name)
    return save(plt, fig, out, "errors.png")


def plot_sweep_times(plt, rows, out):
    """Solve seconds and iterations of every point."""
    fig, ax = plt.subplots(figsize=FIGSIZE)
    labels = [r.get("folder", "") for r in rows]
    ax.bar(range(len(rows)), [r.get("solve_seconds", 0) for r in rows], color="C0", label="solve seconds")
    ax.set_ylabel("solve seconds")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, rotation=60, fontsize=7)
    ax2 = ax.twinx()
    ax2.plot(range(len(rows)), [r.get("iterations", 0) for r in rows], "o", color="C3", label="iterations")
    ax2.set_ylabel("iterations")
    ax.set_title("solve time and iterations per point")
    return save(plt, fig, out, "times.png")


def report_sweep(folder, out):
    """A sweep's plots and report.md."""
    plt = pyplot()
    report = read_json(os.path.join(folder, "report.json"))
    rows = report.get("sweep") or fail("%s: the sweep has no points" % os.path.join(folder, "report.json"))
    plots = [plot_errors(plt, rows, out), plot_sweep_times(plt, rows, out)]
    first = os.path.join(folder, rows[0].get("folder", ""), "report.json")
    run = read_json(first) if os.path.exists(first) else {}
    lines = ["# Sweep report: %s" % os.path.basename(report.get("case_file", folder)), "",
             "Device: %s (%s backend), %s, format %s; gpufem %s." % (
                 run.get("device", "?"), run.get("backend", "?"), run.get("precision", "?"), run.get("format", "?"),
                 run.get("gpufem_version", "?")), "",
             "| point | unknowns | nnz/row | iterations | solve s | L2 error | L2 rate | H1 error | H1 rate |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r.get("folder"), r.get("unknowns"), fmt(r.get("nnz_per_row"), "%.1f"), r.get("iterations"),
            fmt(r.get("solve_seconds")), fmt(r.get("l2_error")), fmt(r.get("l2_rate"), "%.2f"),
            fmt(r.get("h1_error")), fmt(r.get("h1_rate"), "%.2f")))
    lines.append("")
    lines += ["![%s](%s)\n" % (p, p) for p in plots]
    lines.append("Each point's own report: `gpufem report %s/<point>`." % os.path.abspath(folder))
    write_text(out, "report.md", "\n".join(lines) + "\n")


def study_layout(study):
    """(x axis name, its labels, panel axes, choice axes) of a study."""
    axes = study.get("axes", [])
    x = study.get("x", "")
    x_labels = next((a["labels"] for a in axes if a["name"] == x), [""])
    panels = [a for a in axes if not a.get("chosen") and a["name"] != x]
    choices = [a for a in axes if a.get("chosen")]
    return x, x_labels, panels, choices


def labels_of(row, axes):
    """'label, label' of a row for the given axes."""
    return ", ".join(row["labels"].get(a["name"], "") for a in axes) or "all"


def panel_keys(study, panels):
    """The panels' labels in study order (at most 8 drawn)."""
    keys = []
    for row in study["points"]:
        key = labels_of(row, panels)
        if key not in keys:
            keys.append(key)
    return keys


def paper_points(study, metric, x, x_labels, panel_row, panels, series_row, choices):
    """(x position, value) of the paper's values of this metric at this panel and series."""
    out = []
    for v in study.get("paper", {}).get("values", []):
        at = v.get("at", {})
        if v.get("metric") != metric or at.get(x) not in x_labels:
            continue
        if all(at.get(a["name"], panel_row["labels"][a["name"]]) == panel_row["labels"][a["name"]] for a in panels) and \
           all(at.get(a["name"], series_row["labels"][a["name"]]) == series_row["labels"][a["name"]] for a in choices):
            out.append((x_labels.index(at[x]), v["value"]))
    return out


def draw_panel(ax, study, metric, rows, layout):
    """One panel: a line per choice over the x axis, the paper's values as open markers."""
    x, x_labels, panels, choices = layout
    series = {}
    for row in rows:
        value = row.get("metrics", {}).get(metric, 0)
        if value > 0 and row["labels"].get(x, "") in x_labels:
            series.setdefault(labels_of(row, choices), []).append((x_labels.index(row["labels"].get(x, "")), value, row))
    for i, (name, pts) in enumerate(series.items()):
        pts.sort(key=lambda p: p[0])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color="C%d" % (i % 10), label=name)
        paper = paper_points(study, metric, x, x_labels, pts[0][2], panels, pts[0][2], choices)
        if paper:
            ax.plot([p[0] for p in paper], [p[1] for p in paper], "s", mfc="none", color="C%d" % (i % 10),
                    label="%s (paper)" % name)
    ax.set_xticks(range(len(x_labels)))
    ax.set_xticklabels(x_labels, fontsize=8)
    values = [p[1] for pts in series.values() for p in pts]
    if values and max(values) > 30 * min(values):
        ax.set_yscale("log")
    if not values:
        note_axes(ax, "no point ran")
    ax.grid(True, alpha=0.3)
    return bool(values)


def plot_study_metric(plt, study, metric, unit, out, name, line=None):
    """The metric against the x axis, a panel per combination of the other axes' labels."""
    layout = study_layout(study)
    keys = panel_keys(study, layout[2])[:8]
    cols = min(4 if len(keys) > 6 else 3, len(keys))
    rows_n = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=FIGSIZE, squeeze=False)
    for ax, key in zip(axes.flat, keys):
        drew = draw_panel(ax, study, metric, [r for r in study["points"] if labels_of(r, layout[2]) == key], layout)
        if line and drew:
            ax.axhline(line[0], color="grey", linestyle="--", label=line[1])
        ax.set_title(", ".join("%s %s" % (a["name"], label) for a, label in zip(layout[2], key.split(", ")))
                     if layout[2] else "", fontsize=9)
        ax.set_xlabel(layout[0], fontsize=8)
        ax.set_ylabel(unit, fontsize=8)
    for ax in list(axes.flat)[len(keys):]:
        ax.set_visible(False)
    handles, names = axes.flat[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, names, loc="lower center", ncol=min(4, len(names)), fontsize=7)
    fig.suptitle("%s: %s (%s)" % (study.get("title", ""), metric, study.get("device", "")), fontsize=10)
    fig.tight_layout(rect=(0, 0.1 if handles else 0, 1, 1))
    fig.savefig(os.path.join(out, name), dpi=DPI)
    plt.close(fig)


def report_study(folder, out):
    """A study's plots: its metric, and the SpMV's bandwidth against the measured copy rate."""
    plt = pyplot()
    study = read_json(os.path.join(folder, "study.json"))
    if not study.get("points"):
        fail("%s: the study has no points" % os.path.join(folder, "study.json"))
    metric = study["metric"]
    plot_study_metric(plt, study, metric["name"], metric["unit"], out, "study_%s.png" % metric["name"])
    if any(r.get("metrics", {}).get("spmv_GBps", 0) > 0 for r in study["points"]) and metric["name"] != "spmv_GBps":
        copy = study.get("copy_bandwidth_GBps", 0)
        plot_study_metric(plt, study, "spmv_GBps", "GB/s", out, "study_spmv_GBps.png",
                          (copy, "copy %.0f GB/s" % copy) if copy > 0 else None)


def main(argv):
    """gpufem_plots.py run|sweep|study FOLDER OUT"""
    if len(argv) != 4 or argv[1] not in ("run", "sweep", "study"):
        fail("usage: gpufem_plots.py run|sweep|study FOLDER OUT")
    kind, folder, out = argv[1:]
    os.makedirs(out, exist_ok=True)
    {"run": report_run, "sweep": report_sweep, "study": report_study}[kind](folder, out)


if __name__ == "__main__":
    main(sys.argv)
