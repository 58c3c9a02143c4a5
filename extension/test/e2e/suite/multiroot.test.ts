// qualm in a workspace of two folders (fixtures/multiroot): each folder's .vscode/settings.json
// applies to its files on the server, and a change in one folder re-publishes that folder's
// documents. The scripted backend stands in for the model (deterministic levels, no model to load).
// Runs in the extension host, in the runner's second session (run.ts).

import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { QualmApi } from "../../../src/extension";
import { until } from "../helpers";

const qualmLevels = (uri: vscode.Uri) =>
  vscode.languages
    .getDiagnostics(uri)
    .filter((d) => d.source === "qualm")
    .map((d) => String(typeof d.code === "object" ? d.code.value : d.code));

suite("qualm in a workspace of two folders", () => {
  let api: QualmApi;
  let a: vscode.WorkspaceFolder;
  let b: vscode.WorkspaceFolder;

  suiteSetup(async () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.deepEqual(folders.map((f) => f.name), ["a", "b"], "the workspace has the folders a and b");
    [a, b] = folders;
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.joinPath(a.uri, "calc.py")));
    const ext = vscode.extensions.getExtension<QualmApi>("qualm.qualm");
    assert.ok(ext, "the qualm extension is loaded");
    api = await ext.activate();
    await until(
      () => `the server and the scripted model to be ready (${JSON.stringify(api.status())})`,
      () => (api.status().state === "ready" ? true : api.status().state === "failed" || api.status().state === "error" ? Promise.reject(new Error(api.status().message)) : undefined),
      120000,
    );
  });

  test("each folder's file gets its folder's diagnostic and highlight levels; one model, the window's", async () => {
    // folder b names another model file: the server keeps the window's (and says so in its log)
    assert.equal(api.status().model, "scripted multi-root model");
    const found: Record<string, { levels: string[]; highlights: number }> = {};
    for (const folder of [a, b]) {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, "calc.py"));
      await vscode.window.showTextDocument(doc);
      const result = await vscode.commands.executeCommand("qualm.scoreCurrentDocument");
      const levels = await until(() => `qualm diagnostics in ${folder.name}/calc.py (scoring returned ${JSON.stringify(result)})`, () => (qualmLevels(doc.uri).length ? qualmLevels(doc.uri) : undefined), 30000);
      const highlights = await until(`highlights in ${folder.name}/calc.py`, () => api.highlights(doc.uri).length || undefined, 30000);
      found[folder.name] = { levels: [...levels].sort(), highlights };
    }
    // scored, calc.py has one low, one medium and one high token; a marks from low, b only high
    assert.deepEqual(found, { a: { levels: ["high", "low", "medium"], highlights: 3 }, b: { levels: ["high"], highlights: 1 } });
  });

  test("a change in one folder's settings re-publishes that folder's document with its new level", async () => {
    const inA = vscode.Uri.joinPath(a.uri, "calc.py");
    const inB = vscode.Uri.joinPath(b.uri, "calc.py");
    assert.deepEqual(qualmLevels(inB), ["high"], "b's document is scored (the test before)");
    await vscode.workspace.getConfiguration("qualm", b.uri).update("editor.diagnostic_level", "medium", vscode.ConfigurationTarget.WorkspaceFolder);
    const levels = await until(() => `b's diagnostics at medium and up (now ${JSON.stringify(qualmLevels(inB))})`, () => (qualmLevels(inB).length === 2 ? qualmLevels(inB) : undefined), 30000);
    assert.deepEqual([...levels].sort(), ["high", "medium"]);
    assert.equal(api.highlights(inB).length, 1, "b's highlight level is still high");
    assert.deepEqual([...qualmLevels(inA)].sort(), ["high", "low", "medium"], "a's document keeps its folder's level");
  });
});
