// The server's process killed under the editor (SIGKILL, as the OOM killer would): the status and a
// notification say so, the language client restarts it (highlights and diagnostics cleared, the
// handshake repeated, a completion works again), and after three crashes within three minutes it is
// left stopped with a Restart button. Runs in the extension host, in a window of its own (run.ts,
// suite `recovery`: the editor suite's folder and the real model).

import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { ClientStatus } from "../../../src/client";
import type { QualmApi } from "../../../src/extension";
import { askPage, finishedAt, notifications, qualmLog, until } from "../helpers";

// A function with a body (scoring highlights it) and one without (the completion after the restart).
const SOURCE = [
  "def running_max(values: list[int]) -> list[int]:",
  '    """Return the running maximum: element i is the largest of values[0..i]."""',
  "    out = []",
  "    best = None",
  "    for v in values:",
  "        best = v if best is None else max(best, v)",
  "        out.append(best)",
  "    return out",
  "",
  "",
  "def clamp(x: int, low: int, high: int) -> int:",
  '    """Return x limited to the range from low to high."""',
  "    ",
].join("\n");

const handshakeLines = (log: string) => log.split("\n").filter((l) => /\[info\] handshake: server qualm \S+, protocol 2\b/.test(l));

/** Kills the server that answered the last handshake; its process id. */
function killServer(api: QualmApi): number {
  const pid = api.status().server?.pid;
  assert.ok(typeof pid === "number" && pid > 0, `the handshake's answer names the server's process: ${JSON.stringify(api.status())}`);
  process.kill(pid, "SIGKILL");
  return pid;
}

/** The next server's handshake (a process other than `pid`). */
const newServer = (api: QualmApi, pid: number, ms = 120000) =>
  until(() => `a new server's handshake (now ${api.status().state}: ${api.status().message})`, () => {
    const p = api.status().server?.pid;
    return p !== undefined && p !== pid ? p : undefined;
  }, ms);

const ready = (api: QualmApi, ms = 180000) =>
  until(() => `the server to be ready (now ${api.status().state}: ${api.status().message})`, () => api.status().state === "ready" || undefined, ms);

