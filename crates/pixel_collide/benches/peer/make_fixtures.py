#!/usr/bin/env python3
"""Writes the peer benchmark's fixtures: RGBA PNG sprites and cases.csv.

Python's standard library only (no pygame, no numpy), so the sprites do not depend on
which pygame draws them: every shape is a test on the pixel centre in exact float
arithmetic (+, *, sqrt, all correctly rounded in IEEE 754) and the noise is SplitMix64,
the generator of src/collision/rng.rs. The same pixels on every machine and every run.

Sprites (white at alpha 255 inside, transparent black outside), N = 32, 128, 512, 2048:
  disc_N    radius 0.45 N
  ring_N    the same disc less a hole of radius 0.33 N
  flower_N  six petals: r(t) = 0.47 N (0.6 + 0.4 cos 6t)
  noise_N   the disc with each pixel kept on a coin flip (about half)
  disc_8    only as the small disc in ring_32's hole

cases.csv, one row per case: `case,a,b,dx,dy,angle_b_deg`. With angle 0, B's top-left
corner is at (dx, dy) in A's pixels (pygame's offset). Otherwise B is turned by the angle
counterclockwise on screen (y down) about its centre, and its centre is at A's centre
plus (dx, dy). Cases per shape and size:
  centred   (0, 0): the whole sprite overlaps, words aligned
  shift     (1, 1): nearly the whole sprite, every word shifted by one bit
  partial   (N/2 + 1, 1): about half, shifted
  edge      (d - 1, d - 1): the last diagonal offset that still meets, a grazing hit
  touching  (d, d): the first that does not, though the boxes overlap by a third
  apart     (N, N): boxes apart
  hole      ring only: disc_{N/4} centred in the ring's hole, a miss inside the box
  rot37_centred, rot37_apart (N, N/3), rot90_partial (N/2, N/4), and for the ring
  rot37_hole (disc_{N/4} in the hole, turned)
The axis-aligned cases (angle 0) also time `erase` and `draw` of B into A at (dx, dy).

Terrains, for `connected_components` (components.csv, one row per mask: `case,mask`):
  terrain_2048x1024, and terrain_256x128 for --check: the same recipe, scaled. Ground
  below hills (midpoint displacement), caves in it (clear discs, some with a rock left
  inside, cut off from the ground), floating islands above it, and staircases of
  pixels that touch only at their corners (one piece each when 8-connected, as pygame
  counts them; many when 4-connected). All integers: the same pixels everywhere.

Usage: make_fixtures.py OUT_DIR [--force]
Skips the work when OUT_DIR already holds the fixtures of this version of the script
(a stamp file records its hash), so bench.sh can call it on every run.
"""
import hashlib
import math
import os
import struct
import sys
import zlib

SIZES = (32, 128, 512, 2048)
SHAPES = ("disc", "ring", "flower", "noise")
TERRAINS = ((256, 128), (2048, 1024))
SEED = 0x5EED_0016  # issue #16
STAMP = "fixtures.stamp"
MASK64 = (1 << 64) - 1


def splitmix64(state):
    """Yields SplitMix64's outputs from `state`, as src/collision/rng.rs does."""
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def span(c, r2, dy):
    """The pixels of a row whose centres are within sqrt(r2) of c, as a range."""
    rest = r2 - dy * dy
    if rest < 0:
        return range(0)
    half = math.sqrt(rest)
    # Pixel x has its centre at x + 0.5.
    return range(math.ceil(c - half - 0.5), math.floor(c + half - 0.5) + 1)


def bits_of(xs):
    """A row as an integer, bit x = pixel x (the crate's layout: bit 0 is leftmost)."""
    if not xs:
        return 0
    return ((1 << len(xs)) - 1) << xs.start


def disc_rows(n, radius):
    c = n / 2
    return [bits_of(span(c, radius * radius, y + 0.5 - c)) for y in range(n)]


def flower_rows(n):
    c, rf = n / 2, 0.47 * n
    inner2 = (0.2 * rf) ** 2  # r(t) >= 0.2 rf: no test needed inside this circle
    rows = []
    for y in range(n):
        dy = y + 0.5 - c
        row = bits_of(span(c, inner2, dy))
        for x in span(c, rf * rf, dy):
            dx = x + 0.5 - c
            d2 = dx * dx + dy * dy
            if d2 <= inner2:
                continue
            # cos 6t = Re((dx + i dy)^6) / d^6, with products only: no libm, whose cos
            # and atan2 may round differently from one machine to the next.
            z2 = complex(dx, dy) ** 2
            cos6 = (z2 * z2 * z2).real / (d2 * d2 * d2)
            if d2 <= (rf * (0.6 + 0.4 * cos6)) ** 2:
                row |= 1 << x
        rows.append(row)
    return rows


