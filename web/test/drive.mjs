// Opens wavekit's page in headless Chromium with WebGPU on SwiftShader, waits for its checks,
// prints them, screenshots the UI panel's canvas and compares it with a reference PNG, and
// moves the mouse over the panel to see the knob follow. Exit 0 only if all of that passed.
//
//   node drive.mjs URL --reference REF.png --shot OUT.png [--tolerance 1] [--expect-subgroups yes|no]
import { chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import fs from 'node:fs';

const args = process.argv.slice(2);
const url = args[0];
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const reference = opt('--reference');
const shot = opt('--shot', 'panel.png');
const tolerance = Number(opt('--tolerance', '1'));
const expectSubgroups = opt('--expect-subgroups');
const chrome = opt('--chromium', '/usr/bin/chromium');
const timeoutMs = Number(opt('--timeout', '900')) * 1000;
if (!url || !reference) {
  console.error('usage: node drive.mjs URL --reference REF.png [--shot OUT.png] ' +
                '[--tolerance 1] [--expect-subgroups yes|no]');
  process.exit(2);
}

let failures = 0;
const fail = (msg) => { failures += 1; console.log(`FAIL ${msg}`); };

const browser = await chromium.launch({
  executablePath: chrome,
  headless: true,
  args: ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-unsafe-swiftshader',
         '--no-sandbox', '--disable-background-networking', '--disable-component-update',
         '--disable-sync', '--no-first-run'],
});
try {
  const started = Date.now();
  const page = await browser.newPage({ viewport: { width: 1280, height: 1600 }, deviceScaleFactor: 1 });
  page.on('console', (m) => {
    const t = m.text();
    if (t.startsWith('wavekit row ')) {
      const r = JSON.parse(t.slice(12));
      console.log(`  … ${r.ok ? 'pass' : 'FAIL'} ${r.name} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    } else if (t.startsWith('wavekit progress ')) {
      console.log(`    ${t.slice(17)} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    } else if (m.type() === 'error' || m.type() === 'warning') {
      console.log(`[page ${m.type()}] ${t.split('\n').slice(0, 4).join('\n')}`);
    }
  });
  page.on('pageerror', (e) => console.log(`[page error] ${e}`));
  await page.goto(url);
  await page.waitForFunction(() => window.wavekit && window.wavekit.done, null,
                             { timeout: timeoutMs, polling: 500 });
  const s = await page.evaluate(() => window.wavekit);
  console.log(`page finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (s.error) fail(`the page stopped: ${s.error}`);
  if (s.adapter) {
    const sg = s.adapter.caps.subgroups;
    console.log(`adapter: ${s.adapter.label}`);
    console.log(`subgroups: ${sg.supported ? `ran (${sg.min_size}-${sg.max_size} lanes)` : 'not used: the emulated path ran'}`);
    console.log(`timestamps: ${s.adapter.caps.timestamps}`);
    if (expectSubgroups === 'yes' && !sg.supported) fail('subgroups were expected to run');
    if (expectSubgroups === 'no' && sg.supported) fail('subgroups were expected to be hidden');
  }
  for (const r of s.rows) {
    const t = r.gpu_us == null ? '' : ` [${r.gpu_us.toFixed(1)} µs]`;
    console.log(`${r.ok ? 'pass' : 'FAIL'} ${r.name}${t}: ${r.detail}`);
    if (!r.ok) failures += 1;
  }
  if (!s.error && s.rows.length !== s.expected) fail(`${s.rows.length} checks reported, ${s.expected} expected`);

  // The canvas as the browser shows it, against the reference, pixel for pixel.
  const canvas = page.locator('#panel');
  const at = await canvas.boundingBox();
  const size = await canvas.evaluate((c) => [c.width, c.height]);
  const clip = { x: Math.round(at.x), y: Math.round(at.y), width: size[0], height: size[1] };
  await page.screenshot({ path: shot, clip });
  const got = PNG.sync.read(fs.readFileSync(shot));
  const want = PNG.sync.read(fs.readFileSync(reference));
  if (got.width !== want.width || got.height !== want.height) {
    fail(`screenshot ${got.width} x ${got.height}, reference ${want.width} x ${want.height}`);
  } else {
    let off = 0, exact = 0, worst = 0;
    for (let i = 0; i < got.data.length; i += 4) {
      let d = 0;
      for (let c = 0; c < 3; c++) d = Math.max(d, Math.abs(got.data[i + c] - want.data[i + c]));
      worst = Math.max(worst, d);
      if (d > tolerance) off += 1;
      if (d === 0) exact += 1;
    }
    const n = got.width * got.height;
    const line = `screenshot of the panel against the native CPU reference: ${off} of ${n} pixels ` +
                 `differ by more than ${tolerance} in a channel (${exact} exact, largest difference ${worst})`;
    if (off > 0) fail(line); else console.log(`pass ${line}`);
  }

  // The knob follows the mouse: move to a quarter of the way across, wait for the redraw.
  if (!s.error) {
    const box = await canvas.boundingBox();
    const before = s.redraws;
    await page.mouse.move(box.x + box.width * 0.25, box.y + box.height * 0.5);
    try {
      await page.waitForFunction((b) => window.wavekit.redraws > b && Math.abs(window.wavekit.knob - 0.25) < 0.01,
                                 before, { timeout: 120000, polling: 200 });
      const moved = PNG.sync.read(await page.screenshot({ clip }));
      let changed = 0;
      for (let i = 0; i < moved.data.length; i += 4) {
        if (moved.data[i] !== got.data[i] || moved.data[i + 1] !== got.data[i + 1] ||
            moved.data[i + 2] !== got.data[i + 2]) changed += 1;
      }
      if (changed === 0) fail('the mouse moved the knob but the panel did not change');
      else console.log(`pass the knob followed the mouse to 0.25: ${changed} pixels changed`);
    } catch (e) {
      fail(`the knob did not follow the mouse: ${e}`);
    }
  }
} finally {
  await browser.close();
}
console.log(failures === 0 ? 'web test: every check passed' : `web test: ${failures} failures`);
process.exit(failures === 0 ? 0 : 1);
