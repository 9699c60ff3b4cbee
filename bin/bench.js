#!/usr/bin/env node
// `npm run bench`: the benchmark suite (TypeScript, loaded through tsx).
import { register } from 'tsx/esm/api';

register();
process.argv[1] = new URL('../bench/run.ts', import.meta.url).pathname;
await import('../bench/run.ts');
