// Which Python runs the language server. In order: the `qualm.python` setting; qualm's engine (the
// environment that the "Set Up qualm's Engine" command made from the wheel in the .vsix: engine.ts),
// when its qualm is the bundled version exactly; the interpreter chosen in Microsoft's Python
// extension; the virtual environment qualm's scripts/setup made (it writes its interpreter's path
// into qualm's cache folder); `python3` on PATH. The first that can
// import qualm wins; an explicit setting is never silently replaced by another interpreter.
// Everything that talks to the Python extension's API is here too. The module imports only types
// from `vscode` (it is given what it needs), so the unit tests load it without VS Code.

import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Disposable, Event, Extension, Uri, WorkspaceFolder } from "vscode";

export type Source = "qualm.python setting" | "qualm engine" | "Python extension" | "qualm setup" | "PATH";

export interface Candidate {
  path: string;
  source: Source;
}

export interface ProbeResult {
  ok: boolean;
  /** qualm's version when ok, else why not (the interpreter's own error). */
  detail: string;
}

export interface Choice {
  chosen?: Candidate & { version: string };
  tried: { candidate: Candidate; detail: string }[];
}

export interface CandidateSources {
  setting: string;
  /** The engine's Python when its qualm is the bundled version (engine.ts: judgeEngine "ready"). */
  engine?: string;
  pythonExtension: () => Promise<string | undefined>;
  setupInterpreters: () => string[];
}

export async function candidates(src: CandidateSources): Promise<Candidate[]> {
  const setting = src.setting.trim();
  if (setting) return [{ path: setting, source: "qualm.python setting" }];
  const out: Candidate[] = [];
  if (src.engine) out.push({ path: src.engine, source: "qualm engine" });
  const fromExtension = await src.pythonExtension().catch(() => undefined);
  if (fromExtension) out.push({ path: fromExtension, source: "Python extension" });
  for (const p of src.setupInterpreters()) out.push({ path: p, source: "qualm setup" });
  out.push({ path: process.platform === "win32" ? "python" : "python3", source: "PATH" });
  const seen = new Set<string>();
  return out.filter((c) => (seen.has(c.path) ? false : (seen.add(c.path), true)));
}

export async function chooseInterpreter(cands: Candidate[], probe: (path: string) => Promise<ProbeResult>): Promise<Choice> {
  const tried: Choice["tried"] = [];
  for (const candidate of cands) {
    const result = await probe(candidate.path);
    if (result.ok) return { chosen: { ...candidate, version: result.detail }, tried };
    tried.push({ candidate, detail: result.detail });
  }
  return { tried };
}

/** Runs `python -c "import qualm"` and reports qualm's version or the error, within a time limit. */
export function probeInterpreter(path: string, timeoutMs = 20000): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(path, ["-c", "import qualm; print(qualm.__version__)"], { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (!err) return resolve({ ok: true, detail: stdout.trim() });
      const lines = `${stderr}`.trim().split("\n");
      const last = lines[lines.length - 1];
      resolve({ ok: false, detail: (err as NodeJS.ErrnoException).code === "ENOENT" ? "not found" : last || err.message });
    });
  });
}

/** The oldest Python the sandbox runs tests with (qualm_sandbox.isolation.MIN_PYTHON). */
export const MIN_TESTS_PYTHON: [number, number] = [3, 9];

/** An interpreter's version as [major, minor], or undefined when it does not start in time. */
export function pythonVersion(path: string, timeoutMs = 20000): Promise<[number, number] | undefined> {
  return new Promise((resolve) => {
    execFile(path, ["-c", "import sys; print('%d %d' % sys.version_info[:2])"], { timeout: timeoutMs }, (err, stdout) => {
      const parts = `${stdout}`.trim().split(" ").map(Number);
      resolve(!err && parts.length === 2 && parts.every(Number.isInteger) ? [parts[0], parts[1]] : undefined);
    });
  });
}

/** The interpreter to run the model's tests of the user's code with, when qualm.functional.python is
 * empty: the Python extension's, where it starts and is new enough for the sandbox; else none (the
 * server then uses its own) and why. */
export async function testsInterpreter(
  fromExtension: string | undefined,
  version: (path: string) => Promise<[number, number] | undefined> = pythonVersion,
): Promise<{ path?: string; why: string }> {
  if (!fromExtension) return { why: "no interpreter selected in the Python extension: the tests run with the server's Python" };
  const v = await version(fromExtension);
  if (!v) return { why: `the Python extension's interpreter ${fromExtension} did not start: the tests run with the server's Python` };
  const [major, minor] = MIN_TESTS_PYTHON;
  if (v[0] < major || (v[0] === major && v[1] < minor)) {
    return { why: `the Python extension's interpreter ${fromExtension} is ${v[0]}.${v[1]}, older than the sandbox's ${major}.${minor}: the tests run with the server's Python` };
  }
  return { path: fromExtension, why: `the tests of your code run with the Python extension's interpreter ${fromExtension}` };
}

