// Acting on the doubt: the server's code actions on a marked token ("use ' max' instead (25 %)",
// "regenerate from …") open a preview here instead of editing the file. The rewrite streams into a
// diff (the document as it is, against the document with the rewrite), its new tokens highlighted;
// the user accepts (the edit is applied, if the document has not changed meanwhile) or rejects
// (nothing was written). The server gives the new tokens marks once the document holds the rewrite.

import * as vscode from "vscode";
import { QualmClient } from "./client";
import { Level, isLevel } from "./levels";
import { RegeneratePartial, RegenerateProgress, RegenerateRequest, RegenerateResult, RegenerationData, TokenJson } from "./protocol";

export const PREVIEW_COMMAND = "qualm.previewRegeneration";
export const ACCEPT_COMMAND = "qualm.acceptRegeneration";
export const REJECT_COMMAND = "qualm.rejectRegeneration";
export const CYCLE_COMMAND = "qualm.cycleAlternatives";
export const SCHEME = "qualm-preview";
const CONTEXT_KEY = "qualm.previewing";

export function isRegeneration(data: unknown): data is RegenerationData {
  return typeof data === "object" && data !== null && (data as { qualm?: unknown }).qualm === "regenerate";
}

/** A code action from the server, turned into one that previews (VS Code would otherwise resolve it
 * into an edit and apply it at once). */
export function asPreviewAction(action: vscode.CodeAction | vscode.Command): vscode.CodeAction | vscode.Command {
  const data = (action as { data?: unknown }).data;
  if (!(action instanceof vscode.CodeAction) || !isRegeneration(data)) return action;
  action.command = { command: PREVIEW_COMMAND, title: action.title, arguments: [data, action.title] };
  return action;
}

/** The language client's code-action middleware (client.ts's CodeActionPresenter): qualm's actions
 * preview their rewrite, and a previewing action is not resolved by the server. */
export const PREVIEW_ACTIONS = {
  present: asPreviewAction,
  keeps: (action: vscode.CodeAction): boolean => action.command?.command === PREVIEW_COMMAND,
};

export interface Preview {
  id: number;
  title: string;
  data: RegenerationData;
  document: vscode.TextDocument;
  previewUri: vscode.Uri;
  /** The range the rewrite replaces (from the server's first streamed tokens on). */
  range?: vscode.Range;
  text: string;
  tokens: TokenJson[];
  result?: RegenerateResult;
  error?: string;
  done: boolean;
  cancel: vscode.CancellationTokenSource;
  finished: Promise<void>;
}

export interface PreviewEvent {
  kind: "text" | "finished" | "accepted" | "rejected";
  preview: Preview;
}

