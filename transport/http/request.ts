import type { z } from 'zod';
import { badRequest, EngineError } from '../../engine/errors.ts';

/**
 * Turning the raw request (copied out of uWS synchronously) into validated input.
 * Every failure is a 400 / 4000 naming the parameter; nothing here can crash.
 * @internal
 */

/** Printable ASCII: a request target carries anything else percent-encoded (RFC 3986). */
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/** decodeURIComponent throws on `%zz` and on bytes that are not UTF-8 (`%ff`). */
function decode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    // URIError: malformed escape or invalid UTF-8; the caller names the parameter.
    return null;
  }
}

/** The name of a parameter as a message shows it: printable and short. */
const shown = (name: string): string => (name.length > 64 ? `${name.slice(0, 64)}...` : name);

/**
 * Parse a raw query string (`a=1&b=x%20y`, without `?`) into a null-prototype object.
 * `+` is a space, empty segments (`a=1&&b=2`) are skipped, a parameter without `=`
 * has the value "". Stricter than URLSearchParams, which silently keeps `%zz` and
 * turns invalid UTF-8 into U+FFFD: both are a 400 here.
 */
export function parseQueryString(raw: string, bytesMax: number): Record<string, string> {
  // uWS hands raw bytes that are not UTF-8 over as U+FFFD, so a string longer than
  // bytesMax characters is also longer than bytesMax bytes.
  if (raw.length > bytesMax) throw badRequest('query', `longer than ${bytesMax} bytes`);
  if (!PRINTABLE_ASCII.test(raw)) throw badRequest('query', 'characters outside printable ASCII must be percent-encoded');
  const out: Record<string, string> = Object.create(null);
  if (raw === '') return out;
  for (const segment of raw.split('&')) {
    if (segment === '') continue;
    const eq = segment.indexOf('=');
    const rawName = eq < 0 ? segment : segment.slice(0, eq);
    const rawValue = eq < 0 ? '' : segment.slice(eq + 1);
    const name = decode(rawName.replaceAll('+', ' '));
    if (name === null) throw badRequest('query', `malformed percent-encoding in a parameter name: ${shown(rawName)}`);
    if (name === '') throw badRequest('query', 'a parameter has an empty name');
    const value = decode(rawValue.replaceAll('+', ' '));
    if (value === null) throw badRequest(shown(name), 'malformed percent-encoding or invalid UTF-8');
    if (Object.hasOwn(out, name)) throw badRequest(shown(name), 'given more than once');
    out[name] = value;
  }
  return out;
}

/** Percent-decode path parameters (uWS hands them raw) into a null-prototype object. */
export function decodePathParams(names: readonly string[], raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  names.forEach((name, i) => {
    const text = raw[i] ?? '';
    const value = PRINTABLE_ASCII.test(text) ? decode(text) : null;
    if (value === null) throw badRequest(name, 'malformed percent-encoding or invalid characters');
    out[name] = value;
  });
  return out;
}

const BEARER = /^bearer +(\S+) *$/i;
const WHITESPACE = /\s/;

/**
 * The key of an `Authorization: Bearer <key>` header value ('' when absent, as uWS
 * gives it), or null when there is none or the scheme is not Bearer.
 */
export function bearerToken(header: string): string | null {
  // What clients send (`Bearer <key>`) without the regex's match array; anything else below.
  if (header.startsWith('Bearer ')) {
    const key = header.slice(7);
    if (key !== '' && !WHITESPACE.test(key)) return key;
  }
  const match = BEARER.exec(header);
  return match ? match[1]! : null;
}

/** Validate with a route schema; the first issue becomes a 400 naming its parameter. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, where: 'query' | 'path'): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const names = issue.keys.map(shown);
    const noun = where === 'query' ? 'parameter' : 'path parameter';
    const message = `unknown ${noun}${names.length > 1 ? 's' : ''}: ${names.join(', ')}`;
    throw new EngineError(4000, message, { details: { param: issue.keys[0] } });
  }
  const param = issue.path.length > 0 ? issue.path.map(String).join('.') : where;
  throw badRequest(param, issue.message);
}
