/** Go: functions, methods (defined by their receiver's type), structs, interfaces, other types, imports, calls. */
import type { Node } from 'web-tree-sitter';
import { cleanLineComments, unquote } from '../text';
import type { DefinitionKind } from '../types';
import type { LanguageSpec } from './spec';

const query = `
(function_declaration name: (identifier) @name) @function
(method_declaration receiver: (parameter_list) @receiver name: (field_identifier) @name) @method
(type_spec name: (type_identifier) @name type: (_) @value) @typespec
(type_alias name: (type_identifier) @name) @type
(import_spec) @import
(call_expression function: [(identifier) @callee (selector_expression field: (field_identifier) @callee)])
`;

/** The `//` lines directly above `node`, without a blank line between. */
function lineCommentsAbove(node: Node): string[] {
  const lines: string[] = [];
  let row = node.startPosition.row;
  for (let prev = node.previousSibling; prev?.type === 'comment'; prev = prev.previousSibling) {
    const text = prev.text;
    if (!text.startsWith('//') || prev.endPosition.row !== row - 1) break;
    lines.unshift(text);
    row = prev.startPosition.row;
  }
  return lines;
}

function docOf(definition: Node): string | undefined {
  let lines = lineCommentsAbove(definition);
  // `type X struct{}` carries its comment on the declaration, not on the spec inside it.
  const parent = definition.parent;
  if (lines.length === 0 && parent?.type === 'type_declaration' && parent.namedChildCount === 1) {
    lines = lineCommentsAbove(parent);
  }
  return lines.length > 0 ? cleanLineComments(lines) : undefined;
}

/** An alias binds the alias (`_` and `.` bind no name); otherwise the last segment of the import path. */
function importNames(spec: Node): string[] {
  const alias = spec.childForFieldName('name');
  if (alias) return alias.type === 'package_identifier' ? [alias.text] : [];
  const path = spec.childForFieldName('path');
  if (!path) return [];
  const segments = unquote(path.text).split('/');
  const last = segments[segments.length - 1];
  return last ? [last] : [];
}

function typeKind(value: Node): DefinitionKind {
  if (value.type === 'struct_type') return 'struct';
  if (value.type === 'interface_type') return 'interface';
  return 'type';
}

/** `(s *Server[T])` → `Server`. */
function receiverType(receiver: Node): string | undefined {
  const parameter = receiver.namedChildren.find((child) => child.type === 'parameter_declaration');
  let type = parameter?.childForFieldName('type') ?? null;
  while (type && type.type !== 'type_identifier') {
    if (type.type === 'generic_type') type = type.childForFieldName('type');
    else if (type.type === 'pointer_type' || type.type === 'parenthesized_type') type = type.namedChild(0);
    else return undefined;
  }
  return type?.text;
}

export const go: LanguageSpec = { query, docOf, importNames, typeKind, receiverType };
