// Loaded with `node --import bench/probe.mjs` into a measured process (mds replay, the
// floor): every MDS_PROBE_MS (default 250) and at exit it appends one JSON line to the
// file MDS_PROBE names: wall ms since start, the JS heap (used and total), V8's
// external and array-buffer bytes, /proc/self/status RssAnon, RssFile and VmHWM (KiB),
// CPU µs (user + system, every thread) and how far the process has read the file
// MDS_PROBE_INPUT (its fd's position, /proc/self/fdinfo), which the benchmark turns
// into swaps read. Plain JS, so it loads before any TypeScript hook. Worker threads
// inherit the --import and sample too: their lines carry their `thread` id (the main
// thread's is 0), their own heap and clock (t from the worker's start), the process's RSS.
import { appendFileSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { threadId } from 'node:worker_threads';

const out = process.env.MDS_PROBE;
const input = process.env.MDS_PROBE_INPUT;
if (out) {
  const t0 = performance.now();
  let inputFd = null;
  const position = () => {
    if (!input) return 0;
    try {
      if (inputFd === null) {
        for (const fd of readdirSync('/proc/self/fd')) {
          try {
            if (readlinkSync(`/proc/self/fd/${fd}`) === input) inputFd = fd;
          } catch {}
        }
        if (inputFd === null) return 0;
      }
      const m = /^pos:\s+(\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${inputFd}`, 'utf8'));
      return m ? Number(m[1]) : 0;
    } catch {
      inputFd = null; // closed (read to the end)
      return -1;
    }
  };
  const status = () => {
    const text = readFileSync('/proc/self/status', 'utf8');
    const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return { rssAnon: kib('RssAnon'), rssFile: kib('RssFile'), hwm: kib('VmHWM') };
  };
  const sample = (final) => {
    const m = process.memoryUsage();
    const cpu = process.cpuUsage();
    const line = { thread: threadId, t: performance.now() - t0, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, ...status(), cpuUs: cpu.user + cpu.system, pos: position(), final };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  };
  setInterval(() => sample(false), Number(process.env.MDS_PROBE_MS ?? 250)).unref();
  process.on('exit', () => sample(true));
}
