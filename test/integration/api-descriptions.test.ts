import SwaggerParser from '@apidevtools/swagger-parser';
import { Parser } from '@asyncapi/parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/http.ts';

/**
 * /openapi.json and /asyncapi.json as served, checked by third-party validators:
 * @apidevtools/swagger-parser (the document against the OpenAPI 3.1 schema, every $ref
 * resolved) and @asyncapi/parser (the AsyncAPI schema and its rules). Errors fail; the
 * parser's warnings, information and hints (style rules) do not. Each validator is
 * also shown a broken copy, which it must refuse.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const document = async (path: string) => (await (await fetch(t.baseUrl + path)).json()) as Record<string, unknown>;

describe('API descriptions', () => {
  it('/openapi.json is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    const doc = await document('/openapi.json');
    const api = (await SwaggerParser.validate(structuredClone(doc) as never)) as { openapi: string };
    expect(api.openapi).toBe('3.1.0');
    // The validator does refuse: a response without its required description.
    const broken = structuredClone(doc) as any;
    broken.paths['/health'].get.responses['200'] = { content: {} };
    await expect(SwaggerParser.validate(broken)).rejects.toThrow(/description/);
  });

  it('/asyncapi.json is a valid AsyncAPI document (@asyncapi/parser)', async () => {
    const doc = await document('/asyncapi.json');
    const diagnostics = await new Parser().validate(JSON.stringify(doc));
    // Severity 0 is an error; 1-3 are warnings, information and hints.
    const errors = diagnostics.filter((d) => d.severity === 0).map((d) => `${d.code} at ${d.path.join('.')}: ${d.message}`);
    expect(errors).toEqual([]);
    // The parser does refuse: an operation on a channel that does not exist.
    const broken = structuredClone(doc) as any;
    const [name] = Object.keys(broken.operations);
    broken.operations[name!].channel = { $ref: '#/channels/nowhere' };
    expect((await new Parser().validate(JSON.stringify(broken))).filter((d) => d.severity === 0)).not.toEqual([]);
  });
});
