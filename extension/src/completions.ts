// Ghost-text completions streamed from the server's qualm/complete. The first call (after the debounce)
// starts a stream; each streamed token re-triggers VS Code's inline suggestion, whose next call returns
// the text so far, so the ghost text grows as the model writes. Typing on or moving the cursor asks
// for a new completion, which cancels the old stream (here and, by key, in the server).
// On acceptance the server gets qualm/accepted with the text that was taken (it finds its own completion
// that begins with it) and answers with marks: the highlights.

import * as vscode from "vscode";
import { Debouncer } from "./debounce";
import { withPartial } from "./partial";
import { AcceptedNotification, CompletePartial, CompleteProgress, CompleteRequest, CompleteResult, CompletionDoubt, TokenJson } from "./protocol";
import { QualmClient } from "./client";
import { ClientSettings } from "./settings";

const RETRIGGER_MS = 120;
export const ACCEPT_COMMAND = "qualm._completionAccepted";

export interface Stream {
  id: number;
  uri: string;
  version: number;
  position: vscode.Position;
  text: string;
  tokens: TokenJson[];
  /** The server's running doubt of the tokens so far; the final one once the result came. */
  doubt: CompletionDoubt | null;
  done: boolean;
  result?: CompleteResult;
  error?: string;
  accepted: boolean;
  /** The text last handed to VS Code as the item: a re-trigger is needed only when the stream has more. */
  shown: string;
  cancel: vscode.CancellationTokenSource;
  firstText: Promise<void>;
  finished: Promise<void>;
}

export interface StreamEvent {
  kind: "started" | "text" | "finished" | "accepted";
  stream: Stream;
}

export class InlineCompletions implements vscode.InlineCompletionItemProvider, vscode.Disposable {
  private current?: Stream;
  private nextId = 1;
  private readonly debouncer: Debouncer;
  private readonly emitter = new vscode.EventEmitter<StreamEvent>();
  /** Stream lifecycle, for the status bar and the tests. */
  readonly onStream = this.emitter.event;
  private retriggerTimer?: ReturnType<typeof setTimeout>;

  /** `settings(uri)`: the client settings that apply to a document (its folder's, else the window's). */
  constructor(private readonly qualm: QualmClient, private readonly settings: (uri?: vscode.Uri) => ClientSettings) {
    this.debouncer = new Debouncer(() => this.settings().debounceMs);
  }

  get latest(): Stream | undefined {
    return this.current;
  }

  async provideInlineCompletionItems(
    document: vscode.TextDocument,
    position: vscode.Position,
    context: vscode.InlineCompletionContext,
    token: vscode.CancellationToken,
  ): Promise<vscode.InlineCompletionItem[] | undefined> {
    const explicit = context.triggerKind === vscode.InlineCompletionTriggerKind.Invoke;
    const settings = this.settings(document.uri);
    if (!settings.inlineEnabled && !explicit) return undefined;
    const s = this.current;
    if (s && !s.accepted && s.uri === document.uri.toString() && s.version === document.version && s.position.isEqual(position)) {
      if (!s.text && !s.done) await race(s.firstText, token);
      return this.items(s, token);
    }
    this.cancelCurrent();
    if (!explicit && !(await this.debouncer.wait(token, settings.debounceMs))) return undefined;
    if (token.isCancellationRequested) return undefined;
    let client;
    try {
      client = this.qualm.running();
    } catch {
      return undefined; // the status bar says why
    }
    const stream = this.start(client, document, position);
    await race(stream.firstText, token);
    return this.items(stream, token);
  }

  private items(s: Stream, token: vscode.CancellationToken): vscode.InlineCompletionItem[] | undefined {
    const text = s.result?.text ?? s.text;
    if (!text) return undefined;
    // a cancelled call's items are dropped by VS Code: they were not handed over
    if (!token.isCancellationRequested) s.shown = text;
    return [
      new vscode.InlineCompletionItem(text, new vscode.Range(s.position, s.position), {
        title: "qualm: completion accepted",
        command: ACCEPT_COMMAND,
        arguments: [s.id, text],
      }),
    ];
  }

