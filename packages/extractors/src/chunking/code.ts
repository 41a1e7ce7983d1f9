/**
 * Code chunking along the syntax tree: one chunk per top-level definition (with the comments and decorators
 * right above it), a class too long for one chunk split into its methods plus a header chunk, and the code
 * between definitions gathered into `module` chunks. Work is by whole lines, so every non-blank line of the
 * file lands in exactly one chunk; only a single line longer than the limit is cut inside the line.
 */
import type { Node } from 'web-tree-sitter';
import { UnsupportedCodeFileError } from '../errors';
import type { LanguageSpec } from '../grammars/spec';
import { baseName, fileStem, grammarOf, languageOf } from '../languages';
import { type LoadedGrammar, loadGrammar, parseSource } from '../parsers';
import { cleanPythonString, isUsableName } from '../text';
import type { CodeLanguage, DefinitionKind } from '../types';
import { cutInto } from './text';

/** Chunks stay within this many characters. */
export const CODE_CHUNK_CHARS = 4000;

export type CodeChunkKind = DefinitionKind | 'module';

export interface CodeChunk {
  text: string;
  /** The definition's name (`Class.method` for methods, `Type.Method` for Go methods); the file stem for module code. */
  symbol: string;
  kind: CodeChunkKind;
  /** 1-based, inclusive. A gathered chunk (module code, a class header) spans from its first to its last line. */
  start_line: number;
  end_line: number;
  /** The definition's docstring or doc comment, cleaned and cut to 300 characters; module chunks: the module docstring. */
  docstring: string | null;
  language: CodeLanguage;
}

interface Definition {
  kind: DefinitionKind;
  name: string;
  node: Node;
  owner?: string;
  parent?: Definition;
}

/** A definition's statement as a range of rows (0-based, inclusive). */
interface Unit {
  kind: DefinitionKind;
  symbol: string;
  docstring: string | null;
  first: number;
  last: number;
  /** Top-level classes: the body whose direct definitions are the members. */
  body?: Node;
  definition: Definition;
}

const DEFINITION_CAPTURES = new Set(['function', 'method', 'class', 'interface', 'type', 'typespec']);
const CLASS_LIKE = new Set<DefinitionKind>(['class', 'struct', 'interface', 'type']);
/** Statements that only wrap a definition: the definition's chunk is the whole statement. */
const WRAPPERS = new Set([
  'export_statement',
  'decorated_definition',
  'lexical_declaration',
  'variable_declaration',
  'type_declaration',
  'ambient_declaration',
]);
const LEADING = new Set(['comment', 'decorator']);

function definitionsOf(root: Node, loaded: LoadedGrammar): Definition[] {
  const { spec, query } = loaded;
  const definitions: Definition[] = [];
  for (const match of query.matches(root)) {
    try {
      let main: { name: string; node: Node } | undefined;
      let name: Node | undefined;
      let value: Node | undefined;
      let receiver: Node | undefined;
      for (const capture of match.captures) {
        if (DEFINITION_CAPTURES.has(capture.name)) main = { name: capture.name, node: capture.node };
        else if (capture.name === 'name') name = capture.node;
        else if (capture.name === 'value') value = capture.node;
        else if (capture.name === 'receiver') receiver = capture.node;
      }
      if (!main || !name) continue;
      const text = spec.definitionName ? spec.definitionName(name) : name.text;
      if (text === undefined || !isUsableName(text)) continue;
      let kind: DefinitionKind;
      if (main.name === 'typespec') kind = value && spec.typeKind ? spec.typeKind(value) : 'type';
      else kind = main.name as DefinitionKind;
      const definition: Definition = { kind, name: text, node: main.node };
      if (receiver && spec.receiverType) definition.owner = spec.receiverType(receiver);
      definitions.push(definition);
    } catch {
      // A node the hooks cannot read stays in the surrounding chunk.
    }
  }
  definitions.sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
  const open: Definition[] = [];
  for (const definition of definitions) {
    while (open.length > 0 && open[open.length - 1]!.node.endIndex <= definition.node.startIndex) open.pop();
    definition.parent = open[open.length - 1];
    if (definition.kind === 'function' && definition.parent && CLASS_LIKE.has(definition.parent.kind)) {
      definition.kind = 'method';
    }
    open.push(definition);
  }
  return definitions;
}

/** The statement of `container` that holds the definition, when nothing but wrappers lies between them. */
function statementIn(definition: Definition, container: Node): Node | undefined {
  let node = definition.node;
  while (node.parent && node.parent.id !== container.id && WRAPPERS.has(node.parent.type)) node = node.parent;
  if (node.type === 'variable_declarator' && node.parent && WRAPPERS.has(node.parent.type))
    node = node.parent;
  return node.parent?.id === container.id ? node : undefined;
}

