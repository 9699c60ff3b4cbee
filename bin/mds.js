#!/usr/bin/env -S node --max-semi-space-size=64
// (--max-semi-space-size=64: a young generation large enough for ingest's short-lived
// garbage; the engine benchmark ingests ~20 % faster with it. `npm start` passes it too.)
// The `mds` command. The sources are TypeScript, loaded through tsx's ESM hooks so
// that `npm install && npm start` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../engine/cli.ts');