/** qualm's cache folder, as platformdirs computes it on the server side (QUALM_CACHE_DIR overrides). */
export function qualmCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home = homedir()): string {
  if (env.QUALM_CACHE_DIR) return env.QUALM_CACHE_DIR;
  if (platform === "darwin") return join(home, "Library", "Caches", "qualm");
  if (platform === "win32") return join(env.LOCALAPPDATA ?? join(home, "AppData", "Local"), "qualm", "Cache");
  return join(env.XDG_CACHE_HOME || join(home, ".cache"), "qualm");
}

/** Interpreters the setup left behind: the one it recorded in the cache, and a .venv beside the extension
 * (when the extension runs from a qualm checkout, as in development and the end-to-end tests). */
export function setupInterpreters(extensionPath: string, cacheDir = qualmCacheDir()): string[] {
  const out: string[] = [];
  const recorded = join(cacheDir, "interpreter");
  if (existsSync(recorded)) {
    const path = readFileSync(recorded, "utf8").trim();
    if (path) out.push(path);
  }
  const beside = join(extensionPath, ".venv", process.platform === "win32" ? "Scripts/python.exe" : "bin/python");
  if (existsSync(beside)) out.push(beside);
  return out;
}

// ---- Microsoft's Python extension (ms-python.python) ----

export const PYTHON_EXTENSION_ID = "ms-python.python";

/** An environment as the Python extension names it: an interpreter's path or an environment folder. */
export interface EnvironmentPath {
  id?: string;
  path: string;
}

/** The event the Python extension fires when the selected interpreter changes (for a folder, or for all). */
export interface ActiveEnvironmentPathChange extends EnvironmentPath {
  resource?: WorkspaceFolder | Uri;
}

/** The parts of the Python extension's exported API that qualm uses. */
export interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: Uri | WorkspaceFolder): EnvironmentPath;
    resolveEnvironment(env: EnvironmentPath | string): Promise<{ executable?: { uri?: Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: Event<ActiveEnvironmentPathChange>;
  };
  settings?: { getExecutionDetails?(resource?: Uri): { execCommand?: string[] } };
}

/** The Python extension's API, activating the extension if needed; undefined when it is not installed. */
export async function pythonExtensionApi(getExtension: (id: string) => Extension<unknown> | undefined): Promise<PythonExtensionApi | undefined> {
  const ext = getExtension(PYTHON_EXTENSION_ID);
  if (!ext) return undefined;
  const api = ext.isActive ? ext.exports : await ext.activate();
  return (api ?? undefined) as PythonExtensionApi | undefined;
}

/** The interpreter selected in the Python extension for a resource (a folder or a document). */
export async function pythonExtensionInterpreter(api: PythonExtensionApi | undefined, resource?: Uri): Promise<string | undefined> {
  if (!api) return undefined;
  const envs = api.environments;
  if (envs) {
    const active = envs.getActiveEnvironmentPath(resource);
    const resolved = await envs.resolveEnvironment(active);
    const exe = resolved?.executable?.uri?.fsPath;
    if (exe) return exe;
  }
  const details = api.settings?.getExecutionDetails?.(resource);
  return details?.execCommand?.[0];
}

export interface InterpreterChange {
  /** The qualm.python setting (for the server's scope). */
  setting: string;
  /** The environment path the Python extension reported before this change. */
  previous: string | undefined;
  /** The one it reports now. */
  next: string | undefined;
  /** The interpreter the server runs with now, if it runs. */
  running: string | undefined;
}

/** Whether a change of the Python extension's interpreter should restart the server, and why. An explicit
 * qualm.python is never replaced; a change to what the server already runs with (or no change at all:
 * the extension fires again for each folder) restarts nothing. */
export function restartOnInterpreterChange(c: InterpreterChange): { restart: boolean; why: string } {
  if (c.setting.trim()) return { restart: false, why: `qualm.python is set (${c.setting.trim()}): the Python extension's choice is not used` };
  if (c.next === c.previous) return { restart: false, why: `the Python extension's interpreter is still ${c.next ?? "unset"}` };
  if (c.next !== undefined && c.next === c.running) return { restart: false, why: `the server already runs with ${c.next}` };
  return { restart: true, why: `the Python extension's interpreter changed from ${c.previous ?? "none"} to ${c.next ?? "none"}` };
}

/** Calls `onChange` with the decision each time the Python extension's selected interpreter changes.
 * Undefined when the API has no such event (an old Python extension). */
export function watchPythonInterpreter(
  api: PythonExtensionApi,
  scope: () => Uri | undefined,
  state: () => { setting: string; running: string | undefined },
  onChange: (decision: { restart: boolean; why: string }) => void,
): Disposable | undefined {
  const envs = api.environments;
  if (!envs?.onDidChangeActiveEnvironmentPath) return undefined;
  let previous: string | undefined;
  try {
    previous = envs.getActiveEnvironmentPath(scope())?.path;
  } catch {
    previous = undefined;
  }
  return envs.onDidChangeActiveEnvironmentPath((e) => {
    const next = e?.path || undefined;
    const decision = restartOnInterpreterChange({ ...state(), previous, next });
    previous = next;
    onChange(decision);
  });
}
