// The palette's commands. Assessment and scoring run on the server with a progress notification
// that can be cancelled (cancelling sends $/cancelRequest; the model stops at its next token).

import * as vscode from "vscode";
import { ExecuteCommandRequest, WorkDoneProgress, WorkDoneProgressBegin, WorkDoneProgressReport } from "vscode-languageclient/node";
import { QualmClient } from "./client";
import { AssessParams, AssessRequest, AssessResult } from "./protocol";

let progressIds = 0;

/** Assess one function (named, or the one holding a position) with a cancellable notification. */
export function assessWithProgress(qualm: QualmClient, uri: string, target: { function?: string; position?: vscode.Position }): Thenable<AssessResult | undefined> {
  const title = `qualm: assessing ${target.function ?? "the function at the cursor"}`;
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    let client;
    try {
      client = qualm.running();
    } catch (err) {
      qualm.log.warn(`assessment not started: ${(err as Error).message}`);
      void vscode.window.showErrorMessage(`qualm: ${(err as Error).message}`);
      return undefined;
    }
    const workDoneToken = `qualm-assess-${Date.now()}-${progressIds++}`;
    let done = 0;
    const sub = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
      if (value.kind === "end") return;
      const v = value as WorkDoneProgressBegin | WorkDoneProgressReport;
      const pct = v.percentage;
      progress.report({ message: v.message, increment: pct !== undefined && pct > done ? pct - done : undefined });
      if (pct !== undefined) done = Math.max(done, pct);
    });
    const params: AssessParams = { textDocument: { uri }, workDoneToken };
    if (target.function) params.function = target.function;
    if (target.position) params.position = { line: target.position.line, character: target.position.character };
    try {
      const result = await client.sendRequest(AssessRequest, params, token);
      if (result.cancelled) vscode.window.setStatusBarMessage(`qualm: assessment of ${result.function} cancelled`, 5000);
      else if (result.summary) vscode.window.setStatusBarMessage(result.summary, 10000);
      return result;
    } catch (err) {
      if (token.isCancellationRequested) {
        vscode.window.setStatusBarMessage("qualm: assessment cancelled", 5000);
        return { function: target.function ?? "", cancelled: true };
      }
      qualm.log.error(`assessment failed: ${(err as Error).message}`);
      void vscode.window.showErrorMessage(`qualm: ${(err as Error).message}`);
      return undefined;
    } finally {
      sub.dispose();
    }
  });
}

/** Run one of the server's workspace commands with a cancellable notification. */
export function serverCommandWithProgress(qualm: QualmClient, title: string, command: string, args: unknown[]): Thenable<unknown> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (_progress, token) => {
    try {
      return await qualm.running().sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token);
    } catch (err) {
      if (!token.isCancellationRequested) void vscode.window.showErrorMessage(`qualm: ${(err as Error).message}`);
      return undefined;
    }
  });
}

export async function selectModel(): Promise<void> {
  const picked = await vscode.window.showOpenDialog({
    title: "qualm: choose a GGUF model",
    canSelectMany: false,
    filters: { "GGUF models": ["gguf"], "All files": ["*"] },
  });
  if (!picked?.length) return;
  // The server reloads the model when the model section changes, and says so in the status bar.
  await vscode.workspace.getConfiguration("qualm").update("model.path", picked[0].fsPath, vscode.ConfigurationTarget.Global);
}

export async function toggleHighlights(): Promise<void> {
  // The settings of the document at hand: a folder's value applies to it, so that is the one to flip.
  const config = vscode.workspace.getConfiguration("qualm", vscode.window.activeTextEditor?.document.uri);
  const inspect = config.inspect<boolean>("highlights.enabled");
  // Change it where it is set, so a workspace value is not shadowed by a new user value.
  const target = inspect?.workspaceFolderValue !== undefined ? vscode.ConfigurationTarget.WorkspaceFolder : inspect?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update("highlights.enabled", !config.get<boolean>("highlights.enabled", true), target);
}
