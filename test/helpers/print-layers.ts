// `npm run layers`: the drawing of docs/architecture.md, made anew from the imports of src/.
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { drawLayers, layers, readImportGraph } from './import-graph.js';

process.stdout.write(`${drawLayers(readImportGraph(join(packageRoot, 'src')), layers)}\n`);
