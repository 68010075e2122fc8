// Plays every scene of the web build (target/web/, from ./web.sh) in headless Chromium:
//   node tests/web/browser.mjs SITE_DIR [--fps-seconds N] [--scenes pixel,terrain]
// For each scene it loads `?scene=NAME&hide-overlay&log-fps`, waits for the game's
// `scene ready: NAME` line, checks the canvas shows more than one colour, presses keys that
// act in that scene and checks the picture changed, then F1 and checks the overlay came.
// A pretend gamepad (the browser's Gamepad API, answered by the page itself) then moves the
// flower with its left stick and opens the overlay with Start. `?determinism-hash` must log
// the hash committed in src/sim/determinism.rs, as native builds give it.
// It fails on any console error, uncaught exception or failed request. Screenshots go to
// SITE_DIR/../web-shots/. With --fps-seconds N it also stays N seconds per scene and prints
// the frame rate the game logs.
// playwright-core comes from PLAYWRIGHT_DIR/node_modules (.ci/web.sh installs it there).
import { createRequire } from "node:module";
import { createServer } from "node:http";
import { readFile, mkdir, writeFile } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { inflateSync } from "node:zlib";

const require = createRequire(join(process.env.PLAYWRIGHT_DIR ?? ".", "node_modules", "x.js"));
const { chromium } = require("playwright-core");

const [siteArg, ...rest] = process.argv.slice(2);
if (!siteArg) {
  console.error("usage: node tests/web/browser.mjs SITE_DIR [--fps-seconds N]");
  process.exit(2);
}
const site = resolve(siteArg);
const option = (name) => {
  const at = rest.indexOf(name);
  return at >= 0 ? rest[at + 1] : undefined;
};
const fpsSeconds = Number(option("--fps-seconds") ?? 0);
const only = option("--scenes")?.split(",");
const shots = resolve(site, "..", "web-shots");
await mkdir(shots, { recursive: true });

// Keys that act in each scene (README's controls): [key, milliseconds held]. The crowd
// takes no keys (it moves by itself); there the test switches scene with a number key.
const SCENES = {
  pixel: [["KeyD", 700], ["ArrowLeft", 700]],
  rotated: [["KeyQ", 700], ["Comma", 700]],
  basketball: [["Space", 100], ["KeyD", 600]],
  hitboxes: [["KeyD", 700], ["Space", 100], ["KeyE", 600]],
  larry: [["KeyD", 900], ["ArrowUp", 600]],
  crowd: [],
  terrain: [["Space", 100], ["ArrowRight", 900]],
};
const SWITCH = { crowd: ["Digit7", "terrain"] };
const READY_TIMEOUT_MS = 180_000;
// The determinism scenario's 2,000 frames run on the page's thread before it answers.
const DETERMINISM_TIMEOUT_MS = 300_000;
const OVERLAY_TIMEOUT_MS = 20_000;
// The scene's title bar: drawn even when the scene draws nothing, so left out of the
// blank-picture check.
const TITLE_ROWS = 80;

const TYPES = {
  ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm",
  ".png": "image/png", ".ron": "text/plain",
};
const failedRequests = [];
const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  const file = join(site, path.endsWith("/") ? path + "index.html" : path);
  try {
    if (!file.startsWith(site)) throw new Error("outside the site");
    const body = await readFile(file);
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(body);
  } catch {
    failedRequests.push(path);
    res.writeHead(404).end();
  }
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--ignore-gpu-blocklist"],
});

