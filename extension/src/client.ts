// Starting, stopping and restarting the Python language server, and the one place that talks LSP.
// Everything the editor shows comes from here as events: server status and token marks.

import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { MARKS, MarksParams, STATUS, StatusParams } from "./protocol";
import { Choice, candidates, chooseInterpreter, probeInterpreter, setupInterpreters } from "./python";
import { RESTART_SETTINGS, SERVER_SECTIONS, serverSettings } from "./settings";

export type ClientState = StatusParams["state"] | "starting" | "stopped" | "failed";

export interface ClientStatus {
  state: ClientState;
  message: string;
  model: string | null;
  interpreter?: string;
}

export type CommandInterceptor = (command: string, args: unknown[]) => Thenable<unknown> | undefined;

export class QualmClient implements vscode.Disposable {
  client?: LanguageClient;
  private readonly statusEmitter = new vscode.EventEmitter<ClientStatus>();
  private readonly marksEmitter = new vscode.EventEmitter<MarksParams>();
  readonly onStatus = this.statusEmitter.event;
  readonly onMarks = this.marksEmitter.event;
  status: ClientStatus = { state: "stopped", message: "not started", model: null };
  private interpreter?: string;
  private readonly disposables: vscode.Disposable[] = [];
  private starting?: Promise<void>;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.OutputChannel,
    private readonly intercept: CommandInterceptor,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (RESTART_SETTINGS.some((s) => e.affectsConfiguration(s))) {
          void this.restart();
        } else if (SERVER_SECTIONS.some((s) => e.affectsConfiguration(`qualm.${s}`)) && this.client?.isRunning()) {
          // settings: null makes the server pull them through workspace/configuration (filtered below)
          void this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
        }
      }),
    );
  }

  private setStatus(status: ClientStatus): void {
    this.status = { ...status, interpreter: this.interpreter };
    this.statusEmitter.fire(this.status);
  }

  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<void> {
    this.setStatus({ state: "starting", message: "finding a Python with qualm", model: null });
    const config = vscode.workspace.getConfiguration("qualm");
    const choice = await chooseInterpreter(
      await candidates({
        setting: config.get<string>("python", ""),
        pythonExtension: () => pythonExtensionInterpreter(),
        setupInterpreters: () => setupInterpreters(this.context.extensionPath),
      }),
      (p) => probeInterpreter(p),
    );
    if (!choice.chosen) {
      const why = describeFailure(choice);
      this.log(why);
      this.setStatus({ state: "failed", message: why, model: null });
      void this.explainFailure("qualm: no Python with qualm installed was found. " + why);
      return;
    }
    this.interpreter = choice.chosen.path;
    this.log(`starting the server with ${choice.chosen.path} (${choice.chosen.source}, qualm ${choice.chosen.version})`);

    const serverOptions: ServerOptions = {
      command: choice.chosen.path,
      args: ["-m", "qualm", "serve"],
      transport: TransportKind.stdio,
      options: { env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "python" },
        { scheme: "untitled", language: "python" },
      ],
      outputChannel: this.output,
      traceOutputChannel: this.output,
      initializationOptions: serverSettings(vscode.workspace.getConfiguration("qualm")),
      middleware: {
        workspace: {
          // The server rejects unknown keys: send only its sections of `qualm`.
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) return result;
            return result.map((r, i) => (params.items[i]?.section === "qualm" ? serverSettings(r) : r));
          },
        },
        executeCommand: async (command, args, next) => {
          const handled = this.intercept(command, args);
          return handled !== undefined ? handled : next(command, args);
        },
      },
    };
    const client = new LanguageClient("qualm", "qualm", serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped && this.client === client) {
        this.setStatus({ state: "stopped", message: "the server stopped", model: null });
      }
    });
    // Before start(): the server reports its state right after initialize.
    client.onNotification(STATUS, (p: StatusParams) => {
      this.setStatus({ state: p.state, message: p.message, model: p.model });
      if (p.state === "error") void this.explainModelError(p.message);
    });
    client.onNotification(MARKS, (p: MarksParams) => this.marksEmitter.fire(p));
    this.setStatus({ state: "starting", message: `starting ${choice.chosen.path} -m qualm serve`, model: null });
    try {
      await client.start();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.log(`the server did not start: ${why}`);
      this.setStatus({ state: "failed", message: why, model: null });
      void this.explainFailure(`qualm: the language server did not start (${why}).`);
      return;
    }
    if (this.status.state === "starting") this.setStatus({ state: "loading", message: "loading the model", model: null });
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.log(`stopping the server: ${err instanceof Error ? err.message : err}`);
      }
    }
    this.setStatus({ state: "stopped", message: "stopped", model: null });
  }

  async restart(): Promise<void> {
    this.log("restarting the server");
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

  log(message: string): void {
    this.output.appendLine(`[client ${new Date().toISOString().slice(11, 19)}] ${message}`);
  }

  private async explainFailure(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, "Open Setting", "Show Log", "Restart");
    if (choice === "Open Setting") await vscode.commands.executeCommand("workbench.action.openSettings", "qualm.python");
    if (choice === "Show Log") this.output.show(true);
    if (choice === "Restart") await this.restart();
  }

  private async explainModelError(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(`qualm: the model could not be loaded: ${message}`, "Select Model File", "Show Log");
    if (choice === "Select Model File") await vscode.commands.executeCommand("qualm.selectModel");
    if (choice === "Show Log") this.output.show(true);
  }

  dispose(): void {
    void this.stop();
    this.disposables.forEach((d) => d.dispose());
    this.statusEmitter.dispose();
    this.marksEmitter.dispose();
  }
}

function describeFailure(choice: Choice): string {
  const tried = choice.tried.map((t) => `${t.candidate.path} (${t.candidate.source}): ${t.detail}`).join("; ");
  return `Tried ${tried}. Run scripts/setup in a qualm checkout, or set qualm.python to a Python where qualm is installed.`;
}

/** The interpreter selected in Microsoft's Python extension, through its public API, if it is installed. */
async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension("ms-python.python");
  if (!ext) return undefined;
  const api = (ext.isActive ? ext.exports : await ext.activate()) as PythonExtensionApi | undefined;
  const resource = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
  const envs = api?.environments;
  if (envs) {
    const active = envs.getActiveEnvironmentPath(resource);
    const resolved = await envs.resolveEnvironment(active);
    const exe = resolved?.executable?.uri?.fsPath;
    if (exe) return exe;
  }
  const details = api?.settings?.getExecutionDetails?.(resource);
  return details?.execCommand?.[0];
}

/** The parts of the Python extension's API that qualm uses (ms-python.python's exported API). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(env: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
  settings?: { getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } };
}
