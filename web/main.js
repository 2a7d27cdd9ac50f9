// The page's driver: wasm-bindgen's module (pkg/, built by scripts/web-test.sh) does the work.
// Query parameters: subgroups=0 hides them (the emulated path runs), knob=0..1 places the
// panel's knob, seed=N seeds the inputs, frame=URL names a .wkv stream to decode (none: a test
// picture encoded on the CPU in the page), runs=N times each GPU time as the median of N runs
// (10). window.wavekit holds the outcome for a test driver.
import init, { start } from './pkg/wavekit_web.js';

const params = new URLSearchParams(location.search);
const subgroups = params.get('subgroups') !== '0';
const knob = Number(params.get('knob') ?? '0.62');
const seed = Number(params.get('seed') ?? '20261202') >>> 0;
const frameUrl = params.get('frame');
const runs = Math.max(1, Number(params.get('runs') ?? '10') >>> 0);

const state = { done: false, expected: null, passed: false, adapter: null, subgroups: null, rows: [],
                error: null, knob, redraws: 0 };
window.wavekit = state;

function show(rows) {
  const body = document.querySelector('#results tbody');
  body.textContent = '';
  for (const r of rows) {
    const tr = document.createElement('tr');
    const cells = [r.name, r.ok ? 'pass' : 'FAIL',
                   r.gpu_us == null ? '' : r.gpu_us.toFixed(1), r.detail];
    cells.forEach((c, i) => {
      const td = document.createElement('td');
      td.textContent = c;
      if (i === 1) td.className = r.ok ? 'ok' : 'fail';
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
}

async function main() {
  await init();
  if (!navigator.gpu) {
    throw new Error('this browser has no WebGPU (navigator.gpu is missing): use a browser ' +
                    'with WebGPU enabled');
  }
  const page = await start(subgroups, runs);
  const adapter = JSON.parse(page.adapter());
  state.adapter = adapter;
  const sg = adapter.caps.subgroups;
  state.subgroups = sg.supported;
  document.getElementById('adapter').textContent =
    `Adapter: ${adapter.label}; ` +
    (sg.supported ? `subgroups on (${sg.min_size}–${sg.max_size} lanes)`
                  : 'subgroups off: the emulated (no-subgroup) path runs') +
    `; timestamps: ${adapter.caps.timestamps}.`;

  const rows = [];
  const add = (row) => {
    rows.push(row);
    console.log(`wavekit row ${JSON.stringify(row)}`);
    show(rows);
  };
  // checks=1,7: only those (for working on one); the page then reports the others skipped.
  const only = params.get('checks');
  const count = page.check_count();
  const picked = [...Array(count).keys()].filter(
    (i) => only === null || only.split(',').map(Number).includes(i));
  // The checks picked, the frame, the panel and the device's health.
  state.expected = picked.length + 3;
  for (const i of picked) {
    add(JSON.parse(await page.run_check(i, seed)));
  }
  let wkv = new Uint8Array();
  if (frameUrl) {
    const r = await fetch(frameUrl);
    if (!r.ok) throw new Error(`fetching ${frameUrl}: HTTP ${r.status}`);
    wkv = new Uint8Array(await r.arrayBuffer());
  }
  add(JSON.parse(await page.decode_frame('frame', wkv)));
  add(JSON.parse(await page.draw_panel('panel', knob, true)));
  add(JSON.parse(page.health()));
  state.rows = rows;
  state.passed = rows.every(r => r.ok);
  const status = document.getElementById('status');
  status.textContent = state.passed ? `All ${rows.length} checks passed.`
                                    : `${rows.filter(r => !r.ok).length} checks FAILED.`;
  status.className = state.passed ? 'ok' : 'fail';

  // The knob follows the mouse: one redraw at a time, the latest position wins.
  const canvas = document.getElementById('panel');
  let busy = false, wanted = null;
  async function redraw() {
    if (busy || wanted === null) return;
    busy = true;
    const k = wanted;
    wanted = null;
    try {
      await page.draw_panel('panel', k, false);
      state.knob = k;
      state.redraws += 1;
    } catch (e) {
      state.error = String(e);
    }
    busy = false;
    redraw();
  }
  canvas.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    // The slider's track spans the panel's middle; map the pointer across the canvas.
    wanted = Math.min(1, Math.max(0, (e.clientX - r.left) / r.width));
    redraw();
  });
  state.done = true;
}

main().catch((e) => {
  state.error = String(e && e.stack ? e.stack : e);
  const status = document.getElementById('status');
  status.textContent = `Error: ${e}`;
  status.className = 'fail';
  state.done = true;
});
