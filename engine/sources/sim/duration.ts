const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;

/**
 * Milliseconds of a duration: `500ms`, `90s`, `30m`, `1h`, `2d`, `1.5h`, or a plain
 * number of milliseconds (`3600000`). Throws an Error naming the accepted forms.
 */
export function parseDuration(text: string): number {
  const match = DURATION.exec(String(text).trim());
  if (match === null) {
    throw new Error(`invalid duration ${JSON.stringify(text)}: expected a number with an optional unit ms, s, m, h or d (e.g. 500ms, 90s, 30m, 1h, or 3600000 for milliseconds)`);
  }
  const ms = Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!);
  if (!Number.isSafeInteger(ms)) throw new Error(`invalid duration ${JSON.stringify(text)}: too large`);
  return ms;
}
