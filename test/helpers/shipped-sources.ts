import { readSources } from '../../src/endpoints/sources.js';
import { queriesDir } from '../../src/paths.js';

/** The nine Supabase-style sources shipped in `queries/sources.yaml`, which most tests write and read. */
export const logSources = readSources(queriesDir);