  private start(client: NonNullable<QualmClient["client"]>, document: vscode.TextDocument, position: vscode.Position): Stream {
    const cancel = new vscode.CancellationTokenSource();
    let gotText!: () => void;
    const firstText = new Promise<void>((r) => (gotText = r));
    const partialResultToken = `qualm-complete-${Date.now()}-${this.nextId}`;
    const s: Stream = {
      id: this.nextId++,
      uri: document.uri.toString(),
      version: document.version,
      position,
      text: "",
      tokens: [],
      doubt: null,
      done: false,
      accepted: false,
      shown: "",
      cancel,
      firstText,
      finished: Promise.resolve(),
    };
    this.current = s;
    const sub = client.onProgress(CompleteProgress, partialResultToken, (part: CompletePartial) => {
      if (s.done) return;
      ({ text: s.text, tokens: s.tokens } = withPartial(s, part));
      if (part.doubt !== undefined) s.doubt = part.doubt;
      if (s.text) gotText();
      this.emitter.fire({ kind: "text", stream: s });
      this.scheduleRetrigger(s);
    });
    s.finished = client
      .sendRequest(
        CompleteRequest,
        {
          textDocument: { uri: s.uri },
          position: { line: position.line, character: position.character },
          // no token budget: the server's qualm.editor.completion_max_tokens is the one setting for it
          partialResultToken,
        },
        cancel.token,
      )
      .then(
        (result) => {
          s.result = result;
          s.text = result.text;
          s.tokens = result.tokens;
          if (result.doubt !== undefined) s.doubt = result.doubt;
        },
        (err) => {
          s.error = err instanceof Error ? err.message : String(err);
        },
      )
      .finally(() => {
        s.done = true;
        sub.dispose();
        gotText();
        this.emitter.fire({ kind: "finished", stream: s });
        this.scheduleRetrigger(s, 0);
      });
    this.emitter.fire({ kind: "started", stream: s });
    return s;
  }

  /** Ask VS Code to call us again (and so show the longer text) while the stream is still where the user is. */
  private scheduleRetrigger(s: Stream, delay = RETRIGGER_MS): void {
    if (this.retriggerTimer !== undefined && delay > 0) return;
    if (this.retriggerTimer !== undefined) clearTimeout(this.retriggerTimer);
    this.retriggerTimer = setTimeout(() => {
      this.retriggerTimer = undefined;
      const editor = vscode.window.activeTextEditor;
      if (s !== this.current || s.accepted || !editor) return;
      // VS Code already has this text: hiding and asking again would only blink, and a Tab pressed in
      // that frame would find no suggestion to accept.
      if (s.shown === (s.result?.text ?? s.text)) return;
      if (editor.document.uri.toString() !== s.uri || editor.document.version !== s.version) return;
      if (!editor.selection.isEmpty || !editor.selection.active.isEqual(s.position)) return;
      // A shown suggestion is not asked for again by trigger alone: hide it, then ask (one frame).
      void vscode.commands.executeCommand("editor.action.inlineSuggest.hide").then(() => vscode.commands.executeCommand("editor.action.inlineSuggest.trigger"));
    }, delay);
  }

  /** The item's command: the user took `text` (the whole completion, or what had streamed in when
   * it was accepted). When the stream has finished, the server learns what landed where and answers
   * with marks for the tokens that are really there. */
  async accepted(id: number, text: string): Promise<void> {
    const s = this.current;
    if (!s || s.id !== id) return;
    s.accepted = true;
    this.emitter.fire({ kind: "accepted", stream: s });
    await s.finished;
    if (!s.result) return;
    const end = endOf(s.position, text);
    try {
      await this.qualm.running().sendNotification(AcceptedNotification, {
        textDocument: { uri: s.uri },
        range: { start: { line: s.position.line, character: s.position.character }, end: { line: end.line, character: end.character } },
        text,
      });
    } catch (err) {
      this.qualm.log.warn(`could not report the accepted completion: ${err instanceof Error ? err.message : err}`);
    }
  }

  cancelCurrent(): void {
    const s = this.current;
    if (s && !s.done && !s.accepted) s.cancel.cancel();
    this.debouncer.supersede();
  }

  dispose(): void {
    this.cancelCurrent();
    this.emitter.dispose();
  }
}

function endOf(start: vscode.Position, text: string): vscode.Position {
  const lines = text.split("\n");
  return lines.length === 1 ? start.translate(0, text.length) : new vscode.Position(start.line + lines.length - 1, lines[lines.length - 1].length);
}

function race(p: Promise<void>, token: vscode.CancellationToken): Promise<void> {
  return new Promise<void>((resolve) => {
    const sub = token.onCancellationRequested(() => {
      sub.dispose();
      resolve();
    });
    p.then(() => {
      sub.dispose();
      resolve();
    });
  });
}
