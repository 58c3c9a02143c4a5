// npm run package: dist/qualm.vsix, the extension with the engine it sets up (issue 57). The .vsix
// carries the bundled client (dist/extension.js) and, under dist/engine, qualm's wheel (PyPA's build:
// an sdist first, the wheel from it, so the working tree's build/ folder never leaks in),
// scripts/engine_setup.py and constraints.txt, described by manifest.json. The model is never
// bundled: the engine setup assembles it from PyPI.
//
//   node extension/package.mjs [--version X.Y.Z] [--out PATH]
// --version packages another version of both the extension and the wheel (the upgrade's end-to-end
// test makes a newer .vsix this way); the checkout is not changed. The Python that builds the wheel:
// QUALM_PYTHON, else .venv/bin/python (scripts/setup installs build there), else python3.
import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repo = resolve(new URL(".", import.meta.url).pathname, "..");
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
const version = arg("--version") ?? pkg.version;
const out = resolve(arg("--out") ?? join(repo, "dist", "qualm.vsix"));
const python = process.env.QUALM_PYTHON ?? (existsSync(join(repo, ".venv", "bin", "python")) ? join(repo, ".venv", "bin", "python") : "python3");
const run = (cmd, args, cwd = repo) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "inherit", "inherit"] });

const work = mkdtempSync(join(tmpdir(), "qualm-package-"));
try {
  // 1. the client, bundled
  run(process.execPath, [join(repo, "extension", "build.mjs")]);

  // 2. qualm's wheel, at `version`: from the checkout, or from a copy whose pyproject says `version`
  let source = repo;
  const pyproject = readFileSync(join(repo, "pyproject.toml"), "utf8");
  if (!pyproject.includes(`\nversion = "${version}"\n`)) {
    source = join(work, "source");
    for (const p of ["pyproject.toml", "README.md", "LICENSE", "server", "sandbox"]) {
      cpSync(join(repo, p), join(source, p), { recursive: true, filter: (f) => !/(__pycache__|\.egg-info)$/.test(f) });
    }
    writeFileSync(join(source, "pyproject.toml"), pyproject.replace(/\nversion = "[^"]+"\n/, `\nversion = "${version}"\n`));
  }
  const wheels = join(work, "wheels");
  // no isolation: the build backend (setuptools) is the one the lock installed; no network needed
  run(python, ["-m", "build", "--no-isolation", "--outdir", wheels, source]);
  const wheel = readdirSync(wheels).find((f) => f.endsWith(".whl"));
  if (!wheel) throw new Error(`python -m build made no wheel in ${wheels}`);

  // 3. the .vsix's contents, staged apart from the checkout
  const stage = join(work, "stage");
  const engine = join(stage, "dist", "engine");
  mkdirSync(engine, { recursive: true });
  mkdirSync(join(stage, "extension"), { recursive: true });
  copyFileSync(join(repo, "dist", "extension.js"), join(stage, "dist", "extension.js"));
  copyFileSync(join(repo, "extension", "README.md"), join(stage, "extension", "README.md"));
  copyFileSync(join(repo, "LICENSE"), join(stage, "LICENSE"));
  copyFileSync(join(repo, ".vscodeignore"), join(stage, ".vscodeignore"));
  copyFileSync(join(wheels, wheel), join(engine, wheel));
  copyFileSync(join(repo, "scripts", "engine_setup.py"), join(engine, "engine_setup.py"));
  copyFileSync(join(repo, "constraints.txt"), join(engine, "constraints.txt"));
  writeFileSync(join(engine, "manifest.json"), JSON.stringify({ version, wheel, script: "engine_setup.py", constraints: "constraints.txt" }, null, 2) + "\n");
  // the staged manifest: this version, and no prepublish step (the client is built above)
  const { "vscode:prepublish": _prepublish, ...scripts } = pkg.scripts;
  writeFileSync(join(stage, "package.json"), JSON.stringify({ ...pkg, version, scripts }, null, 2) + "\n");

  mkdirSync(resolve(out, ".."), { recursive: true });
  const vsce = join(repo, "node_modules", ".bin", "vsce");
  run(vsce, ["package", "--no-dependencies", "--allow-missing-repository", "--readme-path", "extension/README.md", "--out", out], stage);
  console.log(`${out}: qualm ${version}, ${(statSync(out).size / 1e6).toFixed(2)} MB (engine: ${wheel})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
