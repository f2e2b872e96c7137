// Module hooks of scripts/test-loader.mjs (they run on Node's loader thread): a project module
// imported as .js that exists only as .ts resolves to the .ts file, whose source is the compiled
// file under build/ with its source map.
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { fileURLToPath } from "node:url";

let root;
let build;

export function initialize(data) {
  root = data.root;
  build = data.build;
}

const ours = (url) => url.startsWith(root) && !url.includes("/node_modules/") && !url.startsWith(build);

export async function resolve(specifier, context, next) {
  if (
    specifier.startsWith(".") &&
    specifier.endsWith(".js") &&
    context.parentURL &&
    ours(context.parentURL)
  ) {
    const url = new URL(specifier, context.parentURL);
    if (ours(url.href) && !existsSync(url)) {
      const ts = new URL(`${url.href.slice(0, -3)}.ts`);
      if (existsSync(ts)) return { url: ts.href, format: "module", shortCircuit: true };
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!(url.endsWith(".ts") && ours(url))) return next(url, context);
  const compiled = new URL(`${build}${url.slice(root.length, -3)}.js`);
  if (!existsSync(compiled)) {
    throw new Error(
      `${url} is not compiled into build/: run it with node scripts/run-tests.mjs, which builds the tests`,
    );
  }
  // The map's path, relative to the compiled file, made relative to the .ts file the module
  // stays at (Node reads a source map only from a relative path or a data: URL).
  const source = readFileSync(compiled, "utf8").replace(/\/\/# sourceMappingURL=(\S+)\s*$/, (_, map) => {
    const from = dirname(fileURLToPath(url));
    return `//# sourceMappingURL=${relative(from, fileURLToPath(new URL(map, compiled)))}\n`;
  });
  return { format: "module", source, shortCircuit: true };
}
