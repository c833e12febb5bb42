/**
 * The runtime import graph of a module: every file reached through real imports (static imports and
 * re-exports that are not type-only, `require`, and `import()` of a literal), resolved as Node would.
 * A non-literal `import()` is reported, since it is how a server dependency was hidden before.
 * Packages the host provides (pi aliases its own packages for extensions) are recorded, not followed.
 */
import { readFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import ts from "typescript";

export interface ImportGraph {
  files: Set<string>;
  /** Third-party and workspace package names reached (`@scope/name` or `name`). */
  packages: Set<string>;
  /** `file: expression` of every import() whose specifier is not a string literal. */
  opaqueImports: string[];
  unresolved: string[];
}

const BUILTINS = new Set(builtinModules);

function packageOf(path: string): string | null {
  const i = path.lastIndexOf("/node_modules/");
  if (i < 0) return null;
  const rest = path.slice(i + "/node_modules/".length).split("/");
  return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
}

function specifiersOf(file: string, source: string, opaque: string[]): string[] {
  const sf = ts.createSourceFile(
    file,
    source,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith(".ts") ? ts.ScriptKind.TS : ts.ScriptKind.JS,
  );
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause &&
          !clause.name &&
          clause.namedBindings &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 &&
          clause.namedBindings.elements.every((e) => e.isTypeOnly));
      if (!typeOnly && ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node)) {
      const typeOnly =
        node.isTypeOnly ||
        (node.exportClause &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.length > 0 &&
          node.exportClause.elements.every((e) => e.isTypeOnly));
      if (!typeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
        out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node)) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === "require";
      if (isImport || isRequire) {
        const arg = node.arguments[0];
        if (arg && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg))) out.push(arg.text);
        else if (isImport) opaque.push(`${file}: import(${arg?.getText(sf) ?? ""})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

export function importGraph(entry: string, options: { hostProvided?: (spec: string) => boolean } = {}): ImportGraph {
  const graph: ImportGraph = { files: new Set(), packages: new Set(), opaqueImports: [], unresolved: [] };
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (graph.files.has(file)) continue;
    graph.files.add(file);
    if (!/\.(c|m)?(t|j)s$/.test(file)) continue;
    const req = createRequire(file);
    for (const spec of specifiersOf(file, readFileSync(file, "utf8"), graph.opaqueImports)) {
      if (spec.startsWith("node:") || BUILTINS.has(spec) || BUILTINS.has(spec.split("/")[0]!)) continue;
      if (options.hostProvided?.(spec)) {
        graph.packages.add(spec);
        continue;
      }
      let resolved: string;
      try {
        resolved = req.resolve(spec);
      } catch {
        graph.unresolved.push(`${file}: ${spec}`);
        continue;
      }
      const pkg = packageOf(resolved);
      if (pkg) graph.packages.add(pkg);
      else if (!spec.startsWith("."))
        graph.packages.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
      queue.push(resolved);
    }
  }
  return graph;
}