const failures = [];
const report = [];
for (const [scene, keys] of Object.entries(SCENES)) {
  if (only && !only.includes(scene)) continue;
  const { page, lines, problems, waitForLine } = await watchedPage();

  const started = Date.now();
  try {
    await page.goto(`${origin}/?scene=${scene}&hide-overlay&log-fps`);
    await waitForLine(new RegExp(`scene ready: ${scene}\\b`), READY_TIMEOUT_MS);
    const readyMs = Date.now() - started;
    const status = await page.locator("#status").getAttribute("class");
    if (status !== "hidden") problems.push(`the page's message still shows (class ${status})`);

    await page.waitForTimeout(500);
    const before = await shoot(page, `${scene}-0-ready`);
    const colours = colourSpread(before);
    if (colours.distinct < 24 || colours.commonest > 0.997) {
      problems.push(`the scene looks blank: ${colours.distinct} colours, the commonest on ${(100 * colours.commonest).toFixed(1)}%`);
    }
    for (const [key, ms] of keys) {
      await page.keyboard.down(key);
      await page.waitForTimeout(ms);
      await page.keyboard.up(key);
    }
    // The keys' effect may be a few slow frames behind them (see `shootUntilChanged`).
    const { shot: after, changed: moved } = await shootUntilChanged(page, `${scene}-1-input`, before, 0.001, 5_000);
    if (moved < 0.001) problems.push(`nothing changed after the keys (${(100 * moved).toFixed(3)}% of pixels)`);
    const readyLines = lines.filter((line) => line.includes("scene ready: "));
    if (readyLines.length !== 1) problems.push(`the keys changed the scene: ${readyLines.join(" / ")}`);

    await page.keyboard.press("F1");
    const { changed: overlayChange } = await shootUntilChanged(page, `${scene}-2-overlay`, after, 0.02, OVERLAY_TIMEOUT_MS);
    if (overlayChange < 0.02) problems.push(`F1 showed no overlay in ${OVERLAY_TIMEOUT_MS} ms (${(100 * overlayChange).toFixed(2)}% of pixels changed)`);

    if (SWITCH[scene]) {
      const [key, next] = SWITCH[scene];
      await page.keyboard.press(key);
      await waitForLine(new RegExp(`scene ready: ${next}\\b`), READY_TIMEOUT_MS);
      await page.waitForTimeout(500);
      const spread = colourSpread(await shoot(page, `${scene}-3-switched-to-${next}`));
      if (spread.distinct < 24) problems.push(`after switching to ${next} the picture looks blank`);
    }

    let fps = "";
    if (fpsSeconds > 0) {
      await page.keyboard.press("F1");
      await page.waitForTimeout(fpsSeconds * 1000);
      const rates = lines.filter((l) => l.includes(`frame rate: ${scene} `)).map((l) => Number(l.match(/([\d.]+) fps/)[1]));
      fps = rates.length ? ` ${rates[rates.length - 1].toFixed(1)} fps` : " no frame rate logged";
    }
    report.push(`${scene}: ready in ${readyMs} ms; keys changed ${(100 * moved).toFixed(2)}% of pixels; F1 ${(100 * overlayChange).toFixed(1)}%${fps}`);
  } catch (err) {
    problems.push(err.message);
    await shoot(page, `${scene}-failed`).catch(() => {});
  }
  if (failedRequests.length) problems.push(`failed requests: ${failedRequests.splice(0).join(", ")}`);
  await page.close();
  if (problems.length) failures.push(`${scene}:\n  ${problems.join("\n  ")}\n  last lines:\n    ${lines.slice(-8).join("\n    ")}`);
}

