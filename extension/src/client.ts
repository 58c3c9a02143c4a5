// Starting, stopping and restarting the Python language server, and the one place that talks LSP.
// Everything the editor shows comes from here as events: server status and token marks.

import { existsSync } from "node:fs";
import * as vscode from "vscode";
import {
  CloseAction,
  CloseHandlerResult,
  DidChangeConfigurationNotification,
  ErrorAction,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { CrashHistory, LogTail, SHOWN_LINES, crashMessage, crashStatus, exitFromLog, isClientMessage } from "./crashes";
import { ServerInfo, judgeHandshake } from "./handshake";
import { documentSelector, readLanguages } from "./languages";
import { HandshakeRequest, MARKS, MarksParams, PROTOCOL_VERSION, STATUS, StatusParams } from "./protocol";
import { EngineState, bundledEngine, engineDir, engineProblem, judgeEngine, venvPython } from "./engine";
import { Choice, ProbeResult, Source, candidates, chooseInterpreter, probeInterpreter, pythonExtensionApi, pythonExtensionInterpreter, setupInterpreters, testsInterpreter, watchPythonInterpreter } from "./python";
import { SettingsReader } from "./restricted";
import { EditorDefaults, RESTART_SETTINGS, SERVER_SECTIONS, answerConfiguration, serverSettings } from "./settings";

/** crashed: the server's process died unexpectedly (crashes.ts): it is being restarted, or not. */
export type ClientState = StatusParams["state"] | "starting" | "stopped" | "failed" | "crashed";

export interface ClientStatus {
  state: ClientState;
  message: string;
  model: string | null;
  interpreter?: string;
  /** What the server said in the version handshake (absent until it has answered). */
  server?: ServerInfo;
}

export type CommandInterceptor = (command: string, args: unknown[]) => Thenable<unknown> | undefined;

/** How the server's code actions reach the editor (extension.ts wires regenerate.ts's preview in). */
export interface CodeActionPresenter {
  /** A code action from the server, as the editor gets it. */
  present(action: vscode.CodeAction | vscode.Command): vscode.CodeAction | vscode.Command;
  /** Whether a presented action is complete as it is: the server is not asked to resolve it. */
  keeps(action: vscode.CodeAction): boolean;
}

/** How long the server may take to answer the handshake (it answers while the model loads). */
const HANDSHAKE_TIMEOUT_MS = 30000;

export class QualmClient implements vscode.Disposable {
  client?: LanguageClient;
  private readonly statusEmitter = new vscode.EventEmitter<ClientStatus>();
  private readonly marksEmitter = new vscode.EventEmitter<MarksParams>();
  readonly onStatus = this.statusEmitter.event;
  readonly onMarks = this.marksEmitter.event;
  status: ClientStatus = { state: "stopped", message: "not started", model: null };
  private interpreter?: string;
  /** The Python extension's interpreter, which runs the tests of the user's code where
   * qualm.functional.python is empty (EditorDefaults); undefined: the server's own. */
  private testsPython?: string;
  private server?: ServerInfo;
  private readonly disposables: vscode.Disposable[] = [];
  private starting?: Promise<void>;
  /** Every read of qualm's settings, with workspace trust honoured (restricted.ts). */
  readonly settings: SettingsReader;
  private readonly crashes = new CrashHistory();
  /** The server's last lines in the output channel (its stderr and log messages), for the crash
   * notification. */
  private readonly tail = new LogTail();
  /** The last loaded model's file (the status's modelPath), for the crash notification. */
  private modelFile: string | undefined;
  /** The language client is restarting the server after a crash: its next start repeats the
   * handshake. */
  private recovering = false;
  /** What the last crash told the language client to do: restart the server, or leave it stopped. */
  lastCrashAction: "restart" | "stop" | undefined;
  /** The engine's update was offered in this window (once is enough). */
  private engineOffered = false;
  /** The output channel as the language client writes to it: the server's stderr also lands in `tail`. */
  private readonly recorded: vscode.LogOutputChannel;

  constructor(
    private readonly context: vscode.ExtensionContext,
    /** One channel, leveled, for the client's and the server's log (and the LSP trace). */
    readonly log: vscode.LogOutputChannel,
    private readonly intercept: CommandInterceptor,
    private readonly codeActions: CodeActionPresenter,
  ) {
    this.settings = new SettingsReader(context.extension.packageJSON, log);
    this.recorded = recording(log, this.tail);
    this.disposables.push(
      // The workspace's own programs and files apply once the user trusts it.
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        if (this.settings.anyIgnored) void this.restart();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (RESTART_SETTINGS.some((s) => e.affectsConfiguration(s))) {
          void this.restart();
        } else if (SERVER_SECTIONS.some((s) => e.affectsConfiguration(`qualm.${s}`)) && this.client?.isRunning()) {
          // settings: null makes the server pull them through workspace/configuration (filtered below)
          void this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
        }
      }),
    );
    void this.watchPythonExtension();
  }

  /** The scope of the server's settings (one server per window): the first workspace folder, or the
   * document at hand when no folder is open. */
  private scope(): vscode.Uri | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.window.activeTextEditor?.document.uri;
  }

  private setStatus(status: ClientStatus): void {
    this.status = { ...status, interpreter: this.interpreter, server: this.server };
    this.statusEmitter.fire(this.status);
  }

  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<void> {
    this.interpreter = undefined;
    this.server = undefined;
    this.setStatus({ state: "starting", message: "finding a Python with qualm", model: null });
    const scope = this.scope();
    const config = vscode.workspace.getConfiguration("qualm", scope);
    void this.settings.explainIgnored(); // an untrusted workspace's programs and files: said once
    // each interpreter probed once: the engine's probe also serves as its candidate's
    const probes = new Map<string, Promise<ProbeResult>>();
    const probe = (path: string): Promise<ProbeResult> => {
      if (!probes.has(path)) probes.set(path, probeInterpreter(path));
      return probes.get(path)!;
    };
    const engine = await this.engineState(probe);
    const choice = await chooseInterpreter(
      await candidates({
        setting: this.settings.get<string>("python", "", scope),
        engine: engine.kind === "ready" ? engine.python : undefined,
        pythonExtension: () => this.selectedInterpreter(),
        setupInterpreters: () => setupInterpreters(this.context.extensionPath),
      }),
      probe,
    );
    if (!choice.chosen) {
      const why = describeFailure(choice, engine);
      this.log.error(why);
      this.setStatus({ state: "failed", message: why, model: null });
      void this.explainFailure("qualm: no Python with qualm installed was found. " + why, engine);
      return;
    }
    const chosen = choice.chosen;
    void this.offerEngineUpdate(engine); // (only when it is out of date or broken)
    this.interpreter = chosen.path;
    this.log.info(`starting the server with ${chosen.path} (${chosen.source}, qualm ${chosen.version})`);
    await this.findTestsPython();

    const serverOptions: ServerOptions = {
      command: chosen.path,
      args: ["-m", "qualm", "serve"],
      transport: TransportKind.stdio,
      options: { env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const clientOptions: LanguageClientOptions = {
      // qualm.languages restarts the client (RESTART_SETTINGS): a started client keeps its selector
      documentSelector: documentSelector(readLanguages(config.get<unknown>("languages"))),
      // (the server's stderr and log messages pass through the tail that a crash notification quotes)
      outputChannel: this.recorded,
      traceOutputChannel: this.log,
      initializationOptions: serverSettings(this.settings.section("qualm", scope), this.editorDefaults()),
      middleware: {
        workspace: {
          // Each item in its own scope (a folder's settings for that folder), and of `qualm` only the
          // server's sections: the server rejects unknown keys.
          // In an untrusted workspace, restricted settings come from the user's settings only.
          configuration: (params) =>
            answerConfiguration(params.items, (section, scopeUri) => this.settings.section(section, scopeUri ? vscode.Uri.parse(scopeUri) : undefined), this.editorDefaults()),
        },
        executeCommand: async (command, args, next) => {
          const handled = this.intercept(command, args);
          return handled !== undefined ? handled : next(command, args);
        },
        // qualm's actions on a marked token preview their rewrite (regenerate.ts) instead of being
        // resolved into an edit and applied at once, as a generic client does
        provideCodeActions: async (document, range, context, token, next) => {
          const actions = await next(document, range, context, token);
          return actions?.map((action) => this.codeActions.present(action));
        },
        resolveCodeAction: (item, token, next) => (this.codeActions.keeps(item) ? item : next(item, token)),
      },
      // vscode-languageclient's own crash handling, not a watch on the process of ours: the client owns
      // the process and the connection, calls closed() only when the connection closed while it was
      // running (never for a stop or restart of ours), and on CloseAction.Restart starts the same
      // command again, re-registers its features and re-opens the open documents. A watcher of ours
      // would race that restart and have to tell our own stops from crashes.
      errorHandler: {
        error: (error, message, count) => this.connectionError(client, error, count),
        closed: () => this.closed(client),
      },
    };
    const client = new LeveledLanguageClient("qualm", "qualm", serverOptions, clientOptions, this.log, this.tail);
    this.client = client;
    client.onDidChangeState((e) => {
      if (this.client !== client) return;
      if (e.newState !== State.Stopped) client.exit = undefined; // a new process: the last one's end is told
      if (e.newState === State.Starting && this.recovering) {
        // The language client restarts the server after a crash: the new process knows no marks,
        // lenses or diagnostics (the client keeps its diagnostics across a restart: drop them).
        this.server = undefined;
        client.diagnostics?.clear();
        this.setStatus({ state: "starting", message: `restarting ${chosen.path} -m qualm serve after a crash`, model: null });
      } else if (e.newState === State.Running && this.recovering) {
        this.recovering = false;
        void this.handshake(client, chosen.path, chosen.version, chosen.source).then((ok) => {
          if (ok && this.status.state === "starting") this.setStatus({ state: "loading", message: "loading the model", model: null });
        });
      } else if (e.newState === State.Stopped && !this.recovering && this.status.state !== "crashed" && this.status.state !== "failed") {
        this.setStatus({ state: "stopped", message: "the server stopped", model: null });
      }
    });
    // Before start(): the server reports its state right after initialize.
    client.onNotification(STATUS, (p: StatusParams) => {
      if (this.client !== client) return; // a server being stopped (after a failed handshake) says nothing more
      this.setStatus({ state: p.state, message: p.message, model: p.model });
      if (p.modelPath) this.modelFile = p.modelPath; // kept after the model is let go: a crash names it
      if (p.state === "error") void this.explainModelError(p.message);
    });
    client.onNotification(MARKS, (p: MarksParams) => {
      if (this.client === client) this.marksEmitter.fire(p);
    });
    this.setStatus({ state: "starting", message: `starting ${chosen.path} -m qualm serve`, model: null });
    try {
      await client.start();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.log.error(`the server did not start: ${why}`);
      this.setStatus({ state: "failed", message: why, model: null });
      void this.explainFailure(`qualm: the language server did not start (${why}).`);
      return;
    }
    if (!(await this.handshake(client, chosen.path, chosen.version, chosen.source))) return;
    if (this.status.state === "starting") this.setStatus({ state: "loading", message: "loading the model", model: null });
  }

  /** qualm/handshake: false (and the server stopped, the status failed, the user told) when the server
   * does not speak this extension's protocol. */
  private async handshake(client: LanguageClient, interpreter: string, installedVersion: string, source: Source): Promise<boolean> {
    const clientVersion = String(this.context.extension.packageJSON.version ?? "unknown");
    const cancel = new vscode.CancellationTokenSource();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        cancel.cancel();
        reject(new Error(`no answer within ${HANDSHAKE_TIMEOUT_MS / 1000} s`));
      }, HANDSHAKE_TIMEOUT_MS);
    });
    let answer: unknown;
    let error: unknown;
    try {
      answer = await Promise.race([client.sendRequest(HandshakeRequest, { clientVersion, protocol: PROTOCOL_VERSION }, cancel.token), timedOut]);
    } catch (err) {
      error = err ?? new Error("no answer");
    } finally {
      clearTimeout(timer);
      cancel.dispose();
    }
    if (this.client !== client) return false; // stopped or restarted meanwhile
    const outcome = judgeHandshake({ clientVersion, protocol: PROTOCOL_VERSION, interpreter, installedVersion, source, exact: source === "qualm engine", answer, error });
    if (outcome.kind === "compatible") {
      this.server = outcome.server;
      this.log.info(outcome.log);
      this.setStatus(this.status);
      return true;
    }
    if (outcome.kind === "unknown") {
      this.log.warn(outcome.log);
      return true;
    }
    this.log.error(outcome.message);
    this.client = undefined;
    try {
      await client.stop(5000);
    } catch (err) {
      this.log.warn(`stopping the incompatible server: ${err instanceof Error ? err.message : err}`);
    }
    this.setStatus({ state: "failed", message: outcome.message, model: null });
    void this.explainIncompatible(outcome.message);
    return false;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        // a restart after a crash under way: let it come up (the client cannot stop a starting
        // server), then stop it
        if (client.state === State.Starting) await client.start().catch(() => undefined);
        await client.stop(5000);
      } catch (err) {
        this.log.warn(`stopping the server: ${err instanceof Error ? err.message : err}`);
      }
    }
    this.setStatus({ state: "stopped", message: "stopped", model: null });
  }

  /** The connection to the server closed while the client was running: the process died. Restart
   * it (the language client does) unless it died MAX_CRASHES times within CRASH_WINDOW_MS; either
   * way the status and a notification say what happened, with its last lines and a Restart button. */
  private async closed(client: LeveledLanguageClient): Promise<CloseHandlerResult> {
    if (this.client !== client) return { action: CloseAction.DoNotRestart, handled: true }; // one we let go
    // The process's exit is logged by the client about when the pipe closes: wait for it briefly.
    for (let i = 0; i < 20 && client.exit === undefined; i++) await new Promise((r) => setTimeout(r, 50));
    const verdict = this.crashes.record(Date.now());
    const exit = client.exit;
    const message = crashMessage(verdict, exit, this.tail.last(SHOWN_LINES), this.modelFile);
    this.log.error(`${message}\nthe server's last lines:\n${this.tail.last(20).join("\n")}`);
    this.server = undefined;
    this.recovering = verdict.restart;
    this.lastCrashAction = verdict.restart ? "restart" : "stop";
    this.setStatus({ state: "crashed", message: crashStatus(verdict, exit), model: null });
    void this.explainCrash(message);
    return verdict.restart ? { action: CloseAction.Restart, handled: true } : { action: CloseAction.DoNotRestart, handled: true };
  }

  /** Reading from or writing to the server failed (its pipe broke): as vscode-languageclient's
   * default, carry on three times, then stop the server, here with the crash's notification. */
  private connectionError(client: LanguageClient, error: Error, count: number | undefined): ErrorHandlerResult {
    this.log.warn(`the connection to the server failed (${count ?? 1}× in a row): ${error.message}`);
    if (count !== undefined && count <= 3) return { action: ErrorAction.Continue, handled: true };
    if (this.client === client) {
      const message = `qualm: the connection to the language server keeps failing (${error.message}): it was stopped.`;
      this.setStatus({ state: "crashed", message: `${error.message}: stopped (qualm: Restart Language Server)`, model: null });
      void this.explainCrash(message);
    }
    return { action: ErrorAction.Shutdown, handled: true };
  }

  private async explainCrash(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, "Restart", "Show Log");
    if (choice === "Restart") await this.restart();
    if (choice === "Show Log") this.log.show(true);
  }

  /** Stop and start the server anew (the command, the crash notification's button, a setting that
   * needs it): the crashes counted so far are forgotten. */
  async restart(): Promise<void> {
    this.log.info("restarting the server");
    this.crashes.reset();
    this.recovering = false;
    await this.starting?.catch(() => undefined);
    await this.stop();
    await this.start();
  }

  /** The running client, or an error that says why there is none. */
  running(): LanguageClient {
    if (!this.client || !this.client.isRunning()) {
      throw new Error(`the qualm server is not running (${this.status.state}: ${this.status.message})`);
    }
    return this.client;
  }

  /** What the client fills into the server's settings (EditorDefaults): `${workspaceFolder}` is the
   * folder the server asks about, and in the window's settings the first folder. */
  private editorDefaults(): EditorDefaults {
    return {
      testsPython: this.testsPython,
      workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      folderOf: (scopeUri) => vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(scopeUri))?.uri.fsPath,
    };
  }

  /** The interpreter selected in the Python extension for the server's scope (undefined without it). */
  async selectedInterpreter(): Promise<string | undefined> {
    return pythonExtensionInterpreter(await pythonExtensionApi((id) => vscode.extensions.getExtension(id)), this.scope());
  }

  /** The interpreter for the tests of the user's code (testsInterpreter), logged with the reason. */
  private async findTestsPython(): Promise<void> {
    const found = await testsInterpreter(await this.selectedInterpreter().catch(() => undefined));
    this.testsPython = found.path;
    const own = String(this.settings.get<string>("functional.python", "", this.scope()) ?? "").trim();
    this.log.info(own ? `the tests of your code run with qualm.functional.python (${own})` : found.why);
  }

  /** After the Python extension's interpreter changed without a restart: the server pulls its
   * settings again when the tests' interpreter is now another. */
  private async refreshTestsPython(): Promise<void> {
    const before = this.testsPython;
    await this.findTestsPython();
    if (this.testsPython !== before && this.client?.isRunning()) {
      void this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
    }
  }

  /** Restart the server when the interpreter selected in the Python extension changes (unless
   * qualm.python names one). Nothing when that extension is not installed. */
  private async watchPythonExtension(): Promise<void> {
    let api;
    try {
      api = await pythonExtensionApi((id) => vscode.extensions.getExtension(id));
    } catch (err) {
      this.log.warn(`the Python extension's API is not available: ${err instanceof Error ? err.message : err}`);
      return;
    }
    if (!api) return;
    const sub = watchPythonInterpreter(
      api,
      () => this.scope(),
      () => ({ setting: this.settings.get<string>("python", "", this.scope()), running: this.interpreter }),
      (decision) => {
        this.log.info(`Python extension: ${decision.why}${decision.restart ? ": restarting the server" : ""}`);
        if (decision.restart) void this.restart();
        else void this.refreshTestsPython();
      },
    );
    if (sub) this.disposables.push(sub);
  }

  /** The engine in global storage against the one bundled in the .vsix (engine.ts). */
  private async engineState(probe: (path: string) => Promise<ProbeResult> = probeInterpreter): Promise<EngineState> {
    const bundled = bundledEngine(this.context.extensionPath);
    const python = venvPython(engineDir(this.context.globalStorageUri.fsPath));
    const exists = bundled !== undefined && existsSync(python);
    return judgeEngine(bundled, python, exists, exists ? await probe(python) : undefined);
  }

  /** The setup command's button, where it may run: a bundled engine, a trusted workspace. */
  private setupButton(engine: EngineState): string | undefined {
    if (engine.kind === "none" || !vscode.workspace.isTrusted) return undefined;
    return engine.kind === "outdated" ? UPDATE_ENGINE : SET_UP_ENGINE;
  }

  private async explainFailure(message: string, engine?: EngineState): Promise<void> {
    const setup = engine && this.setupButton(engine);
    const choice = await vscode.window.showErrorMessage(message, ...(setup ? [setup] : []), "Open Setting", "Show Log", "Restart");
    if (choice && choice === setup) await vscode.commands.executeCommand("qualm.setupEngine");
    if (choice === "Open Setting") await vscode.commands.executeCommand("workbench.action.openSettings", "qualm.python");
    if (choice === "Show Log") this.log.show(true);
    if (choice === "Restart") await this.restart();
  }

  /** Another qualm serves, but the engine is out of date or broken: said in the log, offered once. */
  private async offerEngineUpdate(engine: EngineState): Promise<void> {
    const why = engineProblem(engine);
    if (!why || this.engineOffered) return;
    this.engineOffered = true;
    this.log.warn(`${why}; another Python with qualm serves meanwhile`);
    const setup = this.setupButton(engine);
    if (setup && (await vscode.window.showInformationMessage(`qualm: ${why}.`, setup)) === setup) await vscode.commands.executeCommand("qualm.setupEngine");
  }

  private async explainIncompatible(message: string): Promise<void> {
    // a qualm that does not match: the bundled engine is the way to one that does
    const setup = this.setupButton(await this.engineState());
    const choice = await vscode.window.showErrorMessage(message, ...(setup ? [setup] : []), "Show Log", "Open Setting");
    if (choice && choice === setup) await vscode.commands.executeCommand("qualm.setupEngine");
    if (choice === "Show Log") this.log.show(true);
    if (choice === "Open Setting") await vscode.commands.executeCommand("workbench.action.openSettings", "qualm.python");
  }

  private async explainModelError(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(`qualm: the model could not be loaded: ${message}`, "Select Model File", "Show Log");
    if (choice === "Select Model File") await vscode.commands.executeCommand("qualm.selectModel");
    if (choice === "Show Log") this.log.show(true);
  }

  dispose(): void {
    void this.stop();
    this.disposables.forEach((d) => d.dispose());
    this.statusEmitter.dispose();
    this.marksEmitter.dispose();
  }
}

