#!/usr/bin/python3
"""Regret against spend on the learning-curve benchmark, as an SVG plot: one
panel per task, one line per method (the median over seeds of regret@spend)
with a band from the first to the third quartile.

  regret_plot.py [--target-spend 50] --out plot.svg hptune.tsv optuna.tsv

Reads the rows time_to_quality.py reads (curve_replay's and
optuna_curves.py's, run with dense checkpoints). Spend is in full trainings;
regret is drawn on a log scale, a regret of 0 (the best configuration
reached) at the axis' floor, and a quartile of seeds that had not ended a
trial yet leaves a gap. A dashed line marks time_to_quality.py's target
(the GP without stopping's median regret at --target-spend, with the
fewest workers the rows hold); each method is a side, designer, rule and
worker count. Standard library only.
"""

import argparse
import math
import sys
from xml.sax.saxutils import escape

import time_to_quality

PANEL_W, PANEL_H = 360, 250
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 56, 12, 28, 36
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#17becf", "#bcbd22"]


def quantile(ordered, q):
    """The q-quantile of ascending `ordered`, interpolated between the two
    values around it (as statistics.median for q = 0.5); infinite when
    either is (runs with nothing ended yet sort last)."""
    position = q * (len(ordered) - 1)
    low, high = math.floor(position), math.ceil(position)
    if math.isinf(ordered[low]) or math.isinf(ordered[high]):
        return math.inf
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def quartile_curves(runs):
    """[(spend, first quartile, median, third quartile)] over the runs at
    every checkpoint."""
    out = []
    for spend, column in time_to_quality.spends(runs[0]):
        ordered = sorted(time_to_quality.value(r[column]) for r in runs)
        out.append((spend,) + tuple(quantile(ordered, q)
                                    for q in (0.25, 0.5, 0.75)))
    return out


def log_floor(curves):
    """The y axis' lowest decade: below the smallest positive regret."""
    positive = [v for curve in curves for point in curve for v in point[1:]
                if 0 < v < math.inf]
    if not positive:
        return -3
    return math.floor(math.log10(min(positive)))


def log_ceiling(curves, floor):
    finite = [v for curve in curves for point in curve for v in point[1:]
              if 0 < v < math.inf]
    top = math.ceil(math.log10(max(finite))) if finite else floor + 1
    return max(top, floor + 1)


class Panel:
    """Maps spend and regret to a panel's pixels."""

    def __init__(self, x0, y0, max_spend, floor, ceiling):
        self.x0, self.y0 = x0, y0
        self.max_spend, self.floor, self.ceiling = max_spend, floor, ceiling

    def x(self, spend):
        width = PANEL_W - MARGIN_L - MARGIN_R
        return self.x0 + MARGIN_L + width * spend / self.max_spend

    def y(self, regret):
        height = PANEL_H - MARGIN_T - MARGIN_B
        exponent = self.floor if regret <= 0 else max(
            self.floor, math.log10(regret))
        share = (exponent - self.floor) / (self.ceiling - self.floor)
        return self.y0 + MARGIN_T + height * (1 - share)


def runs_of(points, index):
    """The points' runs of finite values at `index`, split at gaps."""
    runs, current = [], []
    for p in points:
        if math.isfinite(p[index]):
            current.append(p)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def draw_method(panel, points, colour):
    parts = []
    for run in runs_of(points, 3):
        upper = [(panel.x(p[0]), panel.y(p[3])) for p in run]
        # The first quartile is at most the third: finite along the run.
        lower = [(panel.x(p[0]), panel.y(p[1])) for p in reversed(run)]
        polygon = " ".join("%.1f,%.1f" % xy for xy in upper + lower)
        parts.append('<polygon class="band" points="%s" fill="%s" '
                     'fill-opacity="0.15" stroke="none"/>' % (polygon, colour))
    for run in runs_of(points, 2):
        line = " ".join("%.1f,%.1f" % (panel.x(p[0]), panel.y(p[2]))
                        for p in run)
        parts.append('<polyline class="median" points="%s" fill="none" '
                     'stroke="%s" stroke-width="1.6"/>' % (line, colour))
    return parts


