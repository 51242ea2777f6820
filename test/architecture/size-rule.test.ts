/**
 * The house rules of size, in every folder of production code (lambda/,
 * lib/, bin/, local/, bench/, scripts/, api/, console/src/; tests and
 * generated type files aside): no file over 300 lines, no function over 80.
 * No exception: the allow-list the rule started with (35 places when it
 * reached every folder) only shrank, and is gone.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');
const FOLDERS = ['lambda', 'lib', 'bin', 'local', 'bench', 'scripts', 'api', 'console/src'];
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;

const productionFiles = (): string[] =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...FOLDERS], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'));

/** The name a function is known by: its own, its variable's or property's, `constructor`, else its line. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile, line: number): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) return parent.name.getText(source);
  return `<function at line ${line}>`;
}

/** Every file over MAX_FILE_LINES and every function over MAX_FUNCTION_LINES, with its lines. */
export function oversized(file: string, text: string): Record<string, number> {
  const found: Record<string, number> = {};
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_FILE_LINES) found[file] = lines;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const length = source.getLineAndCharacterOfPosition(node.getEnd()).line + 2 - start;
      if (length > MAX_FUNCTION_LINES) found[`${file} ${nameOf(node as ts.FunctionLikeDeclaration, source, start)}`] = length;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the size rule, in every folder', () => {
  const measured: Record<string, number> = Object.assign({}, ...productionFiles().map((file) => oversized(file, readFileSync(path.join(ROOT, file), 'utf8'))));

  it(`no file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES}`, () => {
    expect(Object.entries(measured).map(([place, lines]) => `${place}: ${lines} lines`)).toEqual([]);
  });

  it('finds a long file and a long function (so the rules above can fail)', () => {
    const body = Array.from({ length: 90 }, (_, index) => `  const v${index} = ${index};`).join('\n');
    const text = `export function long(): void {\n${body}\n}\n${'\n'.repeat(250)}`;
    expect(oversized('lambda/probe.ts', text)).toEqual({ 'lambda/probe.ts': 342, 'lambda/probe.ts long': 92 });
  });
});
