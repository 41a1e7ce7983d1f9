/**
 * JavaScript and TypeScript (TSX too). Definitions: function declarations, functions and classes assigned to a
 * variable (`const f = () => {}`), classes, class methods (object-literal methods are not definitions),
 * and in TypeScript interfaces, type aliases, overload signatures and abstract methods. Imports: default,
 * namespace and named imports (the local name), `import x = require()`, and variables assigned from `require()`.
 * Calls: call and `new` expressions whose callee is a name or a member (`obj.m()` → `m`). The TypeScript
 * grammar reads `await a.f<T>(x)` as a call of `await a.f`, so that shape counts as a call of `f` too.
 */
import type { Node } from 'web-tree-sitter';
import { cleanBlockDoc, unquote } from '../text';
import type { LanguageSpec } from './spec';

const javascriptQuery = `
[(function_declaration name: (identifier) @name) (generator_function_declaration name: (identifier) @name)] @function
(class_declaration name: (_) @name) @class
(class_body (method_definition name: (_) @name) @method)
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)] @value) @function
(variable_declarator name: (identifier) @name value: (class) @value) @class
(import_statement) @import
(variable_declarator
  name: [(identifier) (object_pattern)] @name
  value: (call_expression function: (identifier) @require.fn arguments: (arguments . (string) .))
  (#eq? @require.fn "require")) @require
(call_expression
  function: [(identifier) @callee (member_expression property: (_) @callee)]
  arguments: (arguments))
(new_expression constructor: [(identifier) @callee (member_expression property: (_) @callee)])
`;

const typescriptQuery = `${javascriptQuery}
(function_signature name: (identifier) @name) @function
(abstract_class_declaration name: (_) @name) @class
(class_body [(method_signature name: (_) @name) (abstract_method_signature name: (_) @name)] @method)
(interface_declaration name: (_) @name) @interface
(type_alias_declaration name: (_) @name) @type
(call_expression
  function: (await_expression [(identifier) @callee (member_expression property: (_) @callee)])
  arguments: (arguments))
`;

/** Property names: `'quoted'` → `quoted`, `[Symbol.iterator]` → `Symbol.iterator`, `#private` as written. */
function definitionName(nameNode: Node): string | undefined {
  switch (nameNode.type) {
    case 'string':
      return unquote(nameNode.text);
    case 'computed_property_name':
      return nameNode.text.slice(1, -1).trim();
    default:
      return nameNode.text;
  }
}

/** The `/** ... *\/` comment right before the statement that holds the definition (decorators skipped). */
function docOf(definition: Node): string | undefined {
  let anchor: Node = definition;
  let parent = anchor.parent;
  if (parent && anchor.type === 'variable_declarator') {
    anchor = parent;
    parent = anchor.parent;
  }
  if (parent?.type === 'export_statement') anchor = parent;
  let previous = anchor.previousSibling;
  while (previous?.type === 'decorator') previous = previous.previousSibling;
  if (previous?.type !== 'comment') return undefined;
  const text = previous.text;
  return text.startsWith('/**') ? cleanBlockDoc(text) : undefined;
}

function bindingNames(pattern: Node): string[] {
  if (pattern.type === 'identifier') return [pattern.text];
  if (pattern.type !== 'object_pattern') return [];
  const names: string[] = [];
  for (const property of pattern.namedChildren) {
    if (property.type === 'shorthand_property_identifier_pattern') names.push(property.text);
    else if (property.type === 'pair_pattern') {
      const value = property.childForFieldName('value');
      if (value?.type === 'identifier') names.push(value.text);
    }
  }
  return names;
}

function importNames(statement: Node): string[] {
  // A `require` binding: the match hands over the declarator's name pattern.
  if (statement.type === 'identifier' || statement.type === 'object_pattern') return bindingNames(statement);
  const names: string[] = [];
  for (const part of statement.namedChildren) {
    if (part.type === 'import_require_clause') {
      const local = part.namedChildren.find((child) => child.type === 'identifier');
      if (local) names.push(local.text);
    }
    if (part.type !== 'import_clause') continue;
    for (const clause of part.namedChildren) {
      if (clause.type === 'identifier') names.push(clause.text);
      else if (clause.type === 'namespace_import') {
        const local = clause.namedChildren.find((child) => child.type === 'identifier');
        if (local) names.push(local.text);
      } else if (clause.type === 'named_imports') {
        for (const specifier of clause.namedChildren) {
          if (specifier.type !== 'import_specifier') continue;
          const local = specifier.childForFieldName('alias') ?? specifier.childForFieldName('name');
          if (local) names.push(local.type === 'string' ? unquote(local.text) : local.text);
        }
      }
    }
  }
  return names;
}

export const javascript: LanguageSpec = { query: javascriptQuery, definitionName, docOf, importNames };
export const typescript: LanguageSpec = { ...javascript, query: typescriptQuery };
