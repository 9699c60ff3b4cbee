#!/usr/bin/env node
// The `mds` command. The sources are TypeScript, loaded through tsx's ESM hooks so
// that `npm install && npm start` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../engine/cli.ts');
