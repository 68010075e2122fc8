// The terrain scene's craters in the web build (target/web/, from ./web.sh), timed by the
// game itself: plays `?scene=terrain&autoplay&hide-overlay` in headless Chromium for N
// seconds and reads the `terrain edit: N µs` lines the scene logs (the plugin's time for a
// frame's craters and the pieces they cut loose). Prints their count, median and 95th
// percentile. The native figure comes from the same line in the release game's log.
//   node benches/web_crater.mjs SITE_DIR [SECONDS]
// playwright-core comes from PLAYWRIGHT_DIR/node_modules (.ci/web.sh installs it there).
import { createRequire } from "node:module";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, resolve } from "node:path";

const require = createRequire(join(process.env.PLAYWRIGHT_DIR ?? ".", "node_modules", "x.js"));
const { chromium } = require("playwright-core");

const [siteArg, secondsArg] = process.argv.slice(2);
if (!siteArg) {
  console.error("usage: node benches/web_crater.mjs SITE_DIR [SECONDS]");
  process.exit(2);
}
const site = resolve(siteArg);
const seconds = Number(secondsArg ?? 60);
const TYPES = {
  ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm",
  ".png": "image/png", ".ron": "text/plain",
};
const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  const file = join(site, path.endsWith("/") ? path + "index.html" : path);
  try {
    if (!file.startsWith(site)) throw new Error("outside the site");
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(await readFile(file));
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--ignore-gpu-blocklist"],
});
const page = await browser.newPage();
const micros = [];
page.on("console", (message) => {
  const found = /terrain edit: (\d+) µs/.exec(message.text());
  if (found) micros.push(Number(found[1]));
});
await page.goto(`http://127.0.0.1:${server.address().port}/?scene=terrain&autoplay&hide-overlay`);
await page.waitForTimeout(seconds * 1000);
await browser.close();
server.close();
micros.sort((a, b) => a - b);
const at = (q) => micros[Math.round((micros.length - 1) * q)];
if (micros.length === 0) {
  console.error("no terrain edit was logged");
  process.exit(1);
}
console.log(`web: ${micros.length} terrain edits, median ${at(0.5)} µs, p95 ${at(0.95)} µs, ` +
  `max ${micros[micros.length - 1]} µs`);
console.log(`all, sorted (µs): ${micros.join(" ")}`);
