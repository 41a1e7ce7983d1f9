/**
 * The code extractor: parses a file with tree-sitter, runs the language's query once over the tree, and turns
 * the captures into module, definition and import nodes with `defines`, `imports` and `calls` edges.
 * Nothing in the file's content makes it throw: a tree with errors still yields what it holds.
 */
import type { Node, QueryMatch } from 'web-tree-sitter';
import { Assembly } from './assembly';
import { UnsupportedCodeFileError } from './errors';
import type { LanguageSpec } from './grammars/spec';
import { baseName, fileStem, grammarOf, languageOf } from './languages';
import { type LoadedGrammar, loadGrammar, parseSource } from './parsers';
import { evidence, isUsableName } from './text';
import type { CodeExtraction, DefinitionKind, ExtractOptions } from './types';

interface Definition {
  kind: DefinitionKind;
  name: string;
  start: number;
  end: number;
  /** Calls from here on (parameters and body, not decorators) belong to the definition. */
  scopeStart: number;
  node: Node;
  /** Go: the receiver's type, which defines the method. */
  owner?: string;
  parent?: Definition;
}

interface Call {
  /** The callee's name node: the query captures only that; the call expression is looked up for evidence. */
  node: Node;
  start: number;
  callee: string;
}

interface Import {
  start: number;
  end: number;
  names: string[];
}

interface Captures {
  main?: { name: string; node: Node };
  name?: Node;
  value?: Node;
  receiver?: Node;
  callee?: Node;
}

const DEFINITION_CAPTURES = new Set(['function', 'method', 'class', 'interface', 'type', 'typespec']);
const MAIN_CAPTURES = new Set([...DEFINITION_CAPTURES, 'import', 'require']);
const CALL_TYPES = new Set(['call_expression', 'new_expression', 'call', 'type_conversion_expression']);
const CLASS_LIKE = new Set<DefinitionKind>(['class', 'struct', 'interface', 'type']);

function resolvedGrammar(path: string) {
  const language = languageOf(path);
  const grammar = grammarOf(path);
  if (!language || !grammar) throw new UnsupportedCodeFileError(path);
  return { language, grammar };
}

/** The module node's name: the file stem, or the whole file name when the stem has no letter or digit. */
function moduleName(path: string): string {
  const stem = fileStem(path);
  if (isUsableName(stem)) return stem;
  const base = baseName(path);
  return isUsableName(base) ? base : 'module';
}

function segmentOf(definition: Definition): string {
  if (CLASS_LIKE.has(definition.kind)) return `class:${definition.name}`;
  return `${definition.kind}:${definition.name}`;
}

function capturesOf(match: QueryMatch): Captures {
  const captures: Captures = {};
  for (const capture of match.captures) {
    if (MAIN_CAPTURES.has(capture.name)) captures.main = { name: capture.name, node: capture.node };
    else if (capture.name === 'name') captures.name = capture.node;
    else if (capture.name === 'value') captures.value = capture.node;
    else if (capture.name === 'receiver') captures.receiver = capture.node;
    else if (capture.name === 'callee') captures.callee = capture.node;
  }
  return captures;
}

function definitionOf(spec: LanguageSpec, main: { name: string; node: Node }, captures: Captures) {
  if (!captures.name) return undefined;
  const name = spec.definitionName ? spec.definitionName(captures.name) : captures.name.text;
  if (name === undefined || !isUsableName(name)) return undefined;
  const { node } = main;
  let kind: DefinitionKind;
  if (main.name === 'typespec')
    kind = captures.value && spec.typeKind ? spec.typeKind(captures.value) : 'type';
  else kind = main.name as DefinitionKind;
  let scopeStart = node.startIndex;
  if (kind === 'function' || kind === 'method') {
    scopeStart = captures.value
      ? captures.value.startIndex
      : (node.childForFieldName('parameters')?.startIndex ?? node.startIndex);
  }
  const definition: Definition = { kind, name, start: node.startIndex, end: node.endIndex, scopeStart, node };
  if (captures.receiver && spec.receiverType) {
    const owner = spec.receiverType(captures.receiver);
    if (owner !== undefined && isUsableName(owner)) definition.owner = owner;
  }
  return definition;
}

/** Sorts the definitions in document order and links each to the innermost definition around it. */
function nest(definitions: Definition[]): void {
  definitions.sort((a, b) => a.start - b.start || b.end - a.end);
  const open: Definition[] = [];
  for (const definition of definitions) {
    while (open.length > 0 && open[open.length - 1]!.end <= definition.start) open.pop();
    definition.parent = open[open.length - 1];
    // A function directly inside a class body (Python) is a method.
    if (definition.kind === 'function' && definition.parent && CLASS_LIKE.has(definition.parent.kind)) {
      definition.kind = 'method';
    }
    open.push(definition);
  }
}

