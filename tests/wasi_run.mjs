// Runs a wasm32-wasip1 test binary under Node's WASI (Node 20 or later): the core's
// determinism test in WebAssembly, whose float arithmetic is the browser's.
//   node tests/wasi_run.mjs <binary.wasm> [test arguments...]
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import { argv, exit } from 'node:process';

const [binary, ...args] = argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: ['test', ...args], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(binary));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
exit(wasi.start(instance));
