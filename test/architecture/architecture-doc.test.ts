/**
 * docs/architecture.md shows the layers eslint enforces: its generated
 * section is what `npm run architecture` makes from lambda/layers.json now.
 */
import { readFileSync } from 'node:fs';
import { BEGIN, DOC, END, layersSection, readLayers, withSection } from '../../scripts/architecture-doc';

describe('docs/architecture.md', () => {
  it('shows the layers of lambda/layers.json (run npm run architecture when this fails)', () => {
    const text = readFileSync(DOC, 'utf8');
    expect(text).toBe(withSection(text, layersSection(readLayers())));
  });

  it('names every layer and folder in its section, lowest last', () => {
    const text = readFileSync(DOC, 'utf8');
    const section = text.slice(text.indexOf(BEGIN), text.indexOf(END));
    const positions = readLayers().map((layer) => section.indexOf(`| ${layer.name} |`));
    expect(positions.every((position) => position > 0)).toBe(true);
    expect([...positions].sort((a, b) => b - a)).toEqual(positions);
  });
});