/** The statement's rows, extended over the comments and decorators directly above it on their own lines. */
function rowsOf(statement: Node): { first: number; last: number } {
  let first = statement.startPosition.row;
  let last = statement.endPosition.row;
  if (last > first && statement.endPosition.column === 0) last--;
  for (let previous = statement.previousSibling; previous; previous = previous.previousSibling) {
    if (!LEADING.has(previous.type) || previous.endPosition.row < first - 1) break;
    const before = previous.previousSibling;
    if (before && before.endPosition.row >= previous.startPosition.row) break;
    first = previous.startPosition.row;
  }
  return { first, last };
}

function docOf(spec: LanguageSpec, definition: Definition): string | null {
  try {
    return spec.docOf(definition.node) ?? null;
  } catch {
    return null;
  }
}

function classBody(definition: Definition): Node | undefined {
  const node =
    definition.node.type === 'variable_declarator'
      ? definition.node.childForFieldName('value')
      : definition.node;
  return node?.childForFieldName('body') ?? undefined;
}

/** One unit per statement; a statement defining several names (Go `type (...)`) lists them all. */
function unitsIn(
  container: Node,
  definitions: Definition[],
  spec: LanguageSpec,
  symbolOf: (definition: Definition) => string,
): Unit[] {
  const units = new Map<number, Unit>();
  for (const definition of definitions) {
    const statement = statementIn(definition, container);
    if (!statement) continue;
    const existing = units.get(statement.id);
    if (existing) {
      existing.symbol += `, ${symbolOf(definition)}`;
      if (existing.kind !== definition.kind) existing.kind = 'type';
      continue;
    }
    const unit: Unit = {
      kind: definition.kind,
      symbol: symbolOf(definition),
      docstring: docOf(spec, definition),
      ...rowsOf(statement),
      definition,
    };
    if (definition.kind === 'class') unit.body = classBody(definition);
    units.set(statement.id, unit);
  }
  return [...units.values()].sort((a, b) => a.first - b.first);
}

/** A piece of a chunk: its rows and its text (the rows' lines, or a slice of one over-long line). */
interface Piece {
  rows: number[];
  text: string;
}

class Lines {
  readonly lines: string[];

  constructor(source: string) {
    this.lines = source.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  }

  blank(row: number): boolean {
    return this.lines[row]!.trim() === '';
  }

  /** Consecutive rows without blank rows at either end; undefined when all are blank. */
  trimmed(rows: number[]): number[] | undefined {
    let start = 0;
    let end = rows.length;
    while (start < end && this.blank(rows[start]!)) start++;
    while (end > start && this.blank(rows[end - 1]!)) end--;
    return start < end ? rows.slice(start, end) : undefined;
  }

  text(rows: number[]): string {
    return rows.map((row) => this.lines[row]).join('\n');
  }

  /**
   * Runs of rows (each consecutive) packed in order into pieces of at most `max` characters, runs joined by a
   * newline; a run too long for one piece is cut by lines, and a line too long, by characters.
   */
  pack(runs: number[][], max = CODE_CHUNK_CHARS): Piece[] {
    const pieces: Piece[] = [];
    let current: Piece | undefined;
    const flush = () => {
      if (current) pieces.push(current);
      current = undefined;
    };
    const add = (rows: number[], text: string) => {
      if (current && current.text.length + 1 + text.length <= max) {
        current.rows.push(...rows);
        current.text += `\n${text}`;
      } else {
        flush();
        current = { rows: [...rows], text };
      }
    };
    for (const raw of runs) {
      const run = this.trimmed(raw);
      if (!run) continue;
      const text = this.text(run);
      if (text.length <= max) {
        add(run, text);
        continue;
      }
      flush();
      // Cut the run by lines; blank lines at a cut are dropped with the piece's trimming.
      let rows: number[] = [];
      const close = () => {
        const kept = rows.length > 0 ? this.trimmed(rows) : undefined;
        if (kept) pieces.push({ rows: kept, text: this.text(kept) });
        rows = [];
      };
      let length = -1;
      for (const row of run) {
        const line = this.lines[row]!;
        if (line.length > max) {
          close();
          length = -1;
          for (const part of cutInto(line, max)) pieces.push({ rows: [row], text: part });
          continue;
        }
        if (length + 1 + line.length > max) {
          close();
          length = -1;
        }
        rows.push(row);
        length += 1 + line.length;
      }
      close();
    }
    flush();
    return pieces;
  }
}

/** Consecutive runs of the rows in `from..to` that `taken` does not hold. */
function freeRuns(from: number, to: number, taken: Set<number>): number[][] {
  const runs: number[][] = [];
  let run: number[] = [];
  for (let row = from; row <= to; row++) {
    if (taken.has(row)) {
      if (run.length > 0) runs.push(run);
      run = [];
    } else run.push(row);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, index) => first + index);
}

