/**
 * The shape of lambda/ as its imports draw it: no cycle between folders
 * (two levels deep: lambda/routes/<route>, lambda/store, ...) through value
 * imports (type-only imports are erased), no cycle of files even through
 * type-only imports (a type two files share lives below both), and no file
 * over 300 lines.
 * Read with the TypeScript parser, so `import { type A }` and
 * `import type` are told apart from value imports.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '..', '..');
const lambdaDir = path.join(root, 'lambda');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Whether an import declaration brings in types only (`import type …`, or `import { type A, type B }`): erased. */
function importsTypesOnly(statement: ts.ImportDeclaration): boolean {
  const clause = statement.importClause;
  if (clause?.isTypeOnly) return true;
  const named = clause?.namedBindings;
  return Boolean(clause && !clause.name && named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly));
}

/** A relative specifier a file imports or re-exports, and whether it brings in types only. */
interface Import {
  readonly specifier: string;
  readonly typeOnly: boolean;
}

/** The relative specifiers a file imports or re-exports, type-only ones marked. */
function importsOf(file: string, text: string): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const out: Import[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      out.push({ specifier: (statement.moduleSpecifier as ts.StringLiteral).text, typeOnly: importsTypesOnly(statement) });
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      out.push({ specifier: (statement.moduleSpecifier as ts.StringLiteral).text, typeOnly: statement.isTypeOnly });
    }
  }
  // Dynamic imports load code too.
  for (const match of text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)) out.push({ specifier: match[1], typeOnly: false });
  return out.filter(({ specifier }) => specifier.startsWith('.'));
}

/** The imports of the files on disk, each file parsed once for all the checks of this file. */
const parsed = new Map<string, Import[]>();

function specifiers(file: string, text: string | undefined, typeOnlyToo: boolean): string[] {
  let imports = text === undefined ? parsed.get(file) : importsOf(file, text);
  if (!imports) parsed.set(file, (imports = importsOf(file, readFileSync(file, 'utf8'))));
  return imports.filter(({ typeOnly }) => typeOnlyToo || !typeOnly).map(({ specifier }) => specifier);
}

/** The relative specifiers a file imports or re-exports by value (of `text` when given, else of the file on disk). */
export const valueSpecifiers = (file: string, text?: string): string[] => specifiers(file, text, false);

/** The relative specifiers a file imports or re-exports, type-only ones included. */
export const allSpecifiers = (file: string, text?: string): string[] => specifiers(file, text, true);

function resolveFile(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this candidate
    }
  }
  return undefined;
}

/** lambda/<a>/<b> for a file in a folder two levels deep, lambda/<a> for one directly in lambda/<a>. */
function folderOf(file: string): string {
  const parts = path.relative(lambdaDir, path.dirname(file)).split(path.sep).filter(Boolean);
  return ['lambda', ...parts.slice(0, 2)].join('/');
}

/** Edges between the nodes `nodeOf` names (a folder, a file) through `specifiersOf`, with the file pairs behind each. */
function edgesOf(nodeOf: (file: string) => string, specifiersOf: (file: string) => string[]): Map<string, Map<string, string[]>> {
  const edges = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(lambdaDir)) {
    for (const specifier of specifiersOf(file)) {
      const target = resolveFile(file, specifier);
      if (!target || !target.startsWith(lambdaDir)) continue;
      const [from, to] = [nodeOf(file), nodeOf(target)];
      if (from === to) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      const pairs = edges.get(from)!.get(to) ?? [];
      pairs.push(`${path.relative(root, file)} -> ${path.relative(root, target)}`);
      edges.get(from)!.set(to, pairs);
    }
  }
  return edges;
}

/** Folder edges through value imports. */
const folderEdges = () => edgesOf(folderOf, (file) => valueSpecifiers(file));

/** File edges of lambda/, type-only imports counted. */
const fileEdges = () =>
  edgesOf(
    (file) => path.relative(root, file),
    (file) => allSpecifiers(file),
  );

/** The strongly connected components of more than one folder (Tarjan). */
function cycles(edges: Map<string, Map<string, string[]>>): string[][] {
  const nodes = new Set<string>([...edges.keys(), ...[...edges.values()].flatMap((to) => [...to.keys()])]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}

describe('lambda/ folder graph', () => {
  it('tells a type-only import from a value import', () => {
    const text = [
      "import type { A } from './a';",
      "import { type B } from './b';",
      "import { c, type C } from './c';",
      "export { d } from './d';",
      "export type { E } from './e';",
      "const f = () => import('./f');",
    ].join('\n');
    expect(valueSpecifiers('probe.ts', text)).toEqual(['./c', './d', './f']);
  });

  it('finds a cycle when one is there', () => {
    const edges = new Map([
      ['lambda/a', new Map([['lambda/b', ['x']]])],
      ['lambda/b', new Map([['lambda/c', ['y']]])],
      ['lambda/c', new Map([['lambda/a', ['z']]])],
    ]);
    expect(cycles(edges)).toEqual([['lambda/a', 'lambda/b', 'lambda/c']]);
  });

  it('has no value-import cycle between folders, two levels deep', () => {
    const edges = folderEdges();
    const found = cycles(edges).map((component) => component.flatMap((from) => component.flatMap((to) => edges.get(from)?.get(to) ?? [])));
    expect(found).toEqual([]);
  });

  it('reads type-only imports too when it looks for a cycle of files', () => {
    const text = ["import type { A } from './a';", "import { b } from './b';", "export type { C } from './c';"].join('\n');
    expect(allSpecifiers('probe.ts', text)).toEqual(['./a', './b', './c']);
  });

  it('has no cycle of files, type-only imports counted (a type two files share lives below both)', () => {
    const edges = fileEdges();
    const found = cycles(edges).map((component) => component.flatMap((from) => component.flatMap((to) => edges.get(from)?.get(to) ?? [])));
    expect(found).toEqual([]);
  });

  it('has no file over 300 lines', () => {
    const long = sourceFiles(lambdaDir)
      .map((file) => [path.relative(root, file), readFileSync(file, 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 300);
    expect(long).toEqual([]);
  });
});
