// The status bar item: the model and the server's state; a click opens qualm's menu.

import * as vscode from "vscode";
import { ClientStatus } from "./client";
import { CompletionView, completionLabel, completionTooltip } from "./doubt";
import { LINGER_MS } from "./linger";

const ICONS: Record<string, string> = {
  starting: "$(loading~spin)",
  loading: "$(loading~spin)",
  ready: "$(pulse)",
  busy: "$(sync~spin)",
  writing: "$(sync~spin)",
  error: "$(error)",
  unreachable: "$(debug-disconnect)",
  failed: "$(error)",
  crashed: "$(error)",
  stopped: "$(circle-slash)",
};

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("qualm.status", vscode.StatusBarAlignment.Right, 100);
  private last: ClientStatus = { state: "stopped", message: "not started", model: null };
  private completion?: CompletionView;
  private lingerTimer?: ReturnType<typeof setTimeout>;

  /** `lingerMs`: how long a finished completion's doubt stays (linger.ts). */
  constructor(private readonly lingerMs: number = LINGER_MS) {
    this.item.name = "qualm";
    this.item.command = "qualm.showMenu";
    this.show(this.last);
    this.item.show();
  }

  show(status: ClientStatus): void {
    this.last = status;
    this.paint();
  }

  /** A completion's running doubt while it streams; once it is done, its final doubt for a few
   * seconds (or until the next completion or an acceptance). undefined: show the server again. */
  showCompletion(view: CompletionView | undefined): void {
    if (this.lingerTimer !== undefined) clearTimeout(this.lingerTimer);
    this.lingerTimer = view?.done ? setTimeout(() => this.showCompletion(undefined), this.lingerMs) : undefined;
    this.completion = view;
    this.paint();
  }

  private paint(): void {
    const s = this.last;
    const model = s.model ? shortModel(s.model) : "qualm";
    // The server's trouble comes first; a completion is shown only while the server serves.
    const completion = s.state === "ready" || s.state === "busy" ? this.completion : undefined;
    const state = completion && !completion.done ? "writing" : s.state;
    const label = state === "ready" ? model : `${model}: ${state}`;
    this.item.text = completion ? completionLabel(completion) : `${ICONS[state] ?? ""} ${label}`.trim();
    const tip = new vscode.MarkdownString(undefined, true);
    if (completion) tip.appendMarkdown(completionTooltip(completion) + "\n\n---\n\n");
    tip.appendMarkdown(`**qualm** · ${state}\n\n`);
    if (s.model) tip.appendMarkdown(`model: \`${s.model}\`\n\n`);
    if (s.message) tip.appendText(s.message + "\n\n");
    if (s.interpreter) tip.appendMarkdown(`server: \`${s.interpreter} -m qualm serve\`\n\n`);
    if (s.server) tip.appendMarkdown(`qualm ${s.server.version} (protocol ${s.server.protocol})\n\n`);
    tip.appendMarkdown("Click for qualm's menu.");
    this.item.tooltip = tip;
    const bad = s.state === "error" || s.state === "failed" || s.state === "crashed";
    const warn = s.state === "unreachable";
    this.item.backgroundColor = bad
      ? new vscode.ThemeColor("statusBarItem.errorBackground")
      : warn
        ? new vscode.ThemeColor("statusBarItem.warningBackground")
        : undefined;
  }

  dispose(): void {
    if (this.lingerTimer !== undefined) clearTimeout(this.lingerTimer);
    this.item.dispose();
  }
}

function shortModel(name: string): string {
  return name.replace(/\.gguf$/i, "");
}

export async function showMenu(): Promise<void> {
  const items: (vscode.QuickPickItem & { command: string })[] = [
    { label: "$(output) Show Log", command: "qualm.showLog" },
    { label: "$(debug-restart) Restart Server", command: "qualm.restartServer" },
    { label: "$(symbol-color) Toggle Uncertainty Highlights", command: "qualm.toggleHighlights" },
    { label: "$(file) Select Model File…", command: "qualm.selectModel" },
    { label: "$(beaker) Assess Function at Cursor", command: "qualm.assessFunctionAtCursor" },
    { label: "$(symbol-event) Score Document", command: "qualm.scoreCurrentDocument" },
    { label: "$(clear-all) Clear", command: "qualm.clearAll" },
    { label: "$(gear) Settings", command: "qualm.openSettings" },
  ];
  const pick = await vscode.window.showQuickPick(items, { title: "qualm" });
  if (pick) await vscode.commands.executeCommand(pick.command);
}