def noise_rows(n):
    words = splitmix64(SEED + n)
    rows = []
    for disc in disc_rows(n, 0.45 * n):
        coins = 0
        for i in range((n + 63) // 64):
            coins |= next(words) << (64 * i)
        rows.append(disc & coins & ((1 << n) - 1))
    return rows


def sprite_rows(kind, n):
    if kind == "disc":
        return disc_rows(n, 0.45 * n)
    if kind == "ring":
        hole = disc_rows(n, 0.33 * n)
        return [d & ~h for d, h in zip(disc_rows(n, 0.45 * n), hole)]
    if kind == "flower":
        return flower_rows(n)
    return noise_rows(n)


def disc_span(cx, cy, r, y):
    """The pixels of row y whose centres are within r of (cx, cy), all integers: centre
    (x + 1/2, y + 1/2) inside when (2x + 1 - 2cx)^2 + (2y + 1 - 2cy)^2 <= 4r^2, in exact
    integer arithmetic (math.isqrt), so no rounding can differ between machines."""
    rest = 4 * r * r - (2 * y + 1 - 2 * cy) ** 2
    if rest < 0:
        return range(0)
    q = math.isqrt(rest)
    # |2x + 1 - 2cx| <= q
    return range(-((q + 1 - 2 * cx) // 2), (2 * cx + q - 1) // 2 + 1)


def paint_disc(rows, width, cx, cy, r, on):
    for y in range(max(0, cy - r - 1), min(len(rows), cy + r + 1)):
        xs = disc_span(cx, cy, r, y)
        xs = range(max(0, xs.start), min(width, xs.stop))
        if on:
            rows[y] |= bits_of(xs)
        else:
            rows[y] &= ~bits_of(xs)


def terrain_rows(w, h):
    """A destructible terrain's mask, w = 2^k: see the module's notes. Sizes scale with
    w / 2048, and the count of caves, islands and staircases too, so the small one has
    the same kinds of pieces."""
    s = w / 2048
    words = splitmix64(SEED ^ (w << 20) ^ h)

    def below(n):
        return next(words) % n

    # Hills: midpoint displacement of the surface's height, halving the bumps each level.
    surface = [0] * (w + 1)
    surface[0] = surface[w] = h * 11 // 20
    step, bump = w, h // 4
    while step > 1:
        for x in range(0, w, step):
            mid = (surface[x] + surface[x + step]) // 2
            surface[x + step // 2] = mid + below(2 * bump + 1) - bump
        step //= 2
        bump = max(1, bump * 5 // 9)
    surface = [min(h - h // 10, max(h // 5, y)) for y in surface[:w]]
    # Row y is set where the surface is at or above it: a row's columns only add to the
    # row above's, so the rows come from the columns sorted by height, not pixel by pixel.
    starts = [0] * (h + 1)
    for x, top in enumerate(surface):
        starts[top] |= 1 << x
    rows, row = [], 0
    for y in range(h):
        row |= starts[y]
        rows.append(row)

    def scaled(lo, hi):
        return max(1, round(s * (lo + below(hi - lo + 1))))

    # Caves: clear discs with ground all round them; every third keeps a rock in its
    # middle, a piece cut off from the ground.
    for i in range(int(48 * s) + 4):
        r = scaled(8, 40)
        cx = r + 2 + below(w - 2 * r - 4)
        top = max(surface[max(0, cx - r):cx + r + 1])
        if top + 2 * r + 6 >= h:
            continue
        cy = top + r + 4 + below(h - top - 2 * r - 6)
        paint_disc(rows, w, cx, cy, r, False)
        if i % 3 == 0 and r >= 6:
            paint_disc(rows, w, cx, cy, r // 2, True)
    # Floating islands: discs clear of the ground.
    for _ in range(int(40 * s) + 4):
        r = scaled(4, 30)
        cx = r + 2 + below(w - 2 * r - 4)
        top = min(surface[max(0, cx - r - 1):cx + r + 2])
        if top < 2 * r + 6:
            continue
        cy = r + 2 + below(top - 2 * r - 4)
        paint_disc(rows, w, cx, cy, r, True)
    # Staircases in the air, one pixel a step down and right, touching at corners only.
    for _ in range(int(24 * s) + 2):
        n = scaled(6, 40)
        x0 = below(w - n)
        top = min(surface[x0:x0 + n + 1])
        if top < n + 4:
            continue
        y0 = below(top - n - 2)
        for i in range(n):
            rows[y0 + i] |= 1 << (x0 + i)
    mask = (1 << w) - 1
    return [row & mask for row in rows]


def write_png(path, n, rows, height=None):
    """An n x height RGBA PNG (square unless `height` is given): opaque white where the
    row's bit is set, else transparent."""
    height = n if height is None else height
    alpha = bytes.maketrans(b"01", b"\x00\xff")
    raw = bytearray()
    for row in rows:
        # Bit x to byte x, 0x00 or 0xff, without a Python loop over the pixels.
        a = format(row, f"0{n}b")[::-1].encode().translate(alpha)
        line = bytearray(4 * n)
        for channel in range(4):
            line[channel::4] = a
        raw += b"\x00" + line  # filter type 0 (none)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", n, height, 8, 6, 0, 0, 0)  # 8-bit RGBA, no interlace
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", header))
        f.write(chunk(b"IDAT", zlib.compress(bytes(raw), 6)))
        f.write(chunk(b"IEND", b""))


def meets(a, b, dx, dy):
    """Whether B's rows with its top-left at (dx, dy >= 0) share a pixel with A's."""
    for y in range(max(0, dy), min(len(a), len(b) + dy)):
        row_b = b[y - dy]
        if (row_b << dx if dx >= 0 else row_b >> -dx) & a[y]:
            return True
    return False


def touching_offset(rows, n):
    """The smallest d such that B at (d', d') misses A for every d' >= d."""
    d = n
    while d > 0 and not meets(rows, rows, d - 1, d - 1):
        d -= 1
    return d


def cases_for(kind, n, rows):
    name = f"{kind}_{n}.png"
    d = touching_offset(rows, n)
    out = [
        ("centred", name, 0, 0, 0),
        ("shift", name, 1, 1, 0),
        ("partial", name, n // 2 + 1, 1, 0),
        ("edge", name, d - 1, d - 1, 0),
        ("touching", name, d, d, 0),
        ("apart", name, n, n, 0),
    ]
    small = f"disc_{n // 4}.png"
    if kind == "ring":
        out.append(("hole", small, (n - n // 4) // 2, (n - n // 4) // 2, 0))
    out += [
        ("rot37_centred", name, 0, 0, 37),
        ("rot37_apart", name, n, n // 3, 37),
        ("rot90_partial", name, n // 2, n // 4, 90),
    ]
    if kind == "ring":
        out.append(("rot37_hole", small, 0, 0, 37))
    return [f"{kind}_{n}_{label},{name},{b},{dx},{dy},{angle}" for label, b, dx, dy, angle in out]


def script_hash():
    with open(os.path.abspath(__file__), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    out = args[0] if args else os.path.join("target", "peer-fixtures")
    stamp_path = os.path.join(out, STAMP)
    stamp = script_hash()
    if "--force" not in argv and os.path.exists(stamp_path):
        with open(stamp_path) as f:
            if f.read().strip() == stamp:
                return 0
    os.makedirs(out, exist_ok=True)
    rows = ["case,a,b,dx,dy,angle_b_deg"]
    written = set()
    for kind in SHAPES:
        for n in SIZES:
            sprite = sprite_rows(kind, n)
            write_png(os.path.join(out, f"{kind}_{n}.png"), n, sprite)
            written.add(f"{kind}_{n}.png")
            rows += cases_for(kind, n, sprite)
    # The small discs the ring's hole cases put inside it; disc_8 is the only new one.
    for n in SIZES:
        name = f"disc_{n // 4}.png"
        if name not in written:
            write_png(os.path.join(out, name), n // 4, disc_rows(n // 4, 0.45 * (n // 4)))
    with open(os.path.join(out, "cases.csv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    terrains = ["case,mask"]
    for w, h in TERRAINS:
        name = f"terrain_{w}x{h}.png"
        write_png(os.path.join(out, name), w, terrain_rows(w, h), h)
        terrains.append(f"terrain_{w}_whole,{name}")
    with open(os.path.join(out, "components.csv"), "w") as f:
        f.write("\n".join(terrains) + "\n")
    # Last, so an interrupted run is redone next time.
    with open(stamp_path, "w") as f:
        f.write(stamp + "\n")
    print(f"make_fixtures: wrote {len(rows) - 1} cases and {len(terrains) - 1} terrains to {out}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