def draw_axes(panel, task):
    parts = []
    left, right = panel.x(0), panel.x(panel.max_spend)
    top, bottom = panel.y(10 ** panel.ceiling), panel.y(10 ** panel.floor)
    parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" '
                 'fill="none" stroke="#999"/>' % (left, top, right - left,
                                                   bottom - top))
    parts.append('<text x="%.1f" y="%.1f" font-weight="bold">%s</text>' %
                 (left, panel.y0 + 18, escape(task)))
    for exponent in range(panel.floor, panel.ceiling + 1):
        y = panel.y(10 ** exponent)
        label = "1e%d" % exponent
        if exponent == panel.floor:
            label = "\u2264" + label
        parts.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" '
                     'stroke="#eee"/>' % (left, right, y, y))
        parts.append('<text x="%.1f" y="%.1f" text-anchor="end">%s</text>'
                     % (left - 4, y + 4, label))
    for tick in range(0, int(panel.max_spend) + 1, 25):
        x = panel.x(tick)
        parts.append('<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>'
                     % (x, bottom + 14, tick))
    parts.append('<text x="%.1f" y="%.1f" text-anchor="middle">spend (full '
                 'trainings)</text>' % ((left + right) / 2, bottom + 30))
    return parts


def draw_target(panel, runs, target_spend):
    """time_to_quality.py's target: the GP without stopping's median regret
    at `target_spend`, dashed across the panel."""
    column = "regret@%g" % target_spend
    if not runs or column not in runs[0]:
        return []
    ordered = sorted(time_to_quality.value(r[column]) for r in runs)
    target = quantile(ordered, 0.5)
    if not math.isfinite(target):
        return []
    y = panel.y(target)
    return ['<line class="target" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" '
            'stroke="black" stroke-dasharray="4,3"/>' %
            (panel.x(0), panel.x(panel.max_spend), y, y),
            '<text x="%.1f" y="%.1f" text-anchor="end">target %.4g</text>' %
            (panel.x(panel.max_spend) - 2, y - 3, target)]


def svg(rows, target_spend=50):
    groups = time_to_quality.groups_of(rows)
    tasks = sorted({k[0] for k in groups})
    methods = sorted({k[1:] for k in groups})
    colour = {m: COLOURS[i % len(COLOURS)] for i, m in enumerate(methods)}
    legend_h = 18 * len(methods) + 16
    width, height = PANEL_W * len(tasks), PANEL_H + legend_h
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'font-family="sans-serif" font-size="11">' % (width, height),
             '<rect width="100%" height="100%" fill="white"/>']
    for i, task in enumerate(tasks):
        curves = {m: quartile_curves(groups[(task,) + m])
                  for m in methods if (task,) + m in groups}
        floor = log_floor(curves.values())
        ceiling = log_ceiling(curves.values(), floor)
        max_spend = max(p[0] for c in curves.values() for p in c)
        panel = Panel(PANEL_W * i, 0, max_spend, floor, ceiling)
        parts.append('<g class="panel" data-task="%s">' % escape(task))
        parts += draw_axes(panel, task + ": regret (median, quartiles)")
        parts += draw_target(panel,
                             time_to_quality.target_runs(groups, task)[1],
                             target_spend)
        for m, points in curves.items():
            parts.append('<g class="method" data-method="%s">' %
                         escape(time_to_quality.method_label(m)))
            parts += draw_method(panel, points, colour[m])
            parts.append("</g>")
        parts.append("</g>")
    for j, m in enumerate(methods):
        y = PANEL_H + 12 + 18 * j
        parts.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" '
                     'stroke-width="3"/>' % (MARGIN_L, MARGIN_L + 24, y, y,
                                             colour[m]))
        parts.append('<text class="legend" x="%d" y="%d">%s</text>' %
                     (MARGIN_L + 30, y + 4,
                      escape(time_to_quality.method_label(m))))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="the SVG file to write")
    parser.add_argument("--target-spend", type=float, default=50)
    parser.add_argument("rows", nargs="+")
    args = parser.parse_args()
    rows = time_to_quality.read_rows(args.rows)
    if not rows:
        sys.exit("regret_plot.py: no rows in %s" % ", ".join(args.rows))
    with open(args.out, "w") as f:
        f.write(svg(rows, args.target_spend))


if __name__ == "__main__":
    main()