/** vscode-languageclient 9 writes its own messages and the server's window/logMessage with appendLine
 * and a time stamp of its own, which a LogOutputChannel files under "info". This writes each at its
 * level (the channel stamps the time); errors it would show still get a notification. */
class LeveledLanguageClient extends LanguageClient {
  /** How this client's current server process ended ("signal SIGKILL"), from the client's line about
   * it; undefined while it runs. */
  exit?: string;

  constructor(
    id: string,
    name: string,
    serverOptions: ServerOptions,
    clientOptions: LanguageClientOptions,
    private readonly logChannel: vscode.LogOutputChannel,
    /** Where the server's own log messages are kept for the crash notification (not the client's). */
    private readonly tail: LogTail,
  ) {
    super(id, name, serverOptions, clientOptions);
  }

  private keep(level: string, message: string): void {
    if (!isClientMessage(message)) this.tail.line(`[${level}] ${message}`);
  }

  override debug(message: string, data?: unknown): void {
    this.logChannel?.debug(withData(message, data));
  }

  override info(message: string, data?: unknown): void {
    this.keep("info", message);
    this.logChannel?.info(withData(message, data));
  }

  override warn(message: string, data?: unknown): void {
    this.keep("warning", message);
    this.logChannel?.warn(withData(message, data));
  }

