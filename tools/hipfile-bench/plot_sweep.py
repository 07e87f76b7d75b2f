#!/usr/bin/env python3
"""Draw the results of ``hipfile-bench --sweep`` as an SVG line chart of GB/s against call size.

Usage::

    hipfile-bench --sweep 4M,16M,64M,256M,1G --json > sweep.json
    python3 plot_sweep.py sweep.json -o sweep.svg
    python3 plot_sweep.py sweep.json -o rand.svg --workload rand-read --title "H200, cached"

The input is the one JSON document that ``--sweep`` with ``--json`` prints ("-" reads standard
input). One chart shows one workload (by default the first in the document): the library's first
method, the ceiling, the pinned copy and the naive path, each where it ran, with the call size on
a log2 axis. Without ``-o`` the SVG goes to standard output. Standard library only.
"""

import argparse
import json
import math
import sys
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 820, 500
LEFT, RIGHT, TOP, BOTTOM = 80, 190, 60, 70

# Series in drawing order: how each is found in a sweep row, and its colour and dash.
SERIES = (
    ("library", "#1f77b4", ""),
    ("ceiling", "#d62728", "8 4"),
    ("pinned", "#2ca02c", "3 3"),
    ("naive", "#7f7f7f", "1 4"),
)


def size_text(size):
    """4194304 -> '4 MiB', as hipfile-bench writes sizes."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or size % 1024 != 0:
            return "%d %s" % (size, unit)
        size //= 1024
    return "%d TiB" % size


def series_label(row, kind):
    """The label of the result the series named kind stands for in row, or None."""
    gbps = row.get("gbps", {})
    if kind == "library":
        return row.get("library") or None
    if kind == "pinned":
        return next((label for label in gbps if label.startswith("pinned-")), None)
    return kind if kind in gbps else None


def collect(rows):
    """{series: (label, [(size, gbps or None), ...])} for every series that ran at some size."""
    found = {}
    for kind, _, _ in SERIES:
        points, label = [], None
        for row in rows:
            this = series_label(row, kind)
            value = row["gbps"].get(this) if this else None
            label = label or (this if value is not None else None)
            points.append((row["io_size"], value))
        if label is not None:
            found[kind] = (label, points)
    return found


def nice_step(top, ticks=5):
    """A step of 1, 2 or 5 times a power of ten giving about ``ticks`` ticks up to top."""
    raw = top / ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def draw(rows, title):
    """The SVG text of one workload's rows, sorted by call size."""
    rows = sorted(rows, key=lambda row: row["io_size"])
    series = collect(rows)
    sizes = [row["io_size"] for row in rows]
    values = [v for _, points in series.values() for _, v in points if v is not None]
    y_top = max(values) if values else 1.0
    step = nice_step(y_top * 1.05 if y_top > 0 else 1.0)
    y_max = step * math.ceil(y_top * 1.05 / step) if y_top > 0 else step
    x_lo, x_hi = math.log2(min(sizes)), math.log2(max(sizes))
    if x_hi - x_lo < 1:
        x_lo, x_hi = x_lo - 0.5, x_hi + 0.5
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x_of(size):
        return LEFT + (math.log2(size) - x_lo) / (x_hi - x_lo) * plot_w

    def y_of(gbps):
        return TOP + plot_h - gbps / y_max * plot_h

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="sans-serif" font-size="13">' % (WIDTH, HEIGHT, WIDTH, HEIGHT),
        '<rect width="100%" height="100%" fill="white"/>',
        '<text x="%d" y="30" font-size="17" text-anchor="middle">%s</text>'
        % (LEFT + plot_w // 2, escape(title)),
    ]
    # Grid and y ticks.
    tick = 0.0
    while tick <= y_max + step / 2:
        y = y_of(tick)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (LEFT, y, LEFT + plot_w, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (LEFT - 8, y + 4, tick))
        tick += step
    # x ticks at each power of two the sizes span, thinned to about a dozen.
    first, last = math.ceil(x_lo), math.floor(x_hi)
    every = max(1, (last - first) // 12 + 1)
    for power in range(first, last + 1, every):
        x = x_of(2 ** power)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   % (x, TOP, x, TOP + plot_h))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (x, TOP + plot_h + 20, size_text(2 ** power)))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>'
               % (LEFT, TOP, plot_w, plot_h))
    out.append('<text x="%d" y="%d" text-anchor="middle">call size (bytes per call, log2 scale)'
               '</text>' % (LEFT + plot_w // 2, HEIGHT - 20))
    out.append('<text x="20" y="%d" text-anchor="middle" transform="rotate(-90 20 %d)">GB/s '
               '(10^9 bytes per second)</text>' % (TOP + plot_h // 2, TOP + plot_h // 2))
    # The lines: a size where a series did not run breaks its line.
    legend_y = TOP + 10
    for kind, colour, dash in SERIES:
        if kind not in series:
            continue
        label, points = series[kind]
        dash_attr = ' stroke-dasharray="%s"' % dash if dash else ""
        out.append('<g class="series" id="series-%s">' % escape(kind))
        segment = []
        for size, value in points + [(None, None)]:
            if value is not None:
                segment.append("%.1f,%.1f" % (x_of(size), y_of(value)))
                continue
            if len(segment) > 1:
                out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>'
                           % (" ".join(segment), colour, dash_attr))
            segment = []
        for size, value in points:
            if value is not None:
                out.append('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s, %s: %.3f '
                           'GB/s</title></circle>'
                           % (x_of(size), y_of(value), colour, escape(label), size_text(size),
                              value))
        out.append("</g>")
        x = LEFT + plot_w + 20
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
                   % (x, legend_y, x + 30, legend_y, colour, dash_attr))
        out.append('<text x="%d" y="%d">%s</text>' % (x + 38, legend_y + 4, escape(label)))
        legend_y += 22
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(
        description="Draw hipfile-bench --sweep --json results as an SVG line chart.")
    parser.add_argument("input", help="the sweep's JSON document, or - for standard input")
    parser.add_argument("-o", "--output", help="SVG file to write (default: standard output)")
    parser.add_argument("--workload", help="workload to draw (default: the first in the document)")
    parser.add_argument("--title", help="chart title (default: workload, threads and memory)")
    args = parser.parse_args(argv)

    try:
        if args.input == "-":
            document = json.load(sys.stdin)
        else:
            with open(args.input, encoding="utf-8") as f:
                document = json.load(f)
    except (OSError, ValueError) as e:
        print("plot_sweep.py: cannot read %s: %s" % (args.input, e), file=sys.stderr)
        return 2
    rows = document.get("sweep") if isinstance(document, dict) else None
    if not rows:
        print("plot_sweep.py: %s holds no \"sweep\" array: run hipfile-bench with --sweep and "
              "--json" % args.input, file=sys.stderr)
        return 2
    workload = args.workload or rows[0]["workload"]
    rows = [row for row in rows if row["workload"] == workload]
    if not rows:
        print("plot_sweep.py: no results for workload %s" % workload, file=sys.stderr)
        return 2
    title = args.title
    if title is None:
        config = next((run["config"] for run in document.get("runs", [])
                       if run.get("config", {}).get("workload") == workload), {})
        threads = config.get("threads", "?")
        title = "hipfile-bench %s: %s caller thread%s, %s memory" % (
            workload, threads, "" if threads == 1 else "s", config.get("mem", "?"))
    svg = draw(rows, title)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(svg)
    else:
        sys.stdout.write(svg)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
