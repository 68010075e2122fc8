#!/usr/bin/env python3
"""Joins our half (benches/peer.rs) and pygame's (pygame_peer.py) of the peer benchmark.

Both print CSV `case,op,ns,result,median_ns,max_ns,spread_pct,point`; rows are joined
by (case, op). Standard library only.

  compare.py check OURS.csv PYGAME.csv
      Results only (from --check runs). Must agree exactly: overlap's hit or miss and
      its point (the first pixel of the overlap in row-major order), overlap_area's
      count, the pixels set after erase and after draw, and connected_components'
      number of components, pixels in all of them and in the largest. The rotated ops are listed when they differ but do not fail: each half
      samples B turned its own way (pygame rotates the surface with its own
      interpolation, we map pixel centres), so grazing hits may differ. Exit 1 on any
      difference that must not be, or a row missing from either half.

  compare.py report RESULTS_DIR [--svg PATH] [--previous DIR]
      Timings of several passes (RESULTS_DIR/ours-N.csv and pygame-N.csv, N = 1, 2…, as
      bench.sh writes them). A row's time is the best over the passes of each pass's
      `ns` (its third-best batch; for our half, the best that another pass confirms
      within 5%, see OURS_CONFIRM), its spread the range of those, (max - min) / best.
      The best pass rather than the median: on a machine shared with other work, some
      calls (pygame's rotate of a 512 px sprite, which writes 2 MB) take 0.55 ms in
      some passes and 1 ms in others, and how many passes were slow changes from run to
      run; their best pass does not (within 10% here, where the median moved by 26%).
      Prints every row, then the table of ratios, ours / pygame per op and
      size: geometric mean over the cases, worst case in brackets (below 1 is faster).
      --svg writes that as a chart; --previous prints how far this run's times and
      ratios moved from an earlier run's, on the rows above 1 µs.
"""
import csv
import glob
import math
import os
import platform
import re
import statistics
import sys

OPS = ("overlap", "overlap_area", "rotated_overlap", "rotated_cached", "erase", "draw",
       "connected_components")
EXACT = ("overlap", "overlap_area", "erase", "draw", "connected_components")
OP_LABELS = {
    "overlap": "overlap",
    "overlap_area": "overlap_area",
    "rotated_overlap": "rotated_overlap (from scratch for the angle)",
    "rotated_cached": "rotated_cached (angle unchanged)",
    "erase": "erase (and its undo)",
    "draw": "draw (and its undo)",
    "connected_components": "connected_components (terrain)",
}


def load(path):
    with open(path) as f:
        return {(r["case"], r["op"]): r for r in csv.DictReader(f) if r["op"] in OPS}


def size_of(case):
    """The size in a case name such as `ring_512_hole`: a sprite's side, a terrain's
    width (`terrain_2048_whole`, 2,048 x 1,024)."""
    return int(case.split("_")[1])


def check(ours_path, peer_path):
    ours, peer = load(ours_path), load(peer_path)
    hard, soft = [], []
    for key in sorted(set(ours) | set(peer)):
        o, p = ours.get(key), peer.get(key)
        if o is None or p is None:
            hard.append(f"{key[0]} {key[1]}: only in {'pygame' if o is None else 'ours'}")
            continue
        if (o["result"], o["point"]) != (p["result"], p["point"]):
            line = (f"{key[0]} {key[1]}: ours {o['result']} {o['point']!r}, "
                    f"pygame {p['result']} {p['point']!r}")
            (hard if key[1] in EXACT else soft).append(line)
    exact = sum(1 for k in peer if k[1] in EXACT)
    for line in hard:
        print("DIFFERS:", line)
    for line in soft:
        print("differs (rotated, allowed):", line)
    per_op = ", ".join(f"{sum(1 for k in peer if k[1] == op)} {op}" for op in EXACT)
    print(f"check: {exact} exact rows compared ({per_op}), {len(hard)} differ; "
          f"{len(peer) - exact} rotated rows, {len(soft)} differ (allowed)")
    return 1 if hard else 0


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
    except OSError:
        return platform.processor() or platform.machine()

    def field(name):
        m = re.search(rf"^{name}\s*:\s*(.*)$", info, re.M)
        return m.group(1).strip() if m else "?"

    cpus = len(re.findall(r"^processor\s*:", info, re.M))
    return (f"{field('model name')} (family {field('cpu family')} model {field('model')}), "
            f"{cpus} logical CPUs")