  override error(message: string, data?: unknown, showNotification: boolean | "force" = true): void {
    if (!this.logChannel) return super.error(message, data, showNotification);
    this.exit = exitFromLog(message) ?? this.exit;
    this.keep("error", message);
    // the client reports every exit as an error; after a shutdown, exit code 0 is the expected end
    if (message === "Server process exited with code 0.") return this.info(message);
    this.logChannel.error(withData(message, data));
    if (showNotification) {
      void vscode.window.showErrorMessage(`qualm: ${message}`, "Show Log").then((c) => c && this.logChannel.show(true));
    }
  }
}

/** `channel`, with the server's stderr (which the language client writes with append()) also kept in
 * `tail`; its log messages reach the tail through LeveledLanguageClient. */
function recording(channel: vscode.LogOutputChannel, tail: LogTail): vscode.LogOutputChannel {
  return new Proxy(channel, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "append") return (text: string) => (tail.append(text), value.call(target, text));
      if (prop === "appendLine") return (text: string) => (tail.append(text + "\n"), value.call(target, text));
      return value.bind(target);
    },
  });
}

function withData(message: string, data: unknown): string {
  // (the client passes a flag as data in places: only errors, text and objects are worth a line)
  if (data === undefined || data === null || typeof data === "boolean") return message;
  if (data instanceof ResponseError) return `${message} (${data.code}: ${data.message})`;
  if (data instanceof Error) return `${message}\n${data.stack ?? data.message}`;
  return `${message}\n${typeof data === "string" ? data : JSON.stringify(data)}`;
}

export const SET_UP_ENGINE = "Set Up qualm's Engine";
export const UPDATE_ENGINE = "Update qualm's Engine";

function describeFailure(choice: Choice, engine: EngineState): string {
  const tried = choice.tried.map((t) => `${t.candidate.path} (${t.candidate.source}): ${t.detail}`).join("; ");
  const problem = engineProblem(engine);
  const state = problem ? ` ${problem}: ${engine.kind === "outdated" ? `update it with "qualm: ${UPDATE_ENGINE}"` : `set it up again with "qualm: ${SET_UP_ENGINE}"`}.` : "";
  const fix =
    engine.kind === "none"
      ? "Run scripts/setup in a qualm checkout, or set qualm.python to a Python where qualm is installed."
      : `Run "qualm: ${SET_UP_ENGINE}" (a Python environment with qualm, llama.cpp and the default model, made once), or set qualm.python to a Python where qualm is installed.`;
  return `Tried ${tried || "nothing"}.${state} ${fix}`;
}
