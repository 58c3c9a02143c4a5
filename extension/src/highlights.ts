// Colours on uncertain tokens. The server sends each document's marks (range and level) whenever they
// change; between two updates the marks follow the user's edits here, so a highlight never sits on
// text it no longer describes. No numbers in the text: the hover (from the server) has them.

import * as vscode from "vscode";
import { LEVELS, Level, atLeast, isLevel, styleFor } from "./levels";
import { MarkStore, OffsetMark, paintedSpans } from "./marks";
import { MarksParams } from "./protocol";

export interface Highlight {
  range: vscode.Range;
  level: Level;
}

export class Highlights implements vscode.Disposable {
  private readonly store = new MarkStore();
  private readonly types = new Map<Level, vscode.TextEditorDecorationType>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changedEmitter = new vscode.EventEmitter<string>();
  /** Fires with a document URI whenever its highlights change (tests wait on it). */
  readonly onDidChange = this.changedEmitter.event;

  /** `enabled` and `minimum` read the settings for a document (its folder's, else the window's). */
  constructor(private enabled: (uri: vscode.Uri) => boolean, private minimum: (uri: vscode.Uri) => Level) {
    for (const level of LEVELS) {
      const style = styleFor(level);
      this.types.set(
        level,
        vscode.window.createTextEditorDecorationType({
          backgroundColor: new vscode.ThemeColor(style.background),
          borderColor: new vscode.ThemeColor(style.underline),
          borderStyle: "solid",
          borderWidth: style.underlineWidth,
          overviewRulerColor: style.inOverviewRuler ? new vscode.ThemeColor(style.underline) : undefined,
          overviewRulerLane: vscode.OverviewRulerLane.Right,
          rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
        }),
      );
    }
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        const uri = e.document.uri.toString();
        if (e.contentChanges.length && this.store.edit(uri, e.document.version, e.contentChanges)) this.render(uri);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.store.delete(d.uri.toString())),
      vscode.window.onDidChangeVisibleTextEditors(() => this.renderAll()),
    );
  }

  /** The server's marks for a document; ignored when the document has moved on (a newer update follows). */
  fromServer(params: MarksParams): void {
    const doc = openDocument(params.uri);
    if (!doc) return;
    if (params.version !== null && params.version !== doc.version) return;
    const marks: OffsetMark[] = [];
    for (const m of params.marks) {
      if (!isLevel(m.level)) continue;
      const start = doc.offsetAt(new vscode.Position(m.range.start.line, m.range.start.character));
      const end = doc.offsetAt(new vscode.Position(m.range.end.line, m.range.end.character));
      if (end > start) marks.push({ start, end, level: m.level, span: typeof m.span === "number" ? m.span : undefined });
    }
    if (this.store.set(params.uri, doc.version, marks)) this.render(params.uri);
  }

  get(uri: vscode.Uri): Highlight[] {
    const doc = openDocument(uri.toString());
    if (!doc) return [];
    return this.store.get(uri.toString()).map((m) => ({ range: trimmed(doc, m), level: m.level }));
  }

  /** Paint marks that are not a document's own (a rewrite's preview) with the same colours and the
   * same minimum level. */
  paintRanges(editor: vscode.TextEditor, marks: Highlight[]): void {
    const min = this.minimum(editor.document.uri);
    for (const level of LEVELS) {
      editor.setDecorations(this.types.get(level)!, atLeast(level, min) ? marks.filter((m) => m.level === level).map((m) => m.range) : []);
    }
  }

  clearAll(): void {
    const uris = this.store.uris();
    uris.forEach((u) => this.store.delete(u));
    this.renderAll();
    uris.forEach((u) => this.changedEmitter.fire(u));
  }

  renderAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.paint(editor);
  }

  private render(uri: string): void {
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() === uri) this.paint(editor);
    }
    this.changedEmitter.fire(uri);
  }

  private paint(editor: vscode.TextEditor): void {
    const on = this.enabled(editor.document.uri);
    const min = this.minimum(editor.document.uri);
    const spans = on ? paintedSpans(this.store.get(editor.document.uri.toString()), min) : [];
    for (const level of LEVELS) {
      editor.setDecorations(this.types.get(level)!, spans.filter((m) => m.level === level).map((m) => trimmed(editor.document, m)));
    }
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
    this.types.forEach((t) => t.dispose());
    this.changedEmitter.dispose();
  }
}

function openDocument(uri: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
}

/** A token's range without its leading whitespace (" total" highlights "total", not the space). */
function trimmed(doc: vscode.TextDocument, m: OffsetMark): vscode.Range {
  const text = doc.getText(new vscode.Range(doc.positionAt(m.start), doc.positionAt(m.end)));
  const lead = text.length - text.trimStart().length;
  const trail = text.trimStart().length - text.trim().length;
  const start = lead < text.length ? m.start + lead : m.start;
  const end = lead < text.length ? m.end - trail : m.end;
  return new vscode.Range(doc.positionAt(start), doc.positionAt(end));
}
