#!/usr/bin/env -S node --max-semi-space-size=64
// (--max-semi-space-size=64: a young generation large enough for ingest's short-lived
// garbage; the engine benchmark ingests ~20 % faster with it. `npm start` passes it too.)
// The `mds` command. The sources are TypeScript, loaded through tsx's ESM hooks so
// that `npm install && npm start` needs no build step.
import { register } from 'tsx/esm/api';

register();
try {
  // First, before any native module: a Node.js version mds does not run on stops here.
  await import('../engine/node-version.ts');
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
await import('../engine/cli.ts');
