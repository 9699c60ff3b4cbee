import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * `mds/client`'s browser entry bundles for a browser: esbuild, platform browser, fails
 * on any import of Node's modules (node:*, ws, the server's code with LMDB and uWS).
 * The server is only ever imported for its types, which the bundle leaves out.
 */
describe('client SDK browser entry', () => {
  it('bundles for a browser with nothing of Node and nothing of the server', async () => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL('../../../transport/client/index.ts', import.meta.url))],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((p) => p.startsWith('transport/') && !p.startsWith('transport/client/'))).toEqual([]);
    expect(inputs.filter((p) => /(^|\/)(engine|storage|actors)\/|node_modules\/(ws|zod|lmdb|uWebSockets)/.test(p))).toEqual([]);
    // rxjs (Observables) is the one package it carries.
    expect(inputs.filter((p) => p.startsWith('node_modules/')).every((p) => p.startsWith('node_modules/rxjs/') || p.startsWith('node_modules/tslib/'))).toBe(true);
  });
});
