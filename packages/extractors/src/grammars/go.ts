/**
 * Go: functions, methods (defined by their receiver's type), structs, interfaces, other types, imports, calls.
 * A call with explicit type arguments is a call of the generic function (clarifications). The grammar gives it
 * three shapes: `F[[]int](a, b)` a call with `type_arguments`; `F[T](x)` and `pkg.F[A, B](x)` a
 * `type_conversion_expression` of a `generic_type`; `getTyped[string](c, key)` a call of an `index_expression`.
 * Syntax cannot tell `F[T](x)` from a call of a function value held in a map or slice (`fns[i](x)`), so an index
 * that can be a type (a name, `pkg.T`, `*T`, `G[T]`) counts as type arguments and one that cannot (a literal,
 * arithmetic, a call) does not.
 */
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
(call_expression
  function: (index_expression
    operand: [(identifier) @callee (selector_expression field: (field_identifier) @callee)]
    index: [(identifier) (selector_expression) (unary_expression operator: "*") (index_expression)]))
(type_conversion_expression
  type: (generic_type type: [(type_identifier) @callee (qualified_type name: (type_identifier) @callee)]))
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

/**
 * goimports' assumed package name of an import path: the last element, the one before it when the last is
 * `v<digits>`, a leading `go-` removed, cut at the first character that is not a letter, digit or underscore
 * (`github.com/go-playground/validator/v10` → `validator`, `github.com/mattn/go-isatty` → `isatty`,
 * `gopkg.in/yaml.v3` → `yaml`).
 */
export function assumedPackageName(importPath: string): string {
  const elements = importPath.split('/');
  let base = elements[elements.length - 1] ?? '';
  if (/^v[0-9]+$/.test(base) && elements.length > 1) base = elements[elements.length - 2] ?? '';
  if (base.startsWith('go-')) base = base.slice(3);
  const stop = base.search(/[^\p{L}\p{Nd}_]/u);
  return stop === -1 ? base : base.slice(0, stop);
}

/** An alias binds the alias (`_` and `.` bind no name); otherwise goimports' assumed name. */
function importNames(spec: Node): string[] {
  const alias = spec.childForFieldName('name');
  if (alias) return alias.type === 'package_identifier' ? [alias.text] : [];
  const path = spec.childForFieldName('path');
  if (!path) return [];
  const name = assumedPackageName(unquote(path.text));
  return name ? [name] : [];
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
