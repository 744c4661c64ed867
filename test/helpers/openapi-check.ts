import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Document = {
  paths: Record<
    string,
    {
      get: {
        operationId: string;
        parameters: Array<{ name: string; required: boolean; example?: unknown }>;
        responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }>;
      };
    }
  >;
};

/** Problems a real OpenAPI 3.1 validator finds in a document; empty when it is valid. */
export async function openApiProblems(document: unknown): Promise<unknown[]> {
  const validator = new Validator();
  const result = await validator.validate(document as Parameters<Validator['validate']>[0]);
  return result.valid ? [] : ((result.errors as unknown[] | undefined) ?? ['invalid']);
}

/**
 * Calls every operation of the document on the server with its parameters' example values and
 * checks each 200 body against the document's own response schema (ajv, JSON Schema 2020-12 as
 * OpenAPI 3.1 has it). Returns one line per operation that failed; empty when all held.
 */
export async function callEveryOperation(
  document: unknown,
  get: (path: string, params: Record<string, string>) => Promise<{ status: number; body: unknown }>,
  /** Values sent instead of the examples (a fixture's project, say), by parameter name. */
  overrides: Readonly<Record<string, string>> = {},
): Promise<{ called: string[]; problems: string[]; rows: number }> {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const format of ['int64', 'double', 're2']) ajv.addFormat(format, true);
  // OpenAPI's registry of formats defines `decimal` as a number's exact decimal text.
  ajv.addFormat('decimal', /^-?\d+(\.\d+)?$/);
  ajv.addSchema(document as object, 'openapi.json');
  const called: string[] = [];
  const problems: string[] = [];
  let rows = 0;
  for (const [path, item] of Object.entries((document as Document).paths)) {
    const operation = item.get;
    const params = Object.fromEntries(
      operation.parameters
        .filter((parameter) => parameter.example !== undefined)
        .map((parameter) => [parameter.name, overrides[parameter.name] ?? String(parameter.example)]),
    );
    const response = await get(path, params);
    called.push(operation.operationId);
    rows += (response.body as { result?: unknown[] } | undefined)?.result?.length ?? 0;
    if (response.status !== 200) {
      problems.push(`${operation.operationId}: answered ${response.status} ${JSON.stringify(response.body)}`);
      continue;
    }
    const ref = operation.responses['200']?.content?.['application/json']?.schema.$ref ?? '';
    const validate = ajv.getSchema(`openapi.json${ref}`);
    if (!validate) {
      problems.push(`${operation.operationId}: no schema at ${ref}`);
    } else if (!validate(response.body)) {
      problems.push(`${operation.operationId}: ${ajv.errorsText(validate.errors)}`);
    }
  }
  return { called, problems, rows };
}