/** Units clamped so none starts before the previous one ends; a unit left with no row is dropped. */
function disjoint(units: Unit[], from: number): Unit[] {
  const kept: Unit[] = [];
  let next = from;
  for (const unit of units) {
    const first = Math.max(unit.first, next);
    if (first > unit.last) continue;
    kept.push({ ...unit, first });
    next = unit.last + 1;
  }
  return kept;
}

function moduleName(path: string): string {
  const stem = fileStem(path);
  if (isUsableName(stem)) return stem;
  const base = baseName(path);
  return isUsableName(base) ? base : 'module';
}

/** Python's module docstring and its row. */
function moduleDocstring(root: Node, language: CodeLanguage): { row: number; text: string } | undefined {
  if (language !== 'python') return undefined;
  const first = root.namedChildren.find((child) => child.type !== 'comment');
  if (first?.type !== 'expression_statement' || first.namedChildCount !== 1) return undefined;
  const literal = first.namedChild(0);
  if (literal?.type !== 'string') return undefined;
  const text = cleanPythonString(literal.text);
  return text === undefined ? undefined : { row: first.startPosition.row, text };
}

function toChunks(
  pieces: Piece[],
  kind: CodeChunkKind,
  symbol: string,
  docstring: string | null,
  language: CodeLanguage,
): CodeChunk[] {
  return pieces.map((piece) => ({
    text: piece.text,
    symbol,
    kind,
    start_line: piece.rows[0]! + 1,
    end_line: piece.rows[piece.rows.length - 1]! + 1,
    docstring,
    language,
  }));
}

/** A definition's chunks: one when it fits, else a long class's header and members, else cuts by lines. */
function chunkUnit(
  unit: Unit,
  definitions: Definition[],
  spec: LanguageSpec,
  lines: Lines,
  language: CodeLanguage,
): CodeChunk[] {
  const rows = range(unit.first, unit.last);
  if (lines.text(rows).length <= CODE_CHUNK_CHARS || !unit.body) {
    return toChunks(lines.pack([rows]), unit.kind, unit.symbol, unit.docstring, language);
  }
  const owner = unit.definition;
  const members = definitions.filter((definition) => definition.parent === owner);
  const memberUnits = disjoint(
    unitsIn(unit.body, members, spec, (member) => `${owner.name}.${member.name}`),
    unit.first,
  ).filter((member) => member.last <= unit.last);
  const memberRows = new Set<number>();
  for (const member of memberUnits) for (const row of range(member.first, member.last)) memberRows.add(row);
  const header = lines.pack(freeRuns(unit.first, unit.last, memberRows));
  return [
    ...toChunks(header, unit.kind, unit.symbol, unit.docstring, language),
    ...memberUnits.flatMap((member) =>
      toChunks(
        lines.pack([range(member.first, member.last)]),
        member.kind,
        member.symbol,
        member.docstring,
        language,
      ),
    ),
  ];
}

/**
 * Chunks of a code file (the extensions of `isCodeFile`), in file order. Throws `UnsupportedCodeFileError` for
 * any other path and `GrammarUnavailableError` when the grammar cannot load; file content never makes it throw.
 */
export async function chunkCode(path: string, source: string): Promise<CodeChunk[]> {
  const language = languageOf(path);
  const grammar = grammarOf(path);
  if (!language || !grammar) throw new UnsupportedCodeFileError(path);
  const loaded = await loadGrammar(grammar);
  const lines = new Lines(source);
  const module = moduleName(path);
  const chunks: CodeChunk[] = [];
  const taken = new Set<number>();
  let docstring: { row: number; text: string } | undefined;
  const tree = parseSource(loaded, source);
  if (tree) {
    try {
      const root = tree.rootNode;
      docstring = moduleDocstring(root, language);
      const definitions = definitionsOf(root, loaded);
      const topLevel = definitions.filter((definition) => !definition.parent);
      const symbolOf = (definition: Definition) =>
        definition.kind === 'method' && definition.owner
          ? `${definition.owner}.${definition.name}`
          : definition.name;
      for (const unit of disjoint(unitsIn(root, topLevel, loaded.spec, symbolOf), 0)) {
        try {
          const rows = range(unit.first, unit.last);
          const unitChunks = chunkUnit(unit, definitions, loaded.spec, lines, language);
          chunks.push(...unitChunks);
          for (const row of rows) taken.add(row);
        } catch {
          // This definition's lines are chunked as module code below.
        }
      }
    } catch {
      // Whatever was not chunked as a definition is chunked as module code below.
    } finally {
      tree.delete();
    }
  }

  for (const piece of lines.pack(freeRuns(0, lines.lines.length - 1, taken))) {
    const holdsDocstring = docstring !== undefined && piece.rows.includes(docstring.row);
    chunks.push(...toChunks([piece], 'module', module, holdsDocstring ? docstring!.text : null, language));
  }
  return chunks.sort((a, b) => a.start_line - b.start_line);
}
