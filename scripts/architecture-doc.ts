/**
 * The part of docs/architecture.md that shows the layers of lambda/: made
 * from lambda/layers.json, the list eslint.config.mjs builds its import rule
 * from, so the page and the rule cannot disagree. `npm run architecture`
 * writes it between the markers; test/architecture/architecture-doc.test.ts
 * fails when the page is stale.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const BEGIN = '<!-- layers:begin (generated from lambda/layers.json by `npm run architecture`) -->';
export const END = '<!-- layers:end -->';

interface Layer {
  readonly name: string;
  readonly folders: readonly string[];
  readonly holds: string;
}

export const ROOT = path.resolve(__dirname, '..');
export const DOC = path.join(ROOT, 'docs', 'architecture.md');

export function readLayers(): Layer[] {
  return (JSON.parse(readFileSync(path.join(ROOT, 'lambda', 'layers.json'), 'utf8')) as { layers: Layer[] }).layers;
}

const id = (layer: Layer) => layer.name.replace(/[^a-z]/g, '');
const folders = (layer: Layer) => layer.folders.map((folder) => `lambda/${folder}/`).join(', ');

/** The generated section: a diagram, highest layer first, and the table. */
export function layersSection(layers: readonly Layer[]): string {
  const top = [...layers].reverse();
  const nodes = top.map((layer) => `  ${id(layer)}["${layer.name}: ${folders(layer)}"]`);
  const arrows = top.slice(0, -1).map((layer, i) => `  ${id(layer)} --> ${id(top[i + 1])}`);
  const rows = top.map(
    (layer, i) => `| ${top.length - i} | ${layer.name} | ${layer.folders.map((folder) => `\`lambda/${folder}/\``).join(', ')} | ${layer.holds} |`,
  );
  return [
    BEGIN,
    '',
    'Each layer may import its own folders and every layer below it, type-only imports included, and nothing above; an arrow points at the next one down.',
    '',
    '```mermaid',
    'flowchart TD',
    ...nodes,
    ...arrows,
    '```',
    '',
    '| layer | name | folders | holds |',
    '|---|---|---|---|',
    ...rows,
    '',
    END,
  ].join('\n');
}

/** `text` with its generated section replaced by `section`. */
export function withSection(text: string, section: string): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md has no ${BEGIN} … ${END} section`);
  return text.slice(0, start) + section + text.slice(end + END.length);
}
