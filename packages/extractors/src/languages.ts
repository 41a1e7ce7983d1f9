/** Which files are code, in which language, and which tree-sitter grammar parses them. */
import type { CodeLanguage } from './types';

export type Grammar = 'python' | 'javascript' | 'typescript' | 'tsx' | 'go';

const BY_EXTENSION: Record<string, { language: CodeLanguage; grammar: Grammar }> = {
  '.py': { language: 'python', grammar: 'python' },
  '.js': { language: 'javascript', grammar: 'javascript' },
  '.jsx': { language: 'javascript', grammar: 'javascript' },
  '.mjs': { language: 'javascript', grammar: 'javascript' },
  '.cjs': { language: 'javascript', grammar: 'javascript' },
  '.ts': { language: 'typescript', grammar: 'typescript' },
  '.mts': { language: 'typescript', grammar: 'typescript' },
  '.cts': { language: 'typescript', grammar: 'typescript' },
  '.tsx': { language: 'typescript', grammar: 'tsx' },
  '.go': { language: 'go', grammar: 'go' },
};

export const CODE_EXTENSIONS: readonly string[] = Object.keys(BY_EXTENSION);

function extensionOf(path: string): string {
  const base = baseName(path);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot).toLowerCase();
}

/** Last segment of a POSIX, Windows or S3-key path. */
export function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/** File name without its last extension: `src/server.ts` → `server`. */
export function fileStem(path: string): string {
  const base = baseName(path);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? base : base.slice(0, dot);
}

export function languageOf(path: string): CodeLanguage | undefined {
  return BY_EXTENSION[extensionOf(path)]?.language;
}

export function grammarOf(path: string): Grammar | undefined {
  return BY_EXTENSION[extensionOf(path)]?.grammar;
}

export function isCodeFile(path: string): boolean {
  return extensionOf(path) in BY_EXTENSION;
}
