/**
 * `npm run architecture`: rewrites the layers section of docs/architecture.md
 * from lambda/layers.json (see scripts/architecture-doc.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DOC, ROOT, layersSection, readLayers, withSection } from './architecture-doc';

const text = readFileSync(DOC, 'utf8');
const next = withSection(text, layersSection(readLayers()));
if (next === text) console.log(`${path.relative(ROOT, DOC)} is up to date`);
else {
  writeFileSync(DOC, next);
  console.log(`wrote ${path.relative(ROOT, DOC)}`);
}
