import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { endpointNameSchema } from '../endpoints/contract.js';
import type { ShapeColumn } from '../endpoints/shape-lock.js';
import { readSourceDeclarations } from '../endpoints/sources.js';
import { sqlProblemLine } from '../endpoints/sql-problem.js';
import { parseBigQuery, queryParameters } from '../sql/bigquery-ast.js';
import { lockShapes, type QueriesCommandOptions } from './queries-commands.js';

export interface QueriesNewOptions extends QueriesCommandOptions {
  /** The endpoint's dotted name: its files are `<name>.sql`, `<name>.yaml`, `<name>.lock.json`. */
  readonly name: string;
  /** The SQL to start from (`-` for stdin). @default a count over the directory's first source */
  readonly sqlFile?: string | undefined;
}

/**
 * `querygate queries new NAME [--sql FILE]`, the scaffold of an endpoint, as `tb create` and dbt's
 * scaffolds make one: the SQL (the file given, or a stub over the directory's first source), a
 * minimal contract (its name, and each `@parameter` of the SQL as required text, for the author
 * to type), and its lock, with the columns and types the engine derives listed in the contract
 * as comments to describe. It refuses to overwrite an endpoint's files. When the SQL does not
 * pass, the files stay for the author to fix, the problems are printed against them with their
 * line and column, and `queries lock NAME` finishes the job.
 */
export async function runQueriesNew(options: QueriesNewOptions): Promise<boolean> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const dir = resolve(options.queriesDir);
  const checked = endpointNameSchema.safeParse(options.name);
  if (!checked.success) {
    print(`✗ ${options.name}: ${checked.error.issues[0]?.message}`);
    return false;
  }
  const { name } = options;
  const files = ['.sql', '.yaml', '.lock.json'].map((extension) => join(dir, `${name}${extension}`));
  const [sqlFile, contractFile] = files as [string, string, string];
  const taken = files.filter((file) => existsSync(file));
  if (taken.length > 0) {
    print(`✗ ${taken.join(', ')}: already there; edit it, then run querygate queries lock ${name}`);
    return false;
  }
  let sql: string;
  let used: Set<string>;
  try {
    sql =
      options.sqlFile === undefined
        ? stubSql(dir, name)
        : readFileSync(options.sqlFile === '-' ? 0 : options.sqlFile, 'utf8');
    used = queryParameters(parseBigQuery(sql));
  } catch (error) {
    print(`✗ ${options.sqlFile === undefined ? dir : sqlProblemLine(resolve(options.sqlFile), error)}`);
    return false;
  }
  writeFileSync(sqlFile, sql.endsWith('\n') ? sql : `${sql}\n`);
  writeFileSync(contractFile, minimalContract(name, [...used]));
  print(`Wrote ${sqlFile}`);
  const locked = await lockShapes({
    ...options,
    only: [name],
    print: (line) => print(line.startsWith('Locked ') ? `Wrote ${line.slice('Locked '.length)}` : line),
  });
  if (!locked.ok) {
    print(`Fix ${sqlFile} (or ${contractFile}), then run querygate queries lock ${name}`);
    return false;
  }
  writeFileSync(contractFile, minimalContract(name, [...used], locked.shapes.get(name)));
  print(`Wrote ${contractFile}`);
  print(`Serve it: querygate serve --queries ${options.queriesDir} --watch, then GET /api/endpoints/${name}`);
  return true;
}

/** A first query over the directory's first source, to edit. */
function stubSql(dir: string, name: string): string {
  const { logs, tables } = readSourceDeclarations(dir);
  const source = logs[0]?.name ?? tables[0]?.name;
  if (source === undefined) throw new Error(`${dir}/sources.yaml declares no source to read`);
  return [
    `-- ${name}: edit this query, then run \`querygate queries lock ${name}\`.`,
    'SELECT COUNT(*) AS n',
    `FROM \`${source}\``,
  ].join('\n');
}

/**
 * The contract with only what cannot be derived, and the rest as comments saying what it may add:
 * each parameter written out (its type is the author's to say), each column of the result with
 * the type the engine gave it.
 */
function minimalContract(
  name: string,
  parameters: readonly string[],
  columns: readonly ShapeColumn[] = [],
): string {
  const lines = [
    `# ${name}: the contract of ${name}.sql (README, "Authoring a query"). Only name is required:`,
    '# the id derives from it; maxRows is 1000, cacheSeconds 0, warmSeconds null unless set here.',
    `name: ${name}`,
    '# description: What the query answers (shown in OpenAPI and GraphQL).',
  ];
  if (parameters.length > 0) {
    lines.push('parameters:');
    for (const parameter of parameters)
      lines.push(
        `  - name: ${parameter}`,
        '    type: text # or integer, number, boolean, timestamp',
        '    required: true',
      );
  }
  if (columns.length > 0) {
    lines.push('# columns: (optional) what to say of each column the query returns, e.g.');
    for (const column of columns)
      lines.push(`#   ${column.name}: { description: "...", nullable: false } # ${column.type}`);
  }
  return `${lines.join('\n')}\n`;
}
