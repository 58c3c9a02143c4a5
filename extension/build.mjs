// Bundles the extension (one file, `vscode` external) and compiles the tests next to it.
// `node extension/build.mjs [--watch]`; type checking is `npm run typecheck` (esbuild only strips types).
import * as esbuild from "esbuild";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const here = new URL(".", import.meta.url).pathname;
const watch = process.argv.includes("--watch");
const common = { bundle: true, platform: "node", format: "cjs", target: "node18", sourcemap: true, logLevel: "warning" };
const tests = (dir) => readdirSync(join(here, dir)).filter((f) => f.endsWith(".ts")).map((f) => join(here, dir, f));

const builds = [
  { ...common, entryPoints: [join(here, "src/extension.ts")], outfile: join(here, "../dist/extension.js"), external: ["vscode"], minify: !watch },
  { ...common, entryPoints: tests("test/unit"), outdir: join(here, "out/test/unit"), external: ["vscode", "mocha"] },
  { ...common, entryPoints: tests("test/e2e/suite"), outdir: join(here, "out/test/e2e/suite"), external: ["vscode", "mocha"] },
  { ...common, entryPoints: [join(here, "test/e2e/run.ts")], outfile: join(here, "out/test/e2e/run.js"), external: ["playwright-core"] },
];

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
