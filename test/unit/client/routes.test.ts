import { describe, expect, it } from 'vitest';
import { HTTP_ROUTES } from '../../../transport/client/routes.ts';
import { ROUTES } from '../../../transport/index.ts';

/** Every route of the table a client calls has its one SDK entry, and each entry names a route that is built. */
describe('client SDK route table', () => {
  const patterns = (tree: object): string[] => Object.values(tree).flatMap((v) => (typeof v === 'string' ? [v] : patterns(v)));

  it('has a method for every built /v1 route and /health, and none for a route not built', () => {
    const wanted = ROUTES.filter((r) => r.pattern.startsWith('/v1/') || r.pattern === '/health').map((r) => r.pattern);
    expect(patterns(HTTP_ROUTES).sort()).toEqual(wanted.sort());
  });
});
