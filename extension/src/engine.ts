// qualm's engine as the .vsix ships it: qualm's wheel, the setup script (scripts/engine_setup.py) and
// constraints.txt under dist/engine, described by dist/engine/manifest.json (written by
// extension/package.mjs). The engine is a virtual environment in the extension's global storage; the
// "Set Up qualm's Engine" command (engineSetup.ts) runs the steps below in order. This module only
// plans and judges (no VS Code here, so the unit tests load it).

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** What dist/engine/manifest.json says: the engine this .vsix carries. */
export interface BundledEngine {
  /** qualm's version in the wheel: the extension's own (one version, pyproject.toml). */
  version: string;
  /** Absolute paths of the bundled files. */
  wheel: string;
  script: string;
  constraints: string;
}

/** The engine bundled with the extension at `extensionPath`; undefined in a development build (a clone
 * runs scripts/setup instead) or when the manifest is unreadable. */
export function bundledEngine(extensionPath: string): BundledEngine | undefined {
  const dir = join(extensionPath, "dist", "engine");
  try {
    const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { version?: unknown; wheel?: unknown; script?: unknown; constraints?: unknown };
    if (typeof m.version !== "string" || typeof m.wheel !== "string" || typeof m.script !== "string" || typeof m.constraints !== "string") return undefined;
    const engine = { version: m.version, wheel: join(dir, m.wheel), script: join(dir, m.script), constraints: join(dir, m.constraints) };
    return existsSync(engine.wheel) && existsSync(engine.script) ? engine : undefined;
  } catch {
    return undefined;
  }
}

/** The engine's virtual environment, in the extension's global storage (kept across updates). */
export function engineDir(globalStoragePath: string): string {
  return join(globalStoragePath, "engine");
}

export function venvPython(venv: string, platform: NodeJS.Platform = process.platform): string {
  return join(venv, platform === "win32" ? "Scripts/python.exe" : "bin/python");
}

/** The oldest Python qualm runs on (pyproject.toml's requires-python). */
export const MIN_ENGINE_PYTHON: [number, number] = [3, 10];

/** Interpreters that may create the engine's environment, in order: the Python extension's choice, then
 * the usual names on PATH, newest first. */
export function basePythonCandidates(fromExtension: string | undefined, platform: NodeJS.Platform = process.platform): string[] {
  const names = platform === "win32" ? ["python", "py"] : ["python3", "python3.13", "python3.12", "python3.11", "python3.10", "python"];
  return [...new Set([...(fromExtension ? [fromExtension] : []), ...names])];
}

export function newEnough(v: [number, number] | undefined): boolean {
  if (!v) return false;
  const [major, minor] = MIN_ENGINE_PYTHON;
  return v[0] > major || (v[0] === major && v[1] >= minor);
}

export type Gpu = "cpu" | "cuda";

export interface SetupStep {
  id: "venv" | "llama" | "qualm" | "model" | "check";
  /** What the progress notification says while the step runs. */
  title: string;
  command: string;
  args: string[];
}

/** The steps that set up (or upgrade) the engine in `venv` from the bundled files. Each is a process of
 * its own: Cancel stops the one that runs, a failure names its step. Steps that find their work done
 * (the environment there, llama-cpp-python built with these flags, the model verified) return at once,
 * so an upgrade to a newer .vsix reinstalls only qualm. */
export function setupSteps(basePython: string, engine: BundledEngine, venv: string, gpu: Gpu, platform: NodeJS.Platform = process.platform): SetupStep[] {
  const py = venvPython(venv, platform);
  const common = ["--venv", venv];
  return [
    { id: "venv", title: "creating a Python environment for qualm", command: basePython, args: [engine.script, "venv", ...common] },
    {
      id: "llama",
      title: gpu === "cuda" ? "building llama.cpp for your NVIDIA GPU (CUDA; minutes, once)" : "building llama.cpp for this CPU (minutes, once; reused after)",
      command: py,
      args: [engine.script, "llama", ...common, "--gpu", gpu],
    },
    { id: "qualm", title: `installing qualm ${engine.version} and its libraries`, command: py, args: [engine.script, "qualm", ...common, "--wheel", engine.wheel, "--constraints", engine.constraints] },
    { id: "model", title: "assembling and verifying the default model (Qwen2.5-Coder-0.5B, about 400 MB)", command: py, args: [engine.script, "model", ...common] },
    { id: "check", title: `checking that qualm ${engine.version} starts`, command: py, args: [engine.script, "check", ...common, "--version", engine.version] },
  ];
}

/** The last `n` non-empty lines of a step's output, for the failure notification. */
export function lastLines(output: string, n = 6): string {
  return output
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim())
    .slice(-n)
    .join("\n");
}

/** The failure notification's text: the step, how it ended, the last lines of its output. */
export function stepFailure(step: SetupStep, exit: { code: number | null; signal: string | null; error?: string }, output: string): string {
  const how = exit.error ? `could not start ${step.command} (${exit.error})` : exit.signal ? `was stopped (${exit.signal})` : `exited with ${exit.code}`;
  const tail = lastLines(output, 3);
  return `qualm: the engine setup failed at step "${step.title}": it ${how}.${tail ? ` Last lines: ${tail.replace(/\n/g, " ⏎ ")}` : ""}`;
}

/** How the engine in global storage compares with the bundled one. */
export type EngineState =
  | { kind: "none" }
  | { kind: "absent" }
  | { kind: "ready"; python: string }
  | { kind: "outdated"; python: string; installed: string; bundled: string }
  | { kind: "broken"; python: string; detail: string };

/** What is wrong with the engine, in words (the log, the notifications); undefined when nothing is. */
export function engineProblem(engine: EngineState): string | undefined {
  if (engine.kind === "outdated") return `qualm's engine has qualm ${engine.installed}, this extension bundles ${engine.bundled}`;
  if (engine.kind === "broken") return `qualm's engine (${engine.python}) does not start: ${engine.detail}`;
  return undefined;
}

/** The engine's state from probing its Python (`import qualm`): the bundled engine must match exactly. */
export function judgeEngine(bundled: BundledEngine | undefined, python: string, exists: boolean, probe: { ok: boolean; detail: string } | undefined): EngineState {
  if (!bundled) return { kind: "none" };
  if (!exists || !probe) return { kind: "absent" };
  if (!probe.ok) return { kind: "broken", python, detail: probe.detail };
  if (probe.detail !== bundled.version) return { kind: "outdated", python, installed: probe.detail, bundled: bundled.version };
  return { kind: "ready", python };
}
