/** What each language contributes to the extractor: one query and a few hooks over the captured nodes. */
import type { Node } from 'web-tree-sitter';
import type { DefinitionKind } from '../types';

/**
 * Capture names the query uses. Definitions: `@function`, `@method`, `@class`, `@interface`, `@type` or
 * `@typespec` (Go: the kind follows `@value`), each with `@name`, optionally `@value` (the assigned function
 * or class of a variable definition) and `@receiver` (Go). Imports: `@import` (the statement) or `@require`
 * (a variable assigned from `require('x')`, with `@name`). Calls: `@callee`, the callee's name node, alone (the
 * call expression is found from it only when an edge needs its text).
 */
export interface LanguageSpec {
  query: string;
  /** A definition's name from its name node, when the node's text is not the name itself. */
  definitionName?(nameNode: Node): string | undefined;
  /** The cleaned docstring or doc comment of a definition node. */
  docOf(definition: Node): string | undefined;
  /** The local names an import statement (or a `require` binding pattern) binds. */
  importNames(statement: Node): string[];
  /** Go: struct, interface or other type, from a type_spec's type node. */
  typeKind?(value: Node): DefinitionKind;
  /** Go: the receiver's type name of a method declaration. */
  receiverType?(receiver: Node): string | undefined;
}

/** Named children of `node` that are not comments. */
export function* statements(node: Node): Generator<Node> {
  for (let i = 0; i < node.namedChildCount; i++) {
    const child = node.namedChild(i);
    if (child && child.type !== 'comment') yield child;
  }
}
