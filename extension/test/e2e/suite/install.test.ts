// qualm as a user installs it (issue 57): the .vsix installed into a VS Code with an empty HOME, no
// clone of qualm on any path, and no Python on PATH that can import qualm (run.ts checks that before it
// opens the window). The extension is the installed one (this suite's runner loads only a driver
// extension from a folder). Two windows share the one home: `install` runs the setup command and uses
// the engine, `upgrade` runs after a newer .vsix was installed over it.
//
// The llama-cpp-python wheel and the model come from a prepared cache that the engine setup only reads
// (QUALM_PREPARED_CACHE, the machine's qualm cache: run.ts checks it is unchanged); everything else is
// installed into the empty home: the engine's environment, qualm and its libraries from PyPI.

import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { ClientStatus } from "../../../src/client";
import type { QualmApi } from "../../../src/extension";
import { askPage, finishedAt, handedOver, qualmLog, until } from "../helpers";

function hoverText(hovers: vscode.Hover[]): string {
  return hovers.flatMap((h) => h.contents.map((c) => (typeof c === "string" ? c : (c as vscode.MarkdownString).value))).join("\n");
}

const engineVersion = () => String(vscode.extensions.getExtension("qualm.qualm")?.packageJSON.version);

async function qualm(): Promise<QualmApi> {
  const ext = vscode.extensions.getExtension<QualmApi>("qualm.qualm");
  assert.ok(ext, "the installed qualm extension is there");
  assert.ok(!ext.extensionPath.includes("/extension/test/"), `qualm runs from its installed folder: ${ext.extensionPath}`);
  return ext.activate();
}

/** The workspace's stub.py, opened and shown (opening a Python file starts qualm). */
async function openStub(): Promise<{ doc: vscode.TextDocument; editor: vscode.TextEditor }> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, "stub.py"));
  return { doc, editor: await vscode.window.showTextDocument(doc) };
}

/** The status once qualm, started by opening a file, has found no usable engine. */
async function failedOnOpening(api: QualmApi): Promise<ClientStatus> {
  await openStub();
  return until(() => `the status to fail (now ${JSON.stringify(api.status())})`, () => (api.status().state === "failed" ? api.status() : undefined), 60000);
}

/** Runs the setup command (the palette's "qualm: Set Up qualm's Engine"), CPU build: no question asked. */
async function setUp(api: QualmApi): Promise<void> {
  const ok = await vscode.commands.executeCommand<boolean>("qualm.setupEngine", { gpu: "cpu" });
  const log = await qualmLog();
  assert.equal(ok, true, `the setup finished; the qualm log's end:\n${log.slice(-3000)}`);
  await until(
    () => `the server to be ready with the engine (status: ${JSON.stringify(api.status())})`,
    () => (api.status().state === "ready" ? true : api.status().state === "failed" || api.status().state === "error" ? Promise.reject(new Error(api.status().message)) : undefined),
    300000,
  );
  assert.match(api.status().interpreter ?? "", /globalStorage\/qualm\.qualm\/engine\/bin\/python$/, "the server runs with the engine's Python");
  assert.equal(api.status().server?.version, engineVersion(), "the handshake names the bundled version");
}

