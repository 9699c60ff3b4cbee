import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The README and docs/ are read in a clone of this repository: every relative link in
 * them names a file of the repository (none outside it, as ../shared/... did), and the
 * README starts a new user with the two commands.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = ['README.md', 'bench/README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Targets of Markdown links `[text](target)` that are not URLs or anchors. */
const relativeLinks = (text: string): string[] =>
  [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^([a-z]+:|#)/.test(t));

describe('README and docs', () => {
  it.each(DOCS)('%s links only to files inside the repository', (doc) => {
    const links = relativeLinks(readFileSync(join(ROOT, doc), 'utf8'));
    for (const link of links) {
      const target = resolve(dirname(join(ROOT, doc)), link.split('#')[0]!);
      expect(relative(ROOT, target).startsWith('..'), `${doc}: ${link} is outside the repository`).toBe(false);
      expect(existsSync(target), `${doc}: ${link} does not exist`).toBe(true);
    }
  });

  it('the README gives the set-up commands, a first request, a first subscription and the API reference', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const text of ['npm install && npm start', 'npm test', 'curl -H "Authorization: Bearer $KEY"', 'type: "subscribe"', '/docs', 'docs/architecture.md']) {
      expect(readme, text).toContain(text);
    }
  });
});
