import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from '@guanmingchiu/sqlparser-ts';
import { type Ast, variant } from '../../sql/bigquery-ast.js';
import { dottedName } from '../../sql/tables-named.js';
import { type BigQueryConfig, routineName } from './config.js';
import { replaceName } from './qualify.js';

/** One UDF the saved queries call, as BigQuery gets it (`queries/udf/<name>.bigquery.sql`). */
export interface BigQueryUdf {
  /** The name the saved SQL calls, e.g. `generate_timestamp_trunc_array`. */
  readonly name: string;
  /** `project.dataset.name`, the routine the DDL creates and the queries call. */
  readonly qualifiedName: string;
  /** `CREATE OR REPLACE FUNCTION ...`: running it again replaces the function, so setup is idempotent. */
  readonly ddl: string;
}

const suffix = '.bigquery.sql';
// The files name the function `${dataset}.<name>`: a placeholder for its dataset.
// biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text the files contain
const datasetPlaceholder = '${dataset}';

/**
 * The UDFs of `queriesDir/udf/`. Each file is parsed; it must be one CREATE FUNCTION of
 * `${dataset}.<file name>`, and that name (found in the AST, at the span the parser reports) is
 * replaced by the backticked `project.dataset.name`. A comment mentioning the placeholder stays
 * as it is, and a file that drifted from its name fails here rather than as a missing routine.
 */
export function readBigQueryUdfs(queriesDir: string, config: BigQueryConfig): BigQueryUdf[] {
  const dir = join(queriesDir, 'udf');
  return readdirSync(dir)
    .filter((file) => file.endsWith(suffix))
    .sort()
    .map((file) => {
      const name = file.slice(0, -suffix.length);
      const qualifiedName = routineName(config, name);
      const template = readFileSync(join(dir, file), 'utf8');
      const parts = createdFunctionName(template);
      if (!parts || dottedName(parts) !== `${datasetPlaceholder}.${name}`) {
        throw new Error(`${join(dir, file)} must be one CREATE FUNCTION \`${datasetPlaceholder}.${name}\``);
      }
      return { name, qualifiedName, ddl: replaceName(template, parts, `\`${qualifiedName}\``) };
    });
}

/** The name parts of the function a single CREATE FUNCTION statement creates. */
function createdFunctionName(ddl: string): Ast[] | undefined {
  const statements = parse(ddl, 'bigquery') as Ast[];
  if (statements.length !== 1) return undefined;
  const [kind, node] = variant(statements[0]);
  return kind === 'CreateFunction' ? (node.name as Ast[]) : undefined;
}