suite("qualm installed from its .vsix in a clean home", () => {
  const kind = process.env.QUALM_E2E_SUITE;

  if (kind === "install") {
    test("with no engine yet, the extension says so and names the setup command", async () => {
      const failed = await failedOnOpening(await qualm());
      assert.match(failed.message, /no Python with qualm installed was found|Set Up qualm's Engine/);
      assert.match(failed.message, /qualm: Set Up qualm's Engine/);
    });

    test("Cancel in the setup's notification stops the step that runs; the setup says so", async () => {
      const running = vscode.commands.executeCommand<boolean>("qualm.setupEngine", { gpu: "cpu" });
      // cancelled while qualm's libraries install (the longest step when llama.cpp is not compiled)
      await until("the qualm step to start", async () => /\[engine qualm\] \[engine\] \$ /.test(await qualmLog()) || undefined, 120000);
      // Headless, VS Code keeps new toasts back; the notification centre lists it with the same button.
      await vscode.commands.executeCommand("notifications.showList");
      const clicked = await askPage<{ clicked?: boolean; error?: string }>("cancel-progress", { text: "qualm: setting up the engine" });
      assert.ok(clicked.clicked, `Cancel was pressed: ${clicked.error ?? ""}`);
      assert.equal(await running, false);
      const log = await qualmLog();
      assert.match(log, /engine setup cancelled at step (qualm|model|check)/);
      assert.doesNotMatch(log, /engine setup: done/);
    });

    test("the setup command builds the engine from the .vsix and the server starts with it", async () => {
      const api = await qualm();
      await setUp(api);
      const log = await qualmLog();
      // the prepared cache's wheel, and the log says so (run.ts names that cache in QUALM_PREPARED_CACHE)
      const prepared = process.env.QUALM_PREPARED_CACHE ?? "(QUALM_PREPARED_CACHE unset)";
      assert.ok(log.includes(`[engine llama] [engine] reusing the llama-cpp-python wheel built before (${prepared}/wheels/`), `the prepared wheel from ${prepared} was used:\n${log.slice(-3000)}`);
      assert.match(log, /\[engine qualm\] Successfully installed .*qualm-\d/);
      assert.match(log, /\[engine check\] \[engine\] qualm \S+ imports in /);
      assert.match(log, /found: qualm's engine \(bundled with the extension/);
      assert.doesNotMatch(log, /compiling llama\.cpp/, "nothing was compiled: the prepared wheel was used");
    });

    test("a completion streams with highlights, and a hover explains a token", async () => {
      const api = await qualm();
      const { doc, editor } = await openStub();
      const bodyLine = doc.getText().split("\n").findIndex((l) => l.trim() === '"""') + 1;
      await editor.edit((e) => e.insert(new vscode.Position(bodyLine, 0), "    "));
      const at = new vscode.Position(bodyLine, 4);
      editor.selection = new vscode.Selection(at, at);
      const finished = finishedAt(api, doc, at, 180000);
      await vscode.commands.executeCommand("editor.action.inlineSuggest.trigger");
      const done = await finished;
      const text = done.stream.result?.text ?? "";
      assert.ok(text, `a completion: ${done.stream.error ?? "empty"}`);
      // accepted once it is on the page, as a user accepts what they see
      await handedOver(done.stream);
      const firstLine = (text.split("\n").find((l) => l.trim()) ?? "").replace(/\s+/g, "");
      await until(`the ghost text ${JSON.stringify(text)} on the page`, async () => (await askPage<string>("ghost")).replace(/\s+/g, "").includes(firstLine) || undefined, 20000);
      const before = doc.getText();
      await vscode.commands.executeCommand("editor.action.inlineSuggest.commit");
      await until("the completion in the document", () => doc.getText().length > before.length || undefined, 10000);
      const highlights = await until("highlights on the accepted completion", () => {
        const h = api.highlights(doc.uri);
        return h.length ? h : undefined;
      }, 30000);
      const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>("vscode.executeHoverProvider", doc.uri, highlights[0].range.start)) ?? [];
      assert.match(hoverText(hovers), /entropy \*\*\d+\.\d+\*\* nats/);
    });
  }

  if (kind === "upgrade") {
    test("a newer .vsix finds the engine out of date and says so", async () => {
      const failed = await failedOnOpening(await qualm());
      assert.match(failed.message, new RegExp(`bundles ${engineVersion().replace(/\./g, "\\.")}`));
      assert.match(failed.message, /Update qualm's Engine/);
    });

    test("the setup command upgrades qualm in place without compiling llama.cpp again", async () => {
      const api = await qualm();
      await setUp(api);
      const log = await qualmLog();
      assert.match(log, /\[engine llama\] \[engine\] llama-cpp-python \S+ is installed, built with these flags/);
      assert.match(log, new RegExp(`\\[engine check\\] \\[engine\\] qualm ${engineVersion().replace(/\./g, "\\.")} imports in `));
      assert.doesNotMatch(log, /compiling llama\.cpp/);
    });
  }
});
