/** Python: functions (methods inside classes), classes, docstrings, `import`/`from`/`__future__` imports, calls. */
import type { Node } from 'web-tree-sitter';
import { cleanPythonString } from '../text';
import { type LanguageSpec, statements } from './spec';

const query = `
(function_definition name: (identifier) @name) @function
(class_definition name: (identifier) @name) @class
[(import_statement) (import_from_statement) (future_import_statement)] @import
(call function: [(identifier) @callee (attribute attribute: (identifier) @callee)])
`;

function docOf(definition: Node): string | undefined {
  const body = definition.childForFieldName('body');
  if (!body) return undefined;
  const first = statements(body).next().value;
  if (first?.type !== 'expression_statement' || first.namedChildCount !== 1) return undefined;
  const literal = first.namedChild(0);
  return literal?.type === 'string' ? cleanPythonString(literal.text) : undefined;
}

/**
 * The names an import binds (clarifications, "imported names"): `import a.b.c` → `a`, `import a.b as c` → `c`,
 * `from x import y` → `y`, `from x import y as z` → `z`, `from __future__ import annotations` → `annotations`;
 * `from x import *` binds none.
 */
function importNames(statement: Node): string[] {
  const names: string[] = [];
  for (const imported of statement.childrenForFieldName('name')) {
    if (imported.type === 'dotted_name') {
      const bound = statement.type === 'import_statement' ? imported.namedChild(0) : imported;
      if (bound) names.push(bound.text.replace(/\s+/g, ''));
    } else if (imported.type === 'aliased_import') {
      const alias = imported.childForFieldName('alias');
      if (alias) names.push(alias.text);
    }
  }
  return names;
}

export const python: LanguageSpec = { query, docOf, importNames };