function collect(root: Node, source: string, loaded: LoadedGrammar, module: string, out: Assembly): void {
  const { spec, query } = loaded;
  const definitions: Definition[] = [];
  const calls: Call[] = [];
  const imports: Import[] = [];
  for (const match of query.matches(root)) {
    try {
      const captures = capturesOf(match);
      const main = captures.main;
      if (captures.callee) {
        const node = captures.callee;
        const start = node.startIndex;
        const callee = source.slice(start, node.endIndex);
        if (isUsableName(callee)) calls.push({ node, start, callee });
        continue;
      }
      if (!main) continue;
      if (main.name === 'import' || main.name === 'require') {
        const statement = main.name === 'require' ? captures.name : main.node;
        if (!statement) continue;
        const names = spec.importNames(statement).filter(isUsableName);
        if (names.length > 0) imports.push({ start: main.node.startIndex, end: main.node.endIndex, names });
      } else {
        const definition = definitionOf(spec, main, captures);
        if (definition) definitions.push(definition);
      }
    } catch {
      // One node the hooks cannot read must not cost the rest of the file.
    }
  }

  imports.sort((a, b) => a.start - b.start);
  for (const statement of imports) {
    const span = () => evidence(source, statement.start, statement.end);
    for (const name of statement.names) {
      out.node(name, `Imported symbol: ${name}`, `import:${name}`, span, true);
      out.edge(module, name, 'imports', `import:${name}`, span);
    }
  }

  nest(definitions);
  for (const definition of definitions) {
    try {
      const segment = segmentOf(definition);
      const span = () => evidence(source, definition.start, definition.end);
      let description: string | undefined;
      try {
        description = spec.docOf(definition.node);
      } catch {
        description = undefined;
      }
      out.node(
        definition.name,
        description ?? `${definition.kind} definition: ${definition.name}`,
        segment,
        span,
      );
      if (definition.kind === 'method') {
        const owner =
          definition.owner ??
          (definition.parent && CLASS_LIKE.has(definition.parent.kind) ? definition.parent.name : undefined);
        if (owner !== undefined) out.edge(owner, definition.name, 'defines', segment, span);
      } else if (!definition.parent) {
        out.edge(module, definition.name, 'defines', segment, span);
      }
    } catch {
      // As above: skip the one definition.
    }
  }

  attributeCalls(definitions, calls, source, module, out);
}

/** The text of the call expression around a callee name (`obj.m` in `obj.m(x)` → `obj.m(x)`). */
function callEvidence(callee: Node, source: string): string {
  let node: Node | null = callee;
  for (let depth = 0; node && depth < 4; depth++, node = node.parent) {
    if (CALL_TYPES.has(node.type)) return evidence(source, node.startIndex, node.endIndex);
  }
  return evidence(source, callee.startIndex, callee.endIndex);
}

/**
 * Each call belongs to the innermost function or method whose parameters or body hold it, else to the module.
 * The callee's position stands for the call's: no definition starts between a call and its callee name.
 */
function attributeCalls(
  definitions: Definition[],
  calls: Call[],
  source: string,
  module: string,
  out: Assembly,
) {
  const callers = definitions.filter(
    (definition) => definition.kind === 'function' || definition.kind === 'method',
  );
  calls.sort((a, b) => a.start - b.start);
  const open: Definition[] = [];
  let next = 0;
  for (const call of calls) {
    while (next < callers.length && callers[next]!.start <= call.start) {
      const caller = callers[next++]!;
      while (open.length > 0 && open[open.length - 1]!.end <= caller.start) open.pop();
      open.push(caller);
    }
    while (open.length > 0 && open[open.length - 1]!.end <= call.start) open.pop();
    let caller: Definition | undefined;
    for (let i = open.length - 1; i >= 0; i--) {
      if (open[i]!.scopeStart <= call.start) {
        caller = open[i];
        break;
      }
    }
    out.edge(caller?.name ?? module, call.callee, 'calls', caller ? segmentOf(caller) : 'module', () =>
      callEvidence(call.node, source),
    );
  }
}

/** Nodes and edges of one code file. Throws only for a path that is not code or a grammar that cannot load. */
export async function extractCode(
  path: string,
  source: string,
  options: ExtractOptions = {},
): Promise<CodeExtraction> {
  const { language, grammar } = resolvedGrammar(path);
  const loaded = await loadGrammar(grammar);
  const module = moduleName(path);
  const text = typeof source === 'string' ? source : String(source ?? '');
  const out = new Assembly(options.sourceDocId ?? path);
  out.node(module, `Module ${module} (${language})`, 'module', () => evidence(text, 0, text.length));
  const tree = parseSource(loaded, text);
  if (tree) {
    try {
      collect(tree.rootNode, text, loaded, module, out);
    } catch {
      // The query itself failed: keep what was assembled.
    } finally {
      tree.delete();
    }
  }
  return { ...out.result(), language };
}

/** A bare parse for benchmarks: the root node's type (`program`, `module`, `source_file`). */
export async function parseOnly(path: string, source: string): Promise<string> {
  const loaded = await loadGrammar(resolvedGrammar(path).grammar);
  const tree = parseSource(loaded, source);
  try {
    return tree?.rootNode.type ?? 'none';
  } finally {
    tree?.delete();
  }
}
