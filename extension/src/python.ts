// Which Python runs the language server. In order: the `qualm.python` setting; the interpreter
// chosen in Microsoft's Python extension; the virtual environment qualm's scripts/setup made (it
// writes its interpreter's path into qualm's cache folder); `python3` on PATH. The first that can
// import qualm wins; an explicit setting is never silently replaced by another interpreter.

import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export type Source = "qualm.python setting" | "Python extension" | "qualm setup" | "PATH";

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
  pythonExtension: () => Promise<string | undefined>;
  setupInterpreters: () => string[];
}

export async function candidates(src: CandidateSources): Promise<Candidate[]> {
  const setting = src.setting.trim();
  if (setting) return [{ path: setting, source: "qualm.python setting" }];
  const out: Candidate[] = [];
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