export class Regenerations implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private current?: Preview;
  private nextId = 1;
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly events = new vscode.EventEmitter<PreviewEvent>();
  /** Preview lifecycle, for the tests. */
  readonly onPreview = this.events.event;
  private readonly cycle = new Map<string, number>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly qualm: QualmClient,
    /** Paints a preview editor's new tokens with the highlights' own colours. */
    private readonly paint: (editor: vscode.TextEditor, marks: { range: vscode.Range; level: Level }[]) => void,
  ) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, this),
      vscode.window.onDidChangeVisibleTextEditors(() => this.repaint()),
      // the user closed the diff: that is a rejection (the stream stops, nothing is written)
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        const p = this.current;
        if (p && e.closed.some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === p.previewUri.toString())) void this.reject();
      }),
    );
  }

  get latest(): Preview | undefined {
    return this.current;
  }

  /** The document with the rewrite so far in place of the replaced range. */
  provideTextDocumentContent(uri: vscode.Uri): string {
    const p = this.current;
    if (!p || p.previewUri.toString() !== uri.toString()) return "";
    const doc = p.document.getText();
    if (!p.range) return doc;
    return doc.slice(0, p.document.offsetAt(p.range.start)) + p.text + doc.slice(p.document.offsetAt(p.range.end));
  }

  async preview(data: RegenerationData, title: string, seed?: number): Promise<Preview | undefined> {
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === data.uri);
    if (!document) return undefined;
    let client;
    try {
      client = this.qualm.running();
    } catch (err) {
      void vscode.window.showErrorMessage(`qualm: ${(err as Error).message}`);
      return undefined;
    }
    await this.reject(false);
    const id = this.nextId++;
    const previewUri = vscode.Uri.from({ scheme: SCHEME, path: document.uri.path, query: `id=${id}` });
    const cancel = new vscode.CancellationTokenSource();
    const p: Preview = { id, title, data, document, previewUri, text: "", tokens: [], done: false, cancel, finished: Promise.resolve() };
    this.current = p;
    const partialResultToken = `qualm-regenerate-${Date.now()}-${id}`;
    const sub = client.onProgress(RegenerateProgress, partialResultToken, (part: RegeneratePartial) => {
      if (p.done || this.current !== p) return;
      p.range ??= toRange(part.range);
      p.text += part.text;
      p.tokens.push(...part.tokens);
      this.changed.fire(previewUri);
      this.repaint();
      this.events.fire({ kind: "text", preview: p });
    });
    p.finished = Promise.resolve(
      client.sendRequest(RegenerateRequest, { data, seed, partialResultToken }, cancel.token).then(
        (result) => {
          p.result = result;
          p.range = toRange(result.range);
          p.text = result.text;
          p.tokens = result.tokens;
        },
        (err) => {
          p.error = err instanceof Error ? err.message : String(err);
        },
      ),
    ).finally(() => {
      p.done = true;
      sub.dispose();
      if (this.current !== p) return;
      this.changed.fire(previewUri);
      this.repaint();
      this.events.fire({ kind: "finished", preview: p });
    });
    // the diff opens at once; it fills as the server streams (before the answer, at the token's line)
    await vscode.commands.executeCommand("vscode.diff", document.uri, previewUri, `qualm: ${title.replace(/^qualm: /, "")} (preview)`, { preview: true });
    await vscode.commands.executeCommand("setContext", CONTEXT_KEY, true);
    void p.finished.then(() => this.offer(p));
    return p;
  }

  /** After the rewrite has streamed in: accept or reject, or say why there is nothing to accept. */
  private async offer(p: Preview): Promise<void> {
    if (this.current !== p) return;
    if (p.error || !p.result) {
      void vscode.window.showErrorMessage(`qualm: the rewrite failed: ${p.error ?? "no answer"}`);
      await this.reject(false);
      return;
    }
    if (p.result.text === p.result.replaced) vscode.window.setStatusBarMessage("qualm: the rewrite is the same text", 5000);
    const choice = await vscode.window.showInformationMessage(`${p.title}: ${p.result.tokens.length} tokens in ${p.result.seconds.toFixed(1)} s`, "Accept", "Reject");
    if (this.current !== p || p.result === undefined) return;
    if (choice === "Accept") await this.accept();
    else if (choice === "Reject") await this.reject();
  }

  /** Write the previewed rewrite into the document: only if the document is still the version the
   * rewrite was made for (otherwise it would land on other text). */
  async accept(): Promise<boolean> {
    const p = this.current;
    if (!p) return false;
    await p.finished;
    if (!p.result) return false;
    if (p.document.version !== p.result.version) {
      void vscode.window.showWarningMessage("qualm: the document changed since the rewrite was made; ask for it again");
      await this.reject(false);
      return false;
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(p.document.uri, toRange(p.result.range), p.result.text);
    const applied = await vscode.workspace.applyEdit(edit);
    await this.close(p);
    this.events.fire({ kind: "accepted", preview: p });
    return applied;
  }

  async reject(notify = true): Promise<void> {
    const p = this.current;
    if (!p) return;
    if (!p.done) p.cancel.cancel();
    await this.close(p);
    if (notify) this.events.fire({ kind: "rejected", preview: p });
  }

  private async close(p: Preview): Promise<void> {
    if (this.current === p) this.current = undefined;
    await vscode.commands.executeCommand("setContext", CONTEXT_KEY, false);
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === p.previewUri.toString());
    if (tabs.length) await vscode.window.tabGroups.close(tabs);
    await vscode.window.showTextDocument(p.document, { preserveFocus: false, preview: false });
  }

  /** The next of the model's alternatives at the cursor, previewed; again: the one after it. */
  async cycleAlternatives(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme === SCHEME) return;
    const at = editor.selection.active;
    const found = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>("vscode.executeCodeActionProvider", editor.document.uri, new vscode.Range(at, at));
    const ours = (found ?? [])
      .flatMap((a) => (typeof a.command === "object" && a.command ? [a.command] : [])) // a CodeAction's command, not a bare Command
      .filter((c) => c.command === PREVIEW_COMMAND && c.title.startsWith("qualm: use "));
    if (!ours.length) {
      vscode.window.setStatusBarMessage("qualm: no alternatives at the cursor (put it on a highlighted token)", 5000);
      return;
    }
    const key = `${editor.document.uri}@${editor.document.version}:${at.line}:${at.character}`;
    const next = ((this.cycle.get(key) ?? -1) + 1) % ours.length;
    this.cycle.clear();
    this.cycle.set(key, next);
    const [data, title] = ours[next].arguments as [RegenerationData, string];
    await this.preview(data, `${title} [${next + 1}/${ours.length}]`);
  }

  private repaint(): void {
    const p = this.current;
    if (!p) return;
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() !== p.previewUri.toString() || !p.range) continue;
      const base = editor.document.offsetAt(p.range.start);
      const marks = p.tokens
        .filter((t) => isLevel(t.level) && t.text.trim())
        .map((t) => ({ range: new vscode.Range(editor.document.positionAt(base + t.start), editor.document.positionAt(base + t.end)), level: t.level as Level }));
      this.paint(editor, marks);
    }
  }

  dispose(): void {
    this.current?.cancel.cancel();
    this.disposables.forEach((d) => d.dispose());
    this.changed.dispose();
    this.events.dispose();
  }
}

function toRange(r: { start: { line: number; character: number }; end: { line: number; character: number } }): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}
