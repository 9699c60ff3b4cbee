/**
 * The module a worker thread starts from, beside the module `from` (its
 * `import.meta.url`): run from the TypeScript sources (through tsx: `mds`, `npm start`,
 * the tests), the `<name>.boot.mjs` that registers tsx in the thread first; run from the
 * built JavaScript (`dist/`, what `import 'mds'` loads), the compiled `<name>.js` itself.
 */
export const workerUrl = (name: string, from: string): URL => new URL(from.endsWith('.ts') ? `./${name}.boot.mjs` : `./${name}.js`, from);