suite("qualm after its server crashes", () => {
  let api: QualmApi;
  let doc: vscode.TextDocument;
  let editor: vscode.TextEditor;

  suiteSetup(async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const uri = vscode.Uri.joinPath(folder, "recovery.py");
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(SOURCE));
    doc = await vscode.workspace.openTextDocument(uri);
    editor = await vscode.window.showTextDocument(doc);
    const ext = vscode.extensions.getExtension<QualmApi>("qualm.qualm");
    assert.ok(ext, "the qualm extension is loaded");
    api = await ext.activate();
    await ready(api);
  });

  test("a killed server: the status and a notification say so; it restarts with highlights and diagnostics cleared and the handshake repeated; a completion works again", async () => {
    await vscode.commands.executeCommand("qualm.scoreCurrentDocument");
    await until("highlights from scoring", () => api.highlights(doc.uri).length > 0 || undefined, 120000);
    await until("qualm diagnostics from scoring", () => vscode.languages.getDiagnostics(doc.uri).some((d) => d.source === "qualm") || undefined, 20000);
    const handshakesBefore = handshakeLines(await qualmLog()).length;
    assert.ok(handshakesBefore >= 1, "the first handshake is in the log");
    await vscode.commands.executeCommand("notifications.clearAll");

    const states: ClientStatus[] = [];
    const sub = api.onStatus((s) => states.push(s));
    let pid: number;
    try {
      pid = killServer(api);
      const crashed = await until("the crashed status", () => states.find((s) => s.state === "crashed"), 20000);
      assert.match(crashed.message, /^the server stopped unexpectedly \(signal SIGKILL\): restarting it$/);
      assert.equal(crashed.server, undefined, "no handshake's answer while it is down");
      // the restart: a new process, with the handshake repeated
      const next = await newServer(api, pid);
      const after = states.slice(states.indexOf(crashed));
      assert.ok(after.some((s) => s.state === "starting"), `the status went through starting: ${after.map((s) => s.state).join(" → ")}`);
      // the new process knows no marks: the highlights and the diagnostics are gone
      assert.equal(api.highlights(doc.uri).length, 0, "the highlights were cleared");
      await until("no qualm diagnostics", () => vscode.languages.getDiagnostics(doc.uri).every((d) => d.source !== "qualm") || undefined, 10000);
      let log = "";
      await until(() => `a second handshake line in the qualm log (had ${handshakesBefore})`, async () => {
        log = await qualmLog();
        return handshakeLines(log).length > handshakesBefore || undefined;
      }, 20000);
      assert.ok(handshakeLines(log).some((l) => l.endsWith(`server process ${next}`)), `the new handshake names process ${next}`);
      assert.match(log, /\[error\] qualm: the language server stopped unexpectedly \(exited with signal SIGKILL\); restarting it/);
      // the notification's text, as the log has it whole: its last lines are the server's own last
      // lines, in order, each written before the crash (not the client's words about the crash)
      const crashAt = log.indexOf("qualm: the language server stopped unexpectedly");
      const quoted = /Its last lines: (.*)$/m.exec(log.slice(crashAt))?.[1] ?? "";
      const lines = quoted.split(" ⏎ ").map((l) => l.replace(/…$/, "").trim()).filter(Boolean);
      assert.ok(lines.length > 0, `the notification quotes lines: ${quoted}`);
      let at = -1;
      for (const l of lines) {
        const i = log.indexOf(l, at + 1);
        assert.ok(i > at && i < crashAt, `"${l}" is a line the server wrote before it was killed, after the one before it`);
        at = i;
      }
    } finally {
      sub.dispose();
    }

    // what the user saw: the notification, with the server's last lines and a Restart button
    await vscode.commands.executeCommand("notifications.showList");
    let seen = "";
    await until(() => `the crash notification (seen: ${JSON.stringify(seen)})`, async () => {
      seen = await notifications();
      return /the language server stopped unexpectedly \(exited with signal SIGKILL\); restarting it/.test(seen) || undefined;
    }, 20000);
    assert.match(seen, /Its last lines: /);
    assert.match(seen, /Restart/);
    assert.match(seen, /Show Log/);
    await askPage("screenshot", { name: "crash-notification" });
    await vscode.commands.executeCommand("notifications.clearAll");
    await vscode.commands.executeCommand("notifications.hideList");

    // the state comes back: ready, the document known to the new server (a completion in it)
    await ready(api);
    assert.equal(api.highlights(doc.uri).length, 0, "no highlight outlived the crash");
    editor = await vscode.window.showTextDocument(doc);
    const at = new vscode.Position(doc.lineCount - 1, 4);
    editor.selection = new vscode.Selection(at, at);
    const finished = finishedAt(api, doc, at, 180000);
    await vscode.commands.executeCommand("editor.action.inlineSuggest.trigger");
    const { stream } = await finished;
    assert.ok(stream.result, `the completion finished after the restart: ${stream.error ?? ""}`);
    assert.ok(stream.result.text.trim(), `the completion has text: ${JSON.stringify(stream.result)}`);
    await vscode.commands.executeCommand("editor.action.inlineSuggest.hide");
  });

  test("three crashes within three minutes: no more automatic restarts, a clear message, and its Restart button brings the server back", async () => {
    // a restart by the user starts the count afresh (and is no crash: its server's exit is not one)
    await vscode.commands.executeCommand("qualm.restartServer");
    let pid = await newServer(api, -1);
    const crashes: string[] = [];
    const sub = api.onStatus((s) => s.state === "crashed" && crashes.push(s.message));
    for (let crash = 1; crash <= 3; crash++) {
      assert.equal(killServer(api), pid);
      if (crash < 3) {
        pid = await newServer(api, pid); // restarted, even while its model still loads
        assert.equal(api.lastCrashAction(), "restart");
      }
    }
    await until(() => `the crashed status after the third crash (now ${api.status().state}: ${api.status().message})`, () => (api.status().state === "crashed" && /3 times within 3 minutes/.test(api.status().message)) || undefined, 20000);
    assert.match(api.status().message, /^the server stopped unexpectedly \(signal SIGKILL\) 3 times within 3 minutes: not restarted automatically \(qualm: Restart Language Server\)$/);
    // not restarted: the language client was told to leave it stopped (no wait for a restart that is not coming)
    assert.equal(api.lastCrashAction(), "stop");
    assert.equal(api.status().state, "crashed", "not restarted");
    assert.equal(api.status().server, undefined);
    sub.dispose();
    // each crash told as the kill it was (not as the end of the process the user's restart stopped)
    assert.equal(crashes.length, 3, crashes.join(" | "));
    for (const c of crashes) assert.match(c, /\(signal SIGKILL\)/);

    await vscode.commands.executeCommand("notifications.showList");
    let seen = "";
    await until(() => `the notification that restarts stopped (seen: ${JSON.stringify(seen)})`, async () => {
      seen = await notifications();
      return /stopped unexpectedly \(exited with signal SIGKILL\), 3 times within 3 minutes: it is not restarted automatically any more/.test(seen) || undefined;
    }, 20000);
    assert.doesNotMatch(seen, /Its last lines: [^\n]*Server process exited/, "the last lines are the server's, not the client's");
    await askPage("screenshot", { name: "crash-limit-notification" });
    const clicked = await askPage<{ clicked?: boolean; error?: string }>("notification-button", { text: "not restarted automatically any more", button: "Restart" });
    assert.ok(clicked.clicked, `the notification's Restart button was pressed: ${JSON.stringify(clicked)}`);
    const next = await newServer(api, pid);
    assert.notEqual(next, pid);
    await ready(api);
    await vscode.commands.executeCommand("notifications.clearAll");
    await vscode.commands.executeCommand("notifications.hideList");
  });
});