def passes(directory, side):
    paths = glob.glob(os.path.join(directory, f"{side}-*.csv"))
    paths.sort(key=lambda p: int(re.search(r"-(\d+)\.csv$", p).group(1)))
    return [load(p) for p in paths]


# Our half's time for a row is its best pass that another pass confirms within this
# fraction. A lone fast pass is left out: our calls of 0.2 ms (connected components of the
# 2,048-px terrain) ran one pass in 8 about 10% faster than the rest, in one run and not the
# next (when the other core idles, this one clocks higher), which moved that row by 10.2%
# between two runs; with the rule, no row of ours above 1 µs moved by more than 6.1% in
# the same two runs. pygame's half keeps its best pass: its rotate rows are bimodal (0.55
# or 1 ms a call, by load), and at times only one pass of 8 is in the fast mode. Leaving
# out a lone fast pass of ours can only raise our time, never lower it.
OURS_CONFIRM = 0.05


def confirmed_best(ns, confirm):
    """The lowest of `ns` that another value confirms within `confirm` of it (the highest
    if none does)."""
    ns = sorted(ns)
    return next((a for a, b in zip(ns, ns[1:]) if b <= a * (1 + confirm)), ns[-1])


def summarise(runs, confirm=None):
    """(case, op) -> (best, median, spread) of the passes' `ns`, and the results. With
    `confirm`, best is the lowest pass confirmed by another (see OURS_CONFIRM)."""
    out, results = {}, {}
    for key in runs[0]:
        ns = [float(run[key]["ns"]) for run in runs if key in run]
        best = confirmed_best(ns, confirm) if confirm is not None else min(ns)
        out[key] = (best, statistics.median(ns), (max(ns) - best) / best)
        results[key] = {run[key]["result"] for run in runs if key in run}
    return out, results


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def fmt_ns(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def fmt_ratio(r):
    return f"{r:.3f}" if r >= 0.01 else f"{r:.2g}"


def report(directory, svg_path=None, previous=None):
    ours_runs, peer_runs = passes(directory, "ours"), passes(directory, "pygame")
    if not ours_runs or not peer_runs:
        sys.exit(f"compare.py: no ours-N.csv / pygame-N.csv in {directory}")
    ours, ours_results = summarise(ours_runs, OURS_CONFIRM)
    peer, peer_results = summarise(peer_runs)
    keys = [k for k in peer if k in ours]
    missing = [k for k in peer if k not in ours]

    print(f"{'case':24} {'op':20} {'ours':>10} {'median':>10} {'spread':>7} "
          f"{'pygame':>10} {'median':>10} {'spread':>7} {'ratio':>8}")
    ratios, differ = {}, []
    for key in keys:
        (o, o_median, o_spread), (p, p_median, p_spread) = ours[key], peer[key]
        r = o / p
        ratios[key] = r
        flag = ""
        if ours_results[key] != peer_results[key]:
            flag = f"  result: ours {sorted(ours_results[key])}, pygame {sorted(peer_results[key])}"
            differ.append(key)
        print(f"{key[0]:24} {key[1]:20} {fmt_ns(o):>10} {fmt_ns(o_median):>10} {o_spread:6.1%} "
              f"{fmt_ns(p):>10} {fmt_ns(p_median):>10} {p_spread:6.1%} {fmt_ratio(r):>8}{flag}")

    sizes = sorted({size_of(k[0]) for k in keys})
    table = {}
    for op in OPS:
        for size in sizes:
            rs = [r for k, r in ratios.items() if k[1] == op and size_of(k[0]) == size]
            if rs:
                table[op, size] = (geomean(rs), max(rs), len(rs))

    print()
    kernel = word_kernel(directory)
    print(f"CPU: {cpu_model()}; our word kernel: {kernel}")
    print(f"{len(ours_runs)} passes of each half. A row's time is its best pass's (ours: "
          f"the best that another confirms within {OURS_CONFIRM:.0%}), median the median "
          f"pass's; spread = (max - min) / min over the passes.")
    worst = max(keys, key=lambda k: max(ours[k][2], peer[k][2]))
    print(f"Largest spread: ours {max(v[2] for v in ours.values()):.1%}, "
          f"pygame {max(v[2] for v in peer.values()):.1%} ({worst[0]} {worst[1]})")
    print(f"{len(differ)} rows whose results differ "
          f"({sum(1 for k in differ if k[1] in EXACT)} that must not)")
    if missing:
        print(f"{len(missing)} pygame rows have no row of ours, e.g. {missing[:3]}")
    print()
    print("Ratios, ours / pygame (below 1 is faster): geometric mean over the cases, "
          "worst case in brackets")
    print()
    print("| op | " + " | ".join(f"{s} px" for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for op in OPS:
        cells = []
        for size in sizes:
            if (op, size) in table:
                g, w, _ = table[op, size]
                cells.append(f"{fmt_ratio(g)} ({fmt_ratio(w)})")
            else:
                cells.append("")
        print(f"| `{op}` | " + " | ".join(cells) + " |")

    if previous:
        agreement(directory, previous)
    if svg_path:
        write_svg(svg_path, table, ratios, sizes, f"{cpu_model()}; word kernel {kernel}")
        print(f"\nchart: {svg_path}")
    bad = [k for k in differ if k[1] in EXACT]
    return 1 if bad or missing else 0


def word_kernel(directory):
    for path in sorted(glob.glob(os.path.join(directory, "ours-*.log"))):
        with open(path) as f:
            m = re.search(r"word kernel: (\w+)", f.read())
        if m:
            return m.group(1)
    return "?"


def agreement(directory, previous):
    """How far each row moved since the previous run, over the rows above 1 µs."""
    now_o, _ = summarise(passes(directory, "ours"), OURS_CONFIRM)
    now_p, _ = summarise(passes(directory, "pygame"))
    try:
        old_o, _ = summarise(passes(previous, "ours"), OURS_CONFIRM)
        old_p, _ = summarise(passes(previous, "pygame"))
    except (IndexError, ValueError):
        print(f"\nno previous run in {previous} to compare with")
        return
    print("\nAgainst the previous run, largest |this / previous - 1| over the rows above 1 µs "
          "(for ratios, above 1 µs on either side in both runs):")
    for name, now, old, both in (("ours", now_o, old_o, None), ("pygame", now_p, old_p, None),
                                 ("ratio", now_o, old_o, (now_p, old_p))):
        worst, where, rows = 0.0, None, 0
        for key in now:
            if key not in old:
                continue
            if both:
                p_now, p_old = both
                if key not in p_now or key not in p_old:
                    continue
                if max(now[key][0], p_now[key][0]) < 1e3 or max(old[key][0], p_old[key][0]) < 1e3:
                    continue
                moved = (now[key][0] / p_now[key][0]) / (old[key][0] / p_old[key][0]) - 1
            else:
                if now[key][0] < 1e3 or old[key][0] < 1e3:
                    continue
                moved = now[key][0] / old[key][0] - 1
            rows += 1
            if abs(moved) > abs(worst):
                worst, where = moved, key
        label = f"{where[0]} {where[1]}" if where else "-"
        print(f"  {name:7} {worst:+7.1%} over {rows} rows (at {label})")


def write_svg(path, table, ratios, sizes, subtitle):
    """The ratio table as a chart: one line per op through the geometric means, a dot
    per case, log scale. Hand-written SVG: no plotting library in the venv, and a text
    file that diffs."""
    width, height = 760, 460
    left, right, top, bottom = 70, 230, 50, 60
    plot_w, plot_h = width - left - right, height - top - bottom
    all_r = list(ratios.values())
    lo = math.floor(math.log10(min(all_r)))
    hi = max(0, math.ceil(math.log10(max(all_r))))

    def x_of(size):
        i = sizes.index(size)
        return left + plot_w * (i + 0.5) / len(sizes)

    def y_of(r):
        return top + plot_h * (hi - math.log10(r)) / (hi - lo)

    colours = {"overlap": "#1f77b4", "overlap_area": "#ff7f0e",
               "rotated_overlap": "#2ca02c", "rotated_cached": "#d62728",
               "erase": "#9467bd", "draw": "#8c564b", "connected_components": "#e377c2"}
    nudge = {"overlap": -21, "overlap_area": -14, "rotated_overlap": -7, "rotated_cached": 0,
             "erase": 7, "draw": 14, "connected_components": 21}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="20" font-size="15">pixel_collide / pygame.mask time '
        f'(below 1: pixel_collide is faster)</text>',
        f'<text x="{left}" y="37" fill="#555">{escape(subtitle)}</text>',
    ]
    for e in range(lo, hi + 1):
        y = y_of(10.0 ** e)
        stroke = "#000" if e == 0 else "#ddd"
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" '
                   f'stroke="{stroke}"/>')
        label = f"{10.0 ** e:g}"
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    out.append(f'<text x="16" y="{top + plot_h / 2}" transform="rotate(-90 16 '
               f'{top + plot_h / 2})" text-anchor="middle">ratio, log scale</text>')
    for size in sizes:
        out.append(f'<text x="{x_of(size):.1f}" y="{top + plot_h + 20}" '
                   f'text-anchor="middle">{size} px</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{top + plot_h + 42}" '
               f'text-anchor="middle">sprite size (square), terrain width (2:1)</text>')
    for op in OPS:
        colour = colours[op]
        for (case, o), r in ratios.items():
            if o == op:
                out.append(f'<circle cx="{x_of(size_of(case)) + nudge[op]:.1f}" '
                           f'cy="{y_of(r):.1f}" r="2.5" fill="{colour}" fill-opacity="0.35">'
                           f'<title>{case} {op}: {r:.4g}</title></circle>')
        points = [(x_of(s) + nudge[op], y_of(table[op, s][0])) for s in sizes
                  if (op, s) in table]
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                   % (colour, " ".join(f"{x:.1f},{y:.1f}" for x, y in points)))
        for (x, y), s in zip(points, [s for s in sizes if (op, s) in table]):
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="{colour}">'
                       f'<title>{op} {s} px: geometric mean {table[op, s][0]:.4g}</title>'
                       f'</circle>')
    for i, op in enumerate(OPS):
        y = top + 10 + 22 * i
        x = left + plot_w + 16
        out.append(f'<circle cx="{x}" cy="{y}" r="4.5" fill="{colours[op]}"/>')
        out.append(f'<text x="{x + 10}" y="{y + 4}">{op}</text>')
    y = top + 10 + 22 * len(OPS) + 8
    out.append(f'<text x="{left + plot_w + 6}" y="{y}" fill="#555">big dots: geometric mean</text>')
    out.append(f'<text x="{left + plot_w + 6}" y="{y + 16}" fill="#555">small dots: one case each</text>')
    out.append("</svg>")
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def main(argv):
    if len(argv) == 3 and argv[0] == "check":
        return check(argv[1], argv[2])
    if argv and argv[0] == "report" and len(argv) >= 2:
        opts = dict(zip(argv[2::2], argv[3::2]))
        return report(argv[1], opts.get("--svg"), opts.get("--previous"))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
