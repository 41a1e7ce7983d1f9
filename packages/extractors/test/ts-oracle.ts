/**
 * The TypeScript compiler's view of a file, under the extractor's rules: what counts as a definition, which
 * definition defines which, the local names imports bind, and the syntactic callee name of each call
 * attributed to the innermost function or method around it. Used as the oracle of the accuracy test.
 */
import ts from 'typescript';
import { type OracleFacts, type Triple, usable } from './oracle-score';

type Kind = 'function' | 'method' | 'class' | 'interface' | 'type';

interface Scope {
  kind: Kind;
  name: string;
}

const classLike = (kind: Kind) => kind === 'class' || kind === 'interface' || kind === 'type';

function propertyName(name: ts.PropertyName | undefined, source: ts.SourceFile): string | undefined {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  if (ts.isNumericLiteral(name)) return name.getText(source);
  if (ts.isComputedPropertyName(name)) return name.expression.getText(source).trim();
  return undefined;
}

function calleeName(expression: ts.Expression): string | undefined {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
  return undefined;
}

function isRequire(node: ts.Expression | undefined): boolean {
  return (
    node !== undefined &&
    ts.isCallExpression(node) &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'require' &&
    node.arguments.length === 1 &&
    ts.isStringLiteral(node.arguments[0]!)
  );
}

/** The definition a node introduces under the extractor's rules, if any. */
function definitionOf(node: ts.Node, source: ts.SourceFile): Scope | undefined {
  if (ts.isFunctionDeclaration(node) && node.name) return { kind: 'function', name: node.name.text };
  if (ts.isClassDeclaration(node) && node.name) return { kind: 'class', name: node.name.text };
  if (ts.isInterfaceDeclaration(node)) return { kind: 'interface', name: node.name.text };
  if (ts.isTypeAliasDeclaration(node)) return { kind: 'type', name: node.name.text };
  if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
    const value = node.initializer;
    if (ts.isArrowFunction(value) || ts.isFunctionExpression(value))
      return { kind: 'function', name: node.name.text };
    if (ts.isClassExpression(value)) return { kind: 'class', name: node.name.text };
  }
  if (ts.isClassLike(node.parent)) {
    if (ts.isConstructorDeclaration(node)) return { kind: 'method', name: 'constructor' };
    if (
      ts.isMethodDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node)
    ) {
      const name = propertyName(node.name, source);
      if (name !== undefined) return { kind: 'method', name };
    }
  }
  return undefined;
}

function importNames(node: ts.Node): string[] {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return [];
    const names = clause.name ? [clause.name.text] : [];
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) names.push(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements) names.push(element.name.text);
    return names;
  }
  if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
    return [node.name.text];
  }
  if (ts.isVariableDeclaration(node) && isRequire(node.initializer)) {
    if (ts.isIdentifier(node.name)) return [node.name.text];
    if (ts.isObjectBindingPattern(node.name)) {
      return node.name.elements.flatMap((element) =>
        ts.isIdentifier(element.name) ? [element.name.text] : [],
      );
    }
  }
  return [];
}

function namedNode(node: ts.Node): ts.Node | undefined {
  return 'name' in node ? (node.name as ts.Node | undefined) : undefined;
}

export function oracleFacts(file: string, text: string, module: string, facts: OracleFacts): void {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const add = (set: Set<Triple>, from: string, to: string) => {
    if (usable(from) && usable(to)) set.add(`${file}\u0000${from}\u0000${to}`);
  };

  /** `owner` is the innermost definition around the node; `caller` the innermost function or method. */
  const visit = (node: ts.Node, owner: Scope | undefined, caller: Scope | undefined): void => {
    for (const name of importNames(node)) add(facts.imports, module, name);

    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const callee = calleeName(node.expression);
      if (callee !== undefined) add(facts.calls, caller?.name ?? module, callee);
    }

    let definition = definitionOf(node, source);
    if (definition && !usable(definition.name)) definition = undefined;
    if (definition) {
      if (definition.kind === 'function' && owner && classLike(owner.kind)) definition.kind = 'method';
      const segment = classLike(definition.kind)
        ? `class:${definition.name}`
        : `${definition.kind}:${definition.name}`;
      facts.definitions.add(`${file}\u0000${segment}`);
      if (definition.kind === 'method') {
        if (owner && classLike(owner.kind)) add(facts.defines, owner.name, definition.name);
      } else if (!owner) {
        add(facts.defines, module, definition.name);
      }
    }

    const callable = definition && (definition.kind === 'function' || definition.kind === 'method');
    ts.forEachChild(node, (child) => {
      // Decorators, modifiers and computed names are evaluated outside the function they belong to.
      const inside = callable && !ts.isDecorator(child) && !ts.isModifier(child) && child !== namedNode(node);
      visit(child, definition ?? owner, inside ? definition : caller);
    });
  };
  visit(source, undefined, undefined);
}
