import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cruise, type IConfiguration, type IReporterOutput, type IViolation } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

/**
 * The boundary rules `npm test` runs (`npm run lint:deps`, .dependency-cruiser.cjs),
 * cruised over test/fixtures/boundaries: a tree with mds's top-level folders whose
 * imports break each rule once and keep some allowed ones. Every rule must fire exactly
 * where the fixture breaks it, and nowhere else.
 */
const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as IConfiguration;
const FIXTURE = fileURLToPath(new URL('../fixtures/boundaries/', import.meta.url));

async function violations(): Promise<string[]> {
  const result = (await cruise(['engine', 'actors', 'storage', 'transport'], {
    baseDir: FIXTURE,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
  })) as IReporterOutput;
  const output = result.output as Exclude<IReporterOutput['output'], string>;
  return output.summary.violations.map((v: IViolation) => `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*node_modules\/(lmdb)\/.*$/, '$1')}`).sort();
}

describe('module boundaries (STYLE.md 3)', () => {
  it('names the rule of every forbidden import, and only of those', async () => {
    expect(await violations()).toEqual([
      'actors-not-to-query-or-live: actors/pool/pool.ts -> engine/query/index.ts',
      'actors-not-to-query-or-live: actors/pool/pool.ts -> engine/topics/index.ts',
      'actors-not-to-transport: actors/pool/pool.ts -> transport/route.ts',
      'actors-not-to-transport: actors/pool/pool.ts -> uWebSockets.js',
      'entry-point-only-from-root-files: transport/route.ts -> engine/query/pools.ts',
      'entry-point-only-from-root-files: transport/route.ts -> engine/topics/candles.ts',
      'entry-point-only: engine/query/pools.ts -> actors/pool/pool.ts',
      'entry-point-only: engine/topics/candles.ts -> engine/model/shape.ts',
      'kernel-is-pure: engine/errors.ts -> engine/model/index.ts',
      'model-is-pure: engine/model/shape.ts -> engine/query/index.ts',
      'plans-to-kernel-model-storage: engine/plans/limits.ts -> actors/pool/index.ts',
      'plans-to-kernel-model-storage: engine/plans/limits.ts -> engine/query/index.ts',
      'plans-to-kernel-model-storage: engine/plans/limits.ts -> transport/route.ts',
      'query-and-topics-not-to-transport: engine/query/pools.ts -> transport/route.ts',
      'query-and-topics-not-to-transport: engine/topics/candles.ts -> transport/route.ts',
      'query-and-topics-read-actors-by-entry: engine/query/pools.ts -> actors/pool/pool.ts',
      'storage-not-to-actors: storage/candles.repo.ts -> actors/pool/index.ts',
      'storage-not-to-engine-layers: storage/candles.repo.ts -> engine/query/index.ts',
      'transport-not-to-actors: transport/route.ts -> actors/pool/index.ts',
      'transport-not-to-lmdb: transport/route.ts -> lmdb',
      'transport-not-to-storage: transport/route.ts -> storage/index.ts',
      'transport-to-query-and-topics-by-entry: transport/route.ts -> engine/query/pools.ts',
      'transport-to-query-and-topics-by-entry: transport/route.ts -> engine/topics/candles.ts',
    ]);
  });

  it('every rule of the configuration is an error, so that a violation fails npm test', () => {
    expect(config.forbidden!.length).toBeGreaterThanOrEqual(10);
    for (const rule of config.forbidden!) expect(rule.severity, rule.name).toBe('error');
  });
});
