#!/usr/bin/env python3
"""pygame.mask's half of the peer benchmark (pygame-ce); benches/peer.rs is ours.

Reads FIXTURE_DIR/cases.csv and components.csv (written by make_fixtures.py) and prints
CSV on stdout,
the columns both halves print:
  case,op,ns,result,median_ns,max_ns,spread_pct,point
ops:
  overlap          a.overlap(b, (dx, dy))                 result: 1 hit / 0 miss
  overlap_area     a.overlap_area(b, (dx, dy))            result: pixels in both
  rotated_overlap  what a pygame game does for a sprite whose angle changes every
                   frame: transform.rotate(surf_b, angle), mask.from_surface, overlap,
                   B's centre at A's centre + (dx, dy)    result: 1 / 0
  rotated_cached   the same overlap with the rotated mask built beforehand
  erase            a.erase(b, (dx, dy)), then a.draw(gone, (dx, dy)) to undo it
                                                          result: a.count() after the erase
  draw             a.draw(b, (dx, dy)), then a.erase(new, (dx, dy)) to undo it
                                                          result: a.count() after the draw
  connected_components
                   t.connected_components() on a terrain of components.csv, with no
                   minimum size (pygame's `minimum=0`, its default: every component,
                   as BitMask::connected_components returns them), 8-connected
                                                          result: how many components
Masks count a pixel when its alpha is over 0 (threshold 0 in both halves).

Edits change the mask they work on, so each call of `erase` and `draw` is a pair that
leaves the mask as it found it: the edit, then its exact undo (`gone`, B's pixels that
were set in A, drawn back; `new`, B's pixels that were clear in A, erased again), on a
copy of A made once per row. A call is two edits on both sides; no copy is timed, and
our half keeps its lookups warm from one call to the next, as a game's mask has them.
Both undo masks are B's size and made from B and A by erase, the same way in both halves.

`point` is only filled by --check. For overlap hits, the first pixel in both masks in
row-major order (y, then x), in A's pixels, which is what BitMask::overlap returns.
pygame's own overlap() scans column by column and may name another pixel of the same
overlap, so the point is read from overlap_mask instead, and pygame's is checked to be
one of its pixels. For connected_components, "P L": the pixels of all the components
together and of the largest one (pygame returns each component as a mask of the
terrain's size, ours as one of its bounding rectangle's, so the masks are not compared).

Timing, as benches/peer.rs does it for our half so the two are read the same way: every
row's statement runs in batches calibrated to about 1 ms, one batch per row per round,
round after round, so a burst of load elsewhere on the machine costs one batch of
several rows rather than every repeat of one row. `ns` is the third-best batch per call,
`median_ns` and `max_ns` the others, `spread_pct` = (median - ns) / ns in percent. Rows
whose best is not confirmed by two more batches within 3% get more rounds. Statements
are timeit strings, not lambdas, so pygame pays one Python method call per call (about
100 ns here) and no extra function call of ours.

Usage: pygame_peer.py FIXTURE_DIR [--rounds N] [--check] [--ops OP,OP...] [CASE_SUBSTRING ...]
--check times nothing: it prints every row's result once. --ops keeps only the rows of
those ops (e.g. `--ops erase,draw`), as benches/peer.rs's option of the same name.
"""
import csv
import os
import sys
import timeit

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame  # noqa: E402
from pygame import mask as pgmask  # noqa: E402
from pygame import transform as pgtransform  # noqa: E402

ROUNDS = 41
BATCH_SECONDS = 0.001
EXTRA_ROUNDS = 120
SETTLED = 0.03
# A row whose single call outlasts a batch (pygame's rotate of a 512 px sprite and up)
# gets batches until it has run this long in the pass. Rotating allocates and writes a
# surface of a few MB, so these calls are bimodal here (0.55 or 1 ms, depending on what
# ran before them); nine batches a pass were too few to find the faster mode in every
# pass, and the row's time moved by 12% from one run to the next.
SLOW_ROW_SECONDS = 0.06
COLUMNS = ["case", "op", "ns", "result", "median_ns", "max_ns", "spread_pct", "point"]