// Gamepads: headless Chromium has none, so the page's `navigator.getGamepads` answers with
// one standard-mapped pad the test moves. The game reads it through gilrs's web backend,
// as it would read a real pad.
if (!only || only.includes("pixel")) {
  const { page, lines, problems, waitForLine } = await watchedPage();
  await page.addInitScript(() => {
    const pad = {
      id: "Test pad (STANDARD GAMEPAD Vendor: 045e Product: 028e)",
      index: 0,
      connected: true,
      mapping: "standard",
      timestamp: 0,
      axes: [0, 0, 0, 0],
      buttons: Array.from({ length: 17 }, () => ({ pressed: false, touched: false, value: 0 })),
    };
    window.testPad = pad;
    Object.defineProperty(Navigator.prototype, "getGamepads", { value: () => [pad, null, null, null] });
  });
  // Holds a stick or button (JavaScript run in the page) long enough for a few frames at
  // software WebGL's slowest.
  const hold = async (set, release, ms) => {
    await page.evaluate(set);
    await page.waitForTimeout(ms);
    await page.evaluate(release);
  };
  try {
    await page.goto(`${origin}/?scene=pixel&hide-overlay`);
    await waitForLine(/scene ready: pixel\b/, READY_TIMEOUT_MS);
    await page.waitForTimeout(500);
    const before = await shoot(page, "gamepad-0-ready");
    await hold("testPad.axes[0] = 1", "testPad.axes[0] = 0", 1200);
    const { shot: after, changed: moved } = await shootUntilChanged(page, "gamepad-1-stick", before, 0.001, 5_000);
    if (moved < 0.001) problems.push(`the left stick moved nothing (${(100 * moved).toFixed(3)}% of pixels)`);
    // Button 9 is Start in the standard mapping.
    const start = (pressed) => `testPad.buttons[9] = { pressed: ${pressed}, touched: ${pressed}, value: ${Number(pressed)} }`;
    await hold(start(true), start(false), 1500);
    const { changed: overlay } = await shootUntilChanged(page, "gamepad-2-start", after, 0.02, OVERLAY_TIMEOUT_MS);
    if (overlay < 0.02) problems.push(`Start showed no overlay (${(100 * overlay).toFixed(2)}% of pixels changed)`);
    report.push(`gamepad: the stick changed ${(100 * moved).toFixed(2)}% of pixels; Start ${(100 * overlay).toFixed(1)}%`);
  } catch (err) {
    problems.push(err.message);
  }
  await page.close();
  if (problems.length) failures.push(`gamepad:\n  ${problems.join("\n  ")}\n  last lines:\n    ${lines.slice(-8).join("\n    ")}`);
}

