// qualm's VS Code extension: starts the Python language server and renders what it computes
// (ghost text, highlights, status); hover, code lens and diagnostics come straight from LSP.
// It never computes a score itself.

import * as vscode from "vscode";
import { EngineSetup, SetupOptions } from "./engineSetup";
import { ClientStatus, CommandInterceptor, QualmClient } from "./client";
import { assessWithProgress, selectModel, serverCommandWithProgress, toggleHighlights } from "./commands";
import { ACCEPT_COMMAND, InlineCompletions, StreamEvent } from "./completions";
import { completionView } from "./doubt";
import { Highlight, Highlights } from "./highlights";
import { documentSelector, readLanguages } from "./languages";
import { ACCEPT_COMMAND as ACCEPT_REWRITE, CYCLE_COMMAND, PREVIEW_ACTIONS, PREVIEW_COMMAND, PreviewEvent, REJECT_COMMAND, Regenerations } from "./regenerate";
import { RegenerationData } from "./protocol";
import { ClientSettings, hasUserValue, readClientSettings, warnOnce } from "./settings";
import { lingerMs } from "./linger";
import { StatusItem, showMenu } from "./status";

/** What activate() returns: for other extensions and for qualm's end-to-end tests. */
export interface QualmApi {
  status(): ClientStatus;
  onStatus: vscode.Event<ClientStatus>;
  highlights(uri: vscode.Uri): Highlight[];
  onHighlights: vscode.Event<string>;
  onCompletion: vscode.Event<StreamEvent>;
  onPreview: vscode.Event<PreviewEvent>;
  restart(): Promise<void>;
  /** What the last crash told the language client: restart the server, or leave it stopped. */
  lastCrashAction(): "restart" | "stop" | undefined;
}

export function activate(context: vscode.ExtensionContext): QualmApi {
  // One leveled channel for the client's log, the server's (window/logMessage) and the LSP trace.
  const output = vscode.window.createOutputChannel("qualm", { log: true });
  // The client's settings for a document: its workspace folder's, else the workspace's or the user's;
  // a renamed setting's old name still counts, with one line in the log.
  const oldName = warnOnce((message) => output.warn(message));
  const settings = (uri?: vscode.Uri): ClientSettings => {
    const config = vscode.workspace.getConfiguration("qualm", uri);
    return readClientSettings(
      (key, fallback) => config.get(key, fallback),
      (key) => hasUserValue(config.inspect(key) as Record<string, unknown> | undefined),
      oldName,
    );
  };
  const status = new StatusItem(lingerMs(process.env));
  const highlights = new Highlights(
    (uri) => settings(uri).highlightsEnabled,
    (uri) => settings(uri).minimumLevel,
  );
  // Code lenses name the server's qualm.assessFunction: run it here, with a notification to cancel.
  const intercept: CommandInterceptor = (command, args) =>
    command === "qualm.assessFunction" && typeof args[0] === "string"
      ? assessWithProgress(qualm, args[0], typeof args[1] === "string" ? { function: args[1] } : {})
      : undefined;
  const qualm = new QualmClient(context, output, intercept, PREVIEW_ACTIONS);
  const engine = new EngineSetup(context, output, () => qualm.selectedInterpreter(), () => qualm.restart());
  const completions = new InlineCompletions(qualm, settings);
  const rewrites = new Regenerations(qualm, (editor, marks) => highlights.paintRanges(editor, marks));

  context.subscriptions.push(
    output,
    status,
    highlights,
    qualm,
    completions,
    rewrites,
    qualm.onStatus((s) => {
      status.show(s);
      // A new server process knows no marks: drop ours, or they would outlive their hovers.
      if (s.state === "starting") highlights.clearAll();
    }),
    qualm.onMarks((m) => highlights.fromServer(m)),
    // The latest stream's events repaint: its running doubt, its final one, nothing once accepted.
    // (A stream cancelled by typing on ends after its successor started: it must not hide that one.)
    completions.onStream((e) => {
      if (e.stream === completions.latest) status.showCompletion(completionView(e.stream));
    }),
    registerForLanguages(completions),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("qualm.highlights")) highlights.renderAll();
    }),
    vscode.commands.registerCommand(ACCEPT_COMMAND, (id: number, text: string) => completions.accepted(id, text)),
    vscode.commands.registerCommand(PREVIEW_COMMAND, (data: RegenerationData, title: string) => rewrites.preview(data, title)),
    vscode.commands.registerCommand(ACCEPT_REWRITE, () => rewrites.accept()),
    vscode.commands.registerCommand(REJECT_COMMAND, () => rewrites.reject()),
    vscode.commands.registerCommand(CYCLE_COMMAND, () => rewrites.cycleAlternatives()),
    vscode.commands.registerCommand("qualm.triggerCompletion", () => vscode.commands.executeCommand("editor.action.inlineSuggest.trigger")),
    vscode.commands.registerCommand("qualm.assessFunctionAtCursor", () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return undefined;
      return assessWithProgress(qualm, editor.document.uri.toString(), { position: editor.selection.active });
    }),
    vscode.commands.registerCommand("qualm.scoreCurrentDocument", () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return undefined;
      return serverCommandWithProgress(qualm, "qualm: scoring the document's functions", "qualm.scoreDocument", [editor.document.uri.toString()]);
    }),
    vscode.commands.registerCommand("qualm.clearAll", () => serverCommandWithProgress(qualm, "qualm: clearing", "qualm.clear", [])),
    vscode.commands.registerCommand("qualm.toggleHighlights", toggleHighlights),
    vscode.commands.registerCommand("qualm.restartServer", () => qualm.restart()),
    vscode.commands.registerCommand("qualm.setupEngine", (options?: SetupOptions) => engine.run(options)),
    vscode.commands.registerCommand("qualm.showLog", () => output.show(true)),
    vscode.commands.registerCommand("qualm.selectModel", selectModel),
    vscode.commands.registerCommand("qualm.showMenu", showMenu),
    vscode.commands.registerCommand("qualm.openSettings", () => vscode.commands.executeCommand("workbench.action.openSettings", "@ext:qualm.qualm")),
  );

  void qualm.start();
  stopOnDeactivate = () => qualm.stop();

  return {
    status: () => qualm.status,
    onStatus: qualm.onStatus,
    highlights: (uri) => highlights.get(uri),
    onHighlights: highlights.onDidChange,
    onCompletion: completions.onStream,
    onPreview: rewrites.onPreview,
    restart: () => qualm.restart(),
    lastCrashAction: () => qualm.lastCrashAction,
  };
}

/** The inline completions and the `qualm.languages` context key (the menus' `when` clauses) for the
 * languages of `qualm.languages`, registered again when the setting changes. */
function registerForLanguages(completions: vscode.InlineCompletionItemProvider): vscode.Disposable {
  let provider: vscode.Disposable | undefined;
  const register = () => {
    const languages = readLanguages(vscode.workspace.getConfiguration("qualm").get<unknown>("languages"));
    provider?.dispose();
    provider = vscode.languages.registerInlineCompletionItemProvider(documentSelector(languages), completions);
    void vscode.commands.executeCommand("setContext", "qualm.languages", languages);
  };
  register();
  const watch = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration("qualm.languages")) register();
  });
  return new vscode.Disposable(() => {
    watch.dispose();
    provider?.dispose();
  });
}

// VS Code awaits deactivate() but not dispose(): stop the server here so it exits cleanly.
let stopOnDeactivate: (() => Promise<void>) | undefined;

export function deactivate(): Thenable<void> | undefined {
  return stopOnDeactivate?.();
}
