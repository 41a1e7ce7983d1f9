/**
 * A real code corpus for evaluation and benchmarks: the functions, methods and classes of a TypeScript
 * codebase in node_modules (apache-arrow's sources), read with the TypeScript compiler API. A documented
 * declaration gives a query (the first sentence of its doc comment) whose one relevant document is the
 * declaration's code without the comment.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface CodeChunk {
  id: string;
  file: string;
  symbol: string;
  code: string;
  /** First sentence of the doc comment, when the declaration has a meaningful one. */
  doc?: string;
}

const root = path.resolve(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

function firstSentence(comment: string): string | undefined {
  const text = comment
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, ''))
    .join(' ')
    .split(/\s@\w+/)[0]!
    .replace(/\{@link\s+([^}]+)\}/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  const sentence = text.split(/(?<=\.)\s/)[0]!.trim();
  return sentence.split(' ').length >= 4 ? sentence : undefined;
}

/** Every function, method and class declaration of the package's sources. */
export function codeCorpus(packageDir = path.join(root, 'node_modules/apache-arrow/src')): CodeChunk[] {
  const chunks: CodeChunk[] = [];
  for (const file of sourceFiles(packageDir).sort()) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const relative = path.relative(packageDir, file);
    const visit = (node: ts.Node) => {
      const named =
        ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isClassDeclaration(node)
          ? node.name?.getText(source)
          : undefined;
      if (named && (!ts.isMethodDeclaration(node) || node.body)) {
        const comments = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
        const jsDoc = comments
          .map((c) => text.slice(c.pos, c.end))
          .filter((c) => c.startsWith('/**'))
          .at(-1);
        const code = node.getText(source);
        chunks.push({
          id: `${relative}#${named}@${node.getStart(source)}`,
          file: relative,
          symbol: named,
          code: code.length > 4000 ? code.slice(0, 4000) : code,
          doc: jsDoc ? firstSentence(jsDoc) : undefined,
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return chunks;
}

/** Queries with one relevant document each; a doc sentence shared by several declarations is left out. */
export function docstringQueries(chunks: CodeChunk[]): { query: string; relevant: string }[] {
  const byDoc = new Map<string, CodeChunk[]>();
  for (const chunk of chunks) if (chunk.doc) byDoc.set(chunk.doc, [...(byDoc.get(chunk.doc) ?? []), chunk]);
  return [...byDoc]
    .filter(([, owners]) => owners.length === 1)
    .map(([query, [owner]]) => ({ query, relevant: owner!.id }));
}