// The determinism scenario (src/sim/determinism.rs: a crowd of 2,000 turning sprites and
// a cratered terrain, 2,000 frames) in the web build, WebAssembly SIMD and all: the hash the
// page logs must be the one committed there, which every native build and thread count
// gives. Read from the source, so the page cannot vouch for itself.
if (!only || only.includes("determinism")) {
  const { page, problems, waitForLine } = await watchedPage();
  const source = await readFile(new URL("../../src/sim/determinism.rs", import.meta.url), "utf8");
  const committed = source.match(/pub const EXPECTED_HASH: u64 = (0x[0-9a-f_]+);/)?.[1];
  try {
    if (!committed) throw new Error("no EXPECTED_HASH in src/sim/determinism.rs");
    const started = Date.now();
    await page.goto(`${origin}/?determinism-hash`);
    const line = await waitForLine(/^determinism hash: 0x[0-9a-f]{16}\b/, DETERMINISM_TIMEOUT_MS);
    const hash = line.match(/0x[0-9a-f]{16}/)[0];
    if (BigInt(hash) !== BigInt(committed.replaceAll("_", ""))) {
      problems.push(`the page's hash is ${hash}, committed ${committed}`);
    }
    report.push(`determinism: the page's hash ${hash} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (err) {
    problems.push(err.message);
  }
  await page.close();
  if (problems.length) failures.push(`determinism:\n  ${problems.join("\n  ")}`);
}

// What a player sees when the game cannot run: a message on the page, not a blank one.
const pageMessage = async (launched, query, beforePage) => {
  const page = await launched.newPage();
  if (beforePage) await page.addInitScript(beforePage);
  await page.goto(`${origin}/${query}`);
  const status = page.locator("#status.error");
  await status.waitFor({ timeout: READY_TIMEOUT_MS });
  const text = await status.textContent();
  await page.close();
  return text;
};
if (!only) {
  const unknown = await pageMessage(browser, "?scene=moon").catch((err) => err.message);
  if (!/unknown scene "moon"; valid scenes: pixel, rotated/.test(unknown)) {
    failures.push(`?scene=moon: expected the list of scenes on the page, got: ${unknown}`);
  }
  const noWebGl = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--disable-3d-apis"],
  });
  const missing = await pageMessage(noWebGl, "?scene=pixel").catch((err) => err.message);
  await noWebGl.close();
  if (!/needs WebGL2|draws with WebGL2/.test(missing)) {
    failures.push(`without WebGL: expected the WebGL2 message on the page, got: ${missing}`);
  }
  // A browser without WebAssembly SIMD, as the page's check sees one.
  const noSimd = await pageMessage(browser, "?scene=pixel", () => {
    WebAssembly.validate = () => false;
  }).catch((err) => err.message);
  if (!/needs WebAssembly SIMD/.test(noSimd)) {
    failures.push(`without SIMD: expected the SIMD message on the page, got: ${noSimd}`);
  }
  report.push(
    `?scene=moon: "${unknown.split("\n")[0]}"; without WebGL: "${missing}"; without SIMD: "${noSimd}"`,
  );
}
failedRequests.length = 0;
await browser.close();
server.close();

console.log(report.join("\n"));
console.log(`screenshots in ${shots}`);
if (failures.length) {
  console.error(`web test failed in ${failures.length} of ${only?.length ?? Object.keys(SCENES).length} scenes:\n${failures.join("\n")}`);
  process.exit(1);
}

// A new page whose console errors and uncaught exceptions are its problems, with the
// lines it logged and a wait for one of them (which fails as soon as the page shows its
// own error message).
async function watchedPage() {
  const problems = [];
  const lines = [];
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on("console", (msg) => {
    lines.push(msg.text());
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`uncaught: ${err.message}`));
  const waitForLine = async (pattern, timeout) => {
    const deadline = Date.now() + timeout;
    while (Date.now() < deadline) {
      const line = lines.find((l) => pattern.test(l));
      if (line) return line;
      const status = page.locator("#status");
      if ((await status.getAttribute("class")) === "error") {
        throw new Error(`the page shows an error: ${await status.textContent()}`);
      }
      await page.waitForTimeout(250);
    }
    throw new Error(`no line matching ${pattern} in ${timeout} ms`);
  };
  return { page, lines, problems, waitForLine };
}

// Shoots the page until at least `least` of its pixels differ from `base`, or `timeoutMs`
// has passed: on a busy machine (CI builds beside this test) software WebGL can draw a
// frame a second, and a fixed wait shot the page before the change's first frame.
async function shootUntilChanged(page, name, base, least, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let shot;
  let changed = 0;
  do {
    await page.waitForTimeout(300);
    shot = await shoot(page, name);
    changed = changedFraction(base, shot);
  } while (changed < least && Date.now() < deadline);
  return { shot, changed };
}

async function shoot(page, name) {
  const png = await page.screenshot();
  await writeFile(join(shots, `${name}.png`), png);
  return decodePng(png);
}

// How many colours the picture has below the scene's title bar, and the share of pixels
// of the commonest one.
function colourSpread({ pixels, channels, width }) {
  const counts = new Map();
  for (let i = TITLE_ROWS * width * channels; i < pixels.length; i += channels) {
    const key = (pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const n = pixels.length / channels - TITLE_ROWS * width;
  return { distinct: counts.size, commonest: Math.max(...counts.values()) / n };
}

// The share of pixels whose colour differs by more than a rounding error.
function changedFraction(a, b) {
  if (a.width !== b.width || a.height !== b.height) return 1;
  let changed = 0;
  for (let i = 0; i < a.pixels.length; i += a.channels) {
    const d = Math.abs(a.pixels[i] - b.pixels[i]) + Math.abs(a.pixels[i + 1] - b.pixels[i + 1]) + Math.abs(a.pixels[i + 2] - b.pixels[i + 2]);
    if (d > 24) changed++;
  }
  return changed / (a.width * a.height);
}

// Chromium's screenshots: 8-bit RGB or RGBA, not interlaced.
function decodePng(png) {
  let offset = 8;
  let width = 0, height = 0, channels = 0;
  const data = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("ascii", offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      channels = { 2: 3, 6: 4 }[colour];
      if (depth !== 8 || !channels || interlace) throw new Error(`unexpected PNG: depth ${depth}, colour type ${colour}`);
    } else if (type === "IDAT") {
      data.push(body);
    }
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? pixels[y * stride + x - channels] : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const upLeft = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels] : 0;
      let predicted = 0;
      if (filter === 1) predicted = left;
      else if (filter === 2) predicted = up;
      else if (filter === 3) predicted = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left), pb = Math.abs(p - up), pc = Math.abs(p - upLeft);
        predicted = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      pixels[y * stride + x] = (line[x] + predicted) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}
