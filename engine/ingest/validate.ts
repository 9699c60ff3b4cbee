import { EVENT_SCHEMAS, identityParts, type EventType, type IngestEvent } from './events.ts';

/**
 * The pure first stage of the gate: parse, validate, name the identity. No I/O and
 * no state, so it can run on a worker thread when parsing becomes the bottleneck.
 */
export type Validation =
  | { ok: true; event: IngestEvent; bucket: string; member: string; unknownFields: boolean }
  | { ok: false; reason: string; type?: string; unknownType?: boolean };

const KNOWN = new Set<string>(Object.keys(EVENT_SCHEMAS));

/** Number of own enumerable keys, without allocating an array. */
function keyCount(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

export function validateObject(raw: unknown): Validation {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, reason: 'event: expected a JSON object' };
  }
  const type = (raw as { type?: unknown }).type;
  if (type === undefined) return { ok: false, reason: 'type: required' };
  if (typeof type !== 'string') return { ok: false, reason: 'type: expected a string' };
  if (!KNOWN.has(type)) return { ok: false, reason: `type: unknown type ${type.slice(0, 64)}`, type, unknownType: true };
  const parsed = EVENT_SCHEMAS[type as EventType].safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.join('.') : '(event)';
    const message = issue.code === 'invalid_type' && (raw as Record<string, unknown>)[String(issue.path[0])] === undefined
      ? 'required'
      : issue.message;
    return { ok: false, reason: `${type}.${field}: ${message}`, type };
  }
  const event = parsed.data as IngestEvent;
  // Zod strips unknown fields; more keys in the input than in the output means some.
  const unknownFields = keyCount(raw) > keyCount(event);
  const [bucket, member] = identityParts(event);
  return { ok: true, event, bucket, member, unknownFields };
}

export function validateLine(line: string): Validation {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    return { ok: false, reason: `json: ${(err as Error).message.slice(0, 200)}` };
  }
  return validateObject(raw);
}
