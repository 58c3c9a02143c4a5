// "qualm: Set Up qualm's Engine": from the files bundled in the .vsix (engine.ts), a virtual environment
// in the extension's global storage with qualm, llama-cpp-python built for this machine and the
// default model; then the server starts with it. Nothing runs without the user's command, and never
// in Restricted Mode (it installs and compiles software). Each step is a process of its own, shown in
// a progress notification with a Cancel button; its output goes to the qualm log; a failure names the
// step, quotes its last lines and offers the log and a retry. Run again after a newer .vsix, it
// upgrades qualm in place: the steps whose work is done return at once, so llama.cpp is not compiled
// again while its wheel is in qualm's cache.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { delimiter, join } from "node:path";
import * as vscode from "vscode";
import { Gpu, SetupStep, basePythonCandidates, bundledEngine, engineDir, newEnough, setupSteps, stepFailure, venvPython } from "./engine";
import { pythonVersion } from "./python";

export interface SetupOptions {
  /** Skip the question of the build (the tests, a user's keybinding): cpu or cuda. */
  gpu?: Gpu;
}

interface StepExit {
  code: number | null;
  signal: string | null;
  error?: string;
}

/** How long a step may take to stop after Cancel before it is killed. */
const KILL_AFTER_MS = 5000;

export class EngineSetup {
  private running?: Promise<boolean>;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    /** The Python extension's interpreter, the first candidate to create the environment with. */
    private readonly selectedPython: () => Promise<string | undefined>,
    /** Starts (or restarts) the language server once the engine is there. */
    private readonly restartServer: () => Promise<void>,
  ) {}

  /** The command: true when the engine was set up and the server restarted with it. */
  run(options: SetupOptions = {}): Promise<boolean> {
    this.running ??= this.doRun(options).finally(() => (this.running = undefined));
    return this.running;
  }

  private async doRun(options: SetupOptions): Promise<boolean> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage("qualm: the engine setup installs and compiles software, so it does not run in Restricted Mode. Trust this workspace, or run it from a trusted window.");
      return false;
    }
    const bundled = bundledEngine(this.context.extensionPath);
    if (!bundled) {
      void vscode.window.showErrorMessage("qualm: this build of the extension carries no engine (a development build): run scripts/setup in the qualm checkout, or install the .vsix.");
      return false;
    }
    const base = await this.basePython();
    if (!base) {
      const message = "qualm: the engine needs Python 3.10 or newer, and none was found (the Python extension's interpreter, python3 on PATH). Install Python, then run the setup again.";
      this.log.error(message);
      void vscode.window.showErrorMessage(message, "Show Log").then((choice) => choice === "Show Log" && this.log.show(true));
      return false;
    }
    const gpu = options.gpu ?? (await this.pickGpu());
    if (!gpu) return false;
    const venv = engineDir(this.context.globalStorageUri.fsPath);
    mkdirSync(this.context.globalStorageUri.fsPath, { recursive: true }); // the steps run there
    const steps = setupSteps(base, bundled, venv, gpu);
    this.log.info(`engine setup: qualm ${bundled.version} into ${venv} with ${base}, llama.cpp for ${gpu}`);
    const started = Date.now();
    const failure = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "qualm: setting up the engine", cancellable: true },
      async (progress, token) => {
        for (const [i, step] of steps.entries()) {
          if (token.isCancellationRequested) return { step, cancelled: true, message: "" };
          progress.report({ message: `${step.title} (${i + 1} of ${steps.length})`, increment: i === 0 ? 0 : 100 / steps.length });
          const stepStarted = Date.now();
          const { exit, output } = await this.runStep(step, token);
          this.log.info(`engine setup: step ${step.id} ended (${exit.error ?? exit.signal ?? `exit ${exit.code}`}) after ${((Date.now() - stepStarted) / 1000).toFixed(1)} s`);
          if (token.isCancellationRequested) return { step, cancelled: true, message: "" };
          if (exit.code !== 0) return { step, cancelled: false, message: stepFailure(step, exit, output) };
        }
        return undefined;
      },
    );
    if (failure?.cancelled) {
      this.log.warn(`engine setup cancelled at step ${failure.step.id}`);
      void vscode.window.showWarningMessage(`qualm: the engine setup was cancelled at "${failure.step.title}". Run it again to go on: the steps done are kept.`);
      return false;
    }
    if (failure) {
      // (the command returns now; the notification's buttons act later)
      this.log.error(failure.message);
      void vscode.window.showErrorMessage(failure.message, "Show Log", "Retry").then((choice) => {
        if (choice === "Show Log") this.log.show(true);
        if (choice === "Retry") void this.run(options);
      });
      return false;
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    this.log.info(`engine setup: done in ${seconds} s; starting the server with ${venvPython(venv)}`);
    void vscode.window.showInformationMessage(`qualm: the engine is set up (qualm ${bundled.version}, ${seconds} s). Starting the server.`);
    await this.restartServer();
    return true;
  }

  /** One step as a process group of its own, its output line by line into the log. */
  private runStep(step: SetupStep, token: vscode.CancellationToken): Promise<{ exit: StepExit; output: string }> {
    return new Promise((resolve) => {
      let output = "";
      let pending = "";
      const write = (chunk: Buffer) => {
        const text = chunk.toString();
        output = (output + text).slice(-20000); // the tail is what a failure quotes
        pending += text;
        const lines = pending.split(/\r?\n/);
        pending = lines.pop() ?? "";
        for (const line of lines) if (line.trim()) this.log.info(`[engine ${step.id}] ${line}`);
      };
      const child = spawn(step.command, step.args, {
        // not the extension host's folder: a checkout there (its qualm.egg-info) must not answer for the engine
        cwd: this.context.globalStorageUri.fsPath,
        detached: process.platform !== "win32", // a group: Cancel stops pip and the compiler under it too
        env: { ...process.env, PYTHONUNBUFFERED: "1", PIP_DISABLE_PIP_VERSION_CHECK: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout.on("data", write);
      child.stderr.on("data", write);
      const kill = (signal: NodeJS.Signals) => {
        try {
          if (child.pid !== undefined && process.platform !== "win32") process.kill(-child.pid, signal);
          else child.kill(signal);
        } catch {
          /* already gone */
        }
      };
      let killer: ReturnType<typeof setTimeout> | undefined;
      const cancel = token.onCancellationRequested(() => {
        kill("SIGTERM");
        killer = setTimeout(() => kill("SIGKILL"), KILL_AFTER_MS);
      });
      let settled = false;
      const done = (exit: StepExit) => {
        if (settled) return;
        settled = true;
        cancel.dispose();
        if (killer) clearTimeout(killer);
        if (pending.trim()) this.log.info(`[engine ${step.id}] ${pending}`);
        resolve({ exit, output });
      };
      child.on("error", (err) => done({ code: null, signal: null, error: err.message }));
      child.on("close", (code, signal) => done({ code, signal }));
    });
  }

  /** The first Python 3.10+ among the Python extension's choice and the usual names on PATH. */
  private async basePython(): Promise<string | undefined> {
    const fromExtension = await this.selectedPython().catch(() => undefined);
    for (const candidate of basePythonCandidates(fromExtension)) {
      const v = await pythonVersion(candidate);
      this.log.info(`engine setup: ${candidate} is ${v ? `Python ${v.join(".")}` : "not there"}`);
      if (newEnough(v)) return candidate;
    }
    return undefined;
  }

  /** CPU, or CUDA where the CUDA toolkit's compiler is on PATH and the user picks it. */
  private async pickGpu(): Promise<Gpu | undefined> {
    if (!onPath("nvcc")) return "cpu";
    const picked = await vscode.window.showQuickPick(
      [
        { label: "CPU", description: "works everywhere; the default", gpu: "cpu" as Gpu },
        { label: "NVIDIA GPU (CUDA)", description: "nvcc was found: llama.cpp is compiled with CUDA (longer); then set qualm.model.n_gpu_layers", gpu: "cuda" as Gpu },
      ],
      { title: "qualm: build llama.cpp for", ignoreFocusOut: true },
    );
    return picked?.gpu;
  }
}

function onPath(name: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => dir && existsSync(join(dir, name)));
}
