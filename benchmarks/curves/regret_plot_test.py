#!/usr/bin/python3
"""regret_plot.py on hand-made rows: quartiles interpolate as the median
does and are infinite where runs had nothing ended; the SVG is well-formed,
with one panel per task, a median line and a band per method, and a legend
entry each. Standard library only."""

import math
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regret_plot  # noqa: E402
from halving_bound_test import check  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def row(task, side, designer, rule, regrets):
    r = {"task": task, "side": side, "designer": designer, "rule": rule}
    for spend, v in zip((1, 2, 4), regrets):
        r["regret@%g" % spend] = str(v)
    return r


ROWS = [
    row("a", "hptune", "gp", "none", [1.0, 0.5, 0.25]),
    row("a", "hptune", "gp", "none", [1.0, 0.5, 0.125]),
    row("a", "hptune", "gp", "none", [1.0, 0.5, 0.5]),
    row("a", "hptune", "gp", "none", [1.0, 0.5, 0.0]),
    row("a", "optuna", "tpe", "hyperband", ["nan", "nan", 0.5]),
    row("b", "hptune", "gp", "none", [0.1, 0.01, 0.001]),
]


def main():
    failed = 0
    ordered = [0.0, 0.125, 0.25, 0.5]
    failed += check("median", regret_plot.quantile(ordered, 0.5), 0.1875)
    failed += check("first quartile", regret_plot.quantile(ordered, 0.25),
                    0.09375)
    failed += check("infinite past the ended runs",
                    math.isinf(regret_plot.quantile([0.5, math.inf], 0.75)),
                    True)
    curve = regret_plot.quartile_curves(ROWS[:4])
    failed += check("spends", [p[0] for p in curve], [1.0, 2.0, 4.0])
    failed += check("median at 4", curve[2][2], 0.1875)
    root = ET.fromstring(regret_plot.svg(ROWS))
    panels = root.findall(SVG + "g[@class='panel']")
    failed += check("panels", [p.get("data-task") for p in panels],
                    ["a", "b"])
    methods = panels[0].findall(SVG + "g[@class='method']")
    failed += check("methods of a", [m.get("data-method") for m in methods],
                    ["hptune gp none", "optuna tpe hyperband"])
    failed += check("a median line each", [
        len(m.findall(SVG + "polyline[@class='median']")) for m in methods],
        [1, 1])
    failed += check("a band each", [
        len(m.findall(SVG + "polygon[@class='band']")) for m in methods],
        [1, 1])
    failed += check("a target line where the GP without stopping is", [
        len(p.findall(SVG + "line[@class='target']")) for p in panels],
        [0, 0])
    root4 = ET.fromstring(regret_plot.svg(ROWS, target_spend=4))
    failed += check("the target at spend 4", [
        len(p.findall(SVG + "line[@class='target']"))
        for p in root4.findall(SVG + "g[@class='panel']")], [1, 1])
    failed += check("legend", [t.text for t in
                               root.findall(SVG + "text[@class='legend']")],
                    ["hptune gp none", "optuna tpe hyperband"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
