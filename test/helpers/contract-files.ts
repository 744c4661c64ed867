import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { queriesDir } from '../../src/paths.js';

/** A contract file as written, read with the yaml package alone (independent of the registry). */
export interface ContractFile {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly maxRows: number;
  readonly cacheSeconds: number;
  readonly warmSeconds: number | null;
  maximumBytesBilled?: string;
  readonly parameters: ReadonlyArray<{
    readonly name: string;
    readonly required: boolean;
    readonly description: string;
    readonly format?: string;
    readonly values?: ReadonlyArray<string | { readonly value: string }>;
    readonly otherValues?: string;
    readonly fallback?: string;
  }>;
}

/** Every `<name>.yaml` contract of a queries directory, sorted by file name as the registry loads them. */
export function readContractFiles(dir: string = queriesDir): ContractFile[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml') && file !== 'sources.yaml' && !file.endsWith('.lock.yaml'))
    .sort()
    .map((file) => parse(readFileSync(join(dir, file), 'utf8')) as ContractFile);
}

/** The declared values of a parameter as text. */
export const valueTexts = (values: ContractFile['parameters'][number]['values']) =>
  values?.map((value) => (typeof value === 'string' ? value : value.value));
