/**
 * The module boundaries of STYLE.md section 3 that the code honours today, checked by
 * `npm test` (`npm run lint:deps`). A rule names the row of the table it enforces, or
 * the rule of its last paragraph (imports from another folder go through its index.ts).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'entry-point-only',
      comment:
        "Imports from another folder go through that folder's index.ts (STYLE.md 3). A folder is engine/<part>/, actors/<kind>/, transport/<part>/ or storage/; the files of one folder (its subfolders included) import each other directly.",
      severity: 'error',
      from: { path: '^(engine/[^/]+|actors/[^/]+|transport/[^/]+|storage)/' },
      to: { path: '^(engine/[^/]+/|actors/[^/]+/|transport/[^/]+/|storage/)', pathNot: ['^$1/', '/index\\.ts$'] },
    },
    {
      name: 'entry-point-only-from-root-files',
      comment: "The files at the top of engine/, actors/ and transport/ (system.ts, cli.ts, actors/index.ts, transport/server.ts...) import a folder through its index.ts too (STYLE.md 3).",
      severity: 'error',
      from: { path: '^(engine|actors|transport)/[^/]+\\.ts$' },
      to: { path: '^(engine/[^/]+/|actors/[^/]+/|transport/[^/]+/|storage/)', pathNot: '/index\\.ts$' },
    },
    {
      name: 'model-is-pure',
      comment: 'engine/model holds the shapes every layer shares: it imports nothing internal (STYLE.md 3).',
      severity: 'error',
      from: { path: '^engine/model/' },
      to: { path: '^(engine|actors|storage|transport|bench|test)/', pathNot: '^engine/model/' },
    },
    {
      name: 'kernel-is-pure',
      comment: 'The kernel (engine/errors, clock, log, config, bounds) imports nothing internal but itself (STYLE.md 3).',
      severity: 'error',
      from: { path: '^engine/(errors|clock|log|config|bounds)\\.ts$' },
      to: { path: '^(engine|actors|storage|transport|bench|test)/', pathNot: '^engine/(errors|clock|log|config|bounds)\\.ts$' },
    },
    {
      name: 'storage-not-to-actors',
      comment: 'storage/ may import the kernel and engine/model only: shapes it shares with actors live in engine/model (STYLE.md 3).',
      severity: 'error',
      from: { path: '^storage/' },
      to: { path: '^actors/' },
    },
    {
      name: 'storage-not-to-engine-layers',
      comment: 'storage/ sits under the query, live, ingest and supervisor layers and the transport: it never imports them (STYLE.md 3).',
      severity: 'error',
      from: { path: '^storage/' },
      to: { path: '^(engine/(query|topics|supervisor|ingest|sources|plans)/|engine/system\\.ts$|transport/)' },
    },
    {
      name: 'transport-not-to-storage',
      comment: 'transport/ reads through engine/query and engine/topics: never storage/ (STYLE.md 3).',
      severity: 'error',
      from: { path: '^transport/' },
      to: { path: '^storage/' },
    },
    {
      name: 'transport-not-to-lmdb',
      comment: 'transport/ never sees lmdb (STYLE.md 3).',
      severity: 'error',
      from: { path: '^transport/' },
      to: { path: '(^|/)node_modules/lmdb/|^lmdb$' },
    },
    {
      name: 'transport-not-to-actors',
      comment: 'transport/ may import actors/connection only (STYLE.md 3).',
      severity: 'error',
      from: { path: '^transport/' },
      to: { path: '^actors/', pathNot: '^actors/connection/' },
    },
    {
      name: 'actors-not-to-transport',
      comment: 'actors/ never import the transport, nor uWebSockets.js (STYLE.md 3).',
      severity: 'error',
      from: { path: '^actors/' },
      to: { path: '^transport/|uWebSockets\\.js' },
    },
    {
      name: 'actors-not-to-query-or-live',
      comment: 'actors/ never import the read facade or the live streams (engine/query, engine/topics): those read actors, not the reverse (STYLE.md 3).',
      severity: 'error',
      from: { path: '^actors/' },
      to: { path: '^engine/(query|topics)/' },
    },
    {
      name: 'query-and-topics-not-to-transport',
      comment: 'engine/query and engine/topics are what the transport reads and listens to: they never import it (STYLE.md 3).',
      severity: 'error',
      from: { path: '^engine/(query|topics)/' },
      to: { path: '^transport/' },
    },
    {
      name: 'query-and-topics-read-actors-by-entry',
      comment: 'engine/query and engine/topics read actor state through actors/index.ts only (its read-only views), never an actor file (STYLE.md 3, issue 21).',
      severity: 'error',
      from: { path: '^engine/(query|topics)/' },
      to: { path: '^actors/', pathNot: '^actors/index\\.ts$' },
    },
    {
      name: 'transport-to-query-and-topics-by-entry',
      comment: 'transport/ imports engine/query and engine/topics through their entry points (index.ts) only, never a file inside (STYLE.md 3).',
      severity: 'error',
      from: { path: '^transport/' },
      to: { path: '^engine/(query|topics)/', pathNot: '^engine/(query|topics)/index\\.ts$' },
    },
    {
      name: 'plans-to-kernel-model-storage',
      comment:
        'engine/plans (keys, plan admission, account limits) imports the kernel (engine/errors, clock, log, bounds, config, metrics), engine/model, storage/ and the account actor it hosts (actors/account) only: never the query, live, ingest or supervisor layers nor the transport (STYLE.md 3; actors/account is the one addition to its row, since plan admission keeps one account actor per account).',
      severity: 'error',
      from: { path: '^engine/plans/' },
      to: {
        path: '^(engine|actors|storage|transport|bench|test)/',
        pathNot: '^(engine/plans/|engine/(errors|clock|log|bounds|config|metrics)\\.ts$|engine/model/|storage/|actors/account/)',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a boundary holds for types as well (STYLE.md 3 allows
    // storage *types* in ingest, a row not enforced here).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^dist/' },
  },
};
