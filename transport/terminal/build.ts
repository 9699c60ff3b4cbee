import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Builds the web terminal's bundle (transport/terminal/web → dist/terminal/app.js and
 * app.css) with esbuild: run by `npm run build` (and so by `prepare`, which `npm install`
 * runs in a clone) and by the browser tests before they start a server. esbuild because
 * it bundles TypeScript and CSS in one step in well under a second, with no plugins and
 * no configuration file (Vite, Rollup and webpack each need several packages and a
 * config for the same single-entry bundle); it is already a devDependency. One ES module,
 * minified, every dependency (lightweight-charts, the client SDK, rxjs's Observable)
 * inside it: nothing is fetched at run time.
 */

export const TERMINAL_ENTRY = fileURLToPath(new URL('./web/main.ts', import.meta.url));
export const TERMINAL_OUT = fileURLToPath(new URL('../../dist/terminal/', import.meta.url));

export async function buildTerminal(outdir = TERMINAL_OUT): Promise<{ bytes: number }> {
  const result = await build({
    entryPoints: { app: TERMINAL_ENTRY },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    minify: true,
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
  });
  return { bytes: Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { bytes } = await buildTerminal();
  process.stderr.write(`web terminal built: ${TERMINAL_OUT} (${(bytes / 1024).toFixed(0)} KiB)\n`);
}