class Row:
    def __init__(self, case, op, result, stmt, env, point=""):
        self.case, self.op, self.result, self.point = case, op, result, point
        self.timer = timeit.Timer(stmt, globals=env)
        self.calls = 0
        self.ns = []

    def calibrate(self):
        n = 1
        while True:
            dt = self.timer.timeit(n)
            if dt >= BATCH_SECONDS / 5:
                self.calls = max(1, int(n * BATCH_SECONDS / dt))
                return
            n *= 4

    def time_batch(self):
        self.ns.append(self.timer.timeit(self.calls) / self.calls * 1e9)

    def settled(self):
        best = min(self.ns)
        return sum(ns <= best * (1 + SETTLED) for ns in self.ns) >= 3

    def stats(self):
        ns = sorted(self.ns)
        return ns[min(2, len(ns) - 1)], ns[len(ns) // 2], ns[-1]


def first_point(ma, mb, off):
    """The first pixel of the overlap in row-major order, or None."""
    both = ma.overlap_mask(mb, off)
    rects = both.get_bounding_rects()
    if not rects:
        return None
    y = min(r.top for r in rects)
    x = next(x for x in range(both.get_size()[0]) if both.get_at((x, y)))
    # pygame's own answer must be a pixel of the same overlap.
    px, py = ma.overlap(mb, off)
    assert both.get_at((px, py)), (px, py)
    return x, y


def edit_rows(name, ma, mb, off):
    """`erase` and `draw`, each undone within the call; see the module's notes."""
    new = mb.copy()
    new.erase(ma, (-off[0], -off[1]))
    gone = mb.copy()
    gone.erase(new, (0, 0))
    rows = []
    for op, stmt, undo in (("erase", "m.erase(mb, off); m.draw(gone, off)", gone),
                           ("draw", "m.draw(mb, off); m.erase(new, off)", new)):
        m = ma.copy()
        getattr(m, op)(mb, off)
        result = m.count()
        getattr(m, "draw" if op == "erase" else "erase")(undo, off)
        assert m.count() == ma.count() == m.overlap_area(ma, (0, 0)), (name, op)
        env = {"m": m, "mb": mb, "off": off, "gone": gone, "new": new}
        rows.append(Row(name, op, result, stmt, env))
    return rows


def component_row(name, mt):
    sizes = [c.count() for c in mt.connected_components(minimum=0)]
    point = "%d %d" % (sum(sizes), max(sizes, default=0))
    return Row(name, "connected_components", len(sizes), "mt.connected_components(minimum=0)",
               {"mt": mt}, point)


def rows_for(case, ma, sb, mb, check):
    dx, dy, angle = int(case["dx"]), int(case["dy"]), float(case["angle_b_deg"])
    name = case["case"]
    if angle == 0:
        env = {"ma": ma, "mb": mb, "off": (dx, dy)}
        hit = ma.overlap(mb, (dx, dy)) is not None
        point = ""
        if check and hit:
            point = "%d %d" % first_point(ma, mb, (dx, dy))
        area = ma.overlap_area(mb, (dx, dy))
        return [
            Row(name, "overlap", int(hit), "ma.overlap(mb, off)", env, point),
            Row(name, "overlap_area", area, "ma.overlap_area(mb, off)", env),
        ] + edit_rows(name, ma, mb, (dx, dy))
    wa, ha = ma.get_size()
    centre = (wa / 2 + dx, ha / 2 + dy)

    def rotated():
        m2 = pgmask.from_surface(pgtransform.rotate(sb, angle), 0)
        w2, h2 = m2.get_size()
        off = (round(centre[0] - w2 / 2), round(centre[1] - h2 / 2))
        return ma.overlap(m2, off) is not None

    m2 = pgmask.from_surface(pgtransform.rotate(sb, angle), 0)
    w2, h2 = m2.get_size()
    off = (round(centre[0] - w2 / 2), round(centre[1] - h2 / 2))
    hit = int(rotated())
    return [
        Row(name, "rotated_overlap", hit, "rotated()", {"rotated": rotated}),
        Row(name, "rotated_cached", hit, "ma.overlap(m2, off)", {"ma": ma, "m2": m2, "off": off}),
    ]


def main(argv):
    rounds, check, ops, positional = ROUNDS, False, None, []
    it = iter(argv)
    for arg in it:
        if arg == "--rounds":
            rounds = max(1, int(next(it)))
        elif arg == "--check":
            check = True
        elif arg == "--ops":
            ops = set(next(it).split(","))
        else:
            positional.append(arg)
    if not positional:
        sys.exit("usage: pygame_peer.py FIXTURE_DIR [--rounds N] [--check] [--ops OP,...] [CASE ...]")
    fixtures, filters = positional[0], positional[1:]

    sprites = {}

    def load(name):
        if name not in sprites:
            surf = pygame.image.load(os.path.join(fixtures, name))
            sprites[name] = (surf, pgmask.from_surface(surf, 0))
        return sprites[name]

    rows = []
    with open(os.path.join(fixtures, "cases.csv")) as f:
        for case in csv.DictReader(f):
            if filters and not any(s in case["case"] for s in filters):
                continue
            _, ma = load(case["a"])
            sb, mb = load(case["b"])
            rows += rows_for(case, ma, sb, mb, check)
    with open(os.path.join(fixtures, "components.csv")) as f:
        for case in csv.DictReader(f):
            if filters and not any(s in case["case"] for s in filters):
                continue
            _, mt = load(case["mask"])
            rows.append(component_row(case["case"], mt))
    if ops is not None:
        rows = [row for row in rows if row.op in ops]

    if not check:
        for row in rows:
            row.calibrate()
        for _ in range(rounds):
            for row in rows:
                row.time_batch()
        for _ in range(EXTRA_ROUNDS):
            unsettled = [row for row in rows if not row.settled()]
            if not unsettled:
                break
            for row in unsettled:
                row.time_batch()
        slow = [row for row in rows if row.calls == 1]
        while slow:
            slow = [row for row in slow if sum(row.ns) * 1e-9 < SLOW_ROW_SECONDS]
            for row in slow:
                row.time_batch()

    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(COLUMNS)
    for row in rows:
        if check:
            out.writerow([row.case, row.op, "", row.result, "", "", "", row.point])
            continue
        best, median, worst = row.stats()
        spread = (median - best) / best * 100
        out.writerow(
            [row.case, row.op, f"{best:.1f}", row.result, f"{median:.1f}", f"{worst:.1f}",
             f"{spread:.1f}", ""]
        )


if __name__ == "__main__":
    main(sys.argv[1:])
