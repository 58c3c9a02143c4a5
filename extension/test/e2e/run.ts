// End-to-end tests in a real VS Code: the VS Code server inside code-server (installed by
// scripts/setup-editor), its workbench in headless Chromium, the extension loaded from this checkout,
// the real Python language server and the default model. The mocha suite in ./suite runs inside the
// extension host; it asks this runner (through files in the artifacts folder) for what only the page
// can see: the ghost text's DOM, the hover widget, screenshots.
//
//   node extension/out/test/e2e/run.js          (npm run test:e2e; scripts/test runs it)
// Four suites, each in a VS Code window of its own: `editor` (suite/editor.test.ts) in a folder with the
// real model, then `multiroot` (suite/multiroot.test.ts) in a workspace of two folders with settings of
// their own (fixtures/multiroot, the scripted backend: no model to load), `recovery`
// (suite/recovery.test.ts: the server killed, in the editor suite's folder) and `restricted`
// (suite/restricted.test.ts: workspace trust on, the folder untrusted, its settings naming a program
// of its own, fixtures/restricted). Then `install` and `upgrade` (suite/install.test.ts), qualm as a
// user installs it: dist/qualm.vsix installed into a VS Code with an empty HOME and cache, a bare
// virtual environment's Python first on PATH, the setup command run, a completion and a hover; then a
// newer .vsix (extension/package.mjs --version) installed over it and the engine upgraded in place.
// Those two read the llama-cpp-python wheel and the model from the machine's qualm cache
// (QUALM_PREPARED_CACHE), never writing there (checked), so that the compile is not paid twice:
// scripts/setup on CI still compiles it.
// Environment: QUALM_EDITOR_DIR (code-server install), QUALM_E2E_ARTIFACTS (default build/e2e; the
// multiroot suite's under multiroot/), CHROMIUM (default /usr/bin/chromium), QUALM_E2E_TIMEOUT_S
// (default 900, per suite), QUALM_E2E_GREP (run only the tests whose title matches this regular
// expression, e.g. "fill-in-the-middle"), QUALM_E2E_SUITE (`editor`, `multiroot`, `recovery`,
// `restricted`, `install` or `upgrade`, or several with commas: those suites only; `upgrade` alone
// goes on from the last `install`).

import { ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { writeWhole } from "./channel";
import { scaled } from "./timing";
import { untrustedSettings } from "./untrusted";
import { createServer } from "node:net";
import { basename, join, resolve } from "node:path";
import { chromium, Page } from "playwright-core";
import { qualmCacheDir } from "../../src/python";

const CODE_SERVER_VERSION = "4.139.1";
const repo = resolve(__dirname, "../../../..");
const editorDir = process.env.QUALM_EDITOR_DIR ?? join(qualmCacheDir(), "editor", `code-server-${CODE_SERVER_VERSION}`);
const artifacts = resolve(process.env.QUALM_E2E_ARTIFACTS ?? join(repo, "build", "e2e"));
const timeoutMs = scaled(Number(process.env.QUALM_E2E_TIMEOUT_S ?? 900) * 1000);
const grep = process.env.QUALM_E2E_GREP;
const SUITES = ["editor", "multiroot", "recovery", "restricted", "install", "upgrade"] as const;
type Suite = (typeof SUITES)[number];

function log(msg: string): void {
  process.stdout.write(`[e2e ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
  });
}

async function waitForHttp(url: string, ms: number, proc: ChildProcess): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (proc.exitCode !== null) throw new Error(`the VS Code server exited with ${proc.exitCode}`);
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {
      /* not up yet */
    }
    await sleep(250);
  }
  throw new Error(`${url} did not answer within ${ms / 1000} s`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// qualm's status bar item (its element's id ends with the item's id).
const QUALM_STATUS = ".statusbar-item[id$='qualm.status']";

/** The painted text of every element that `selector` matches, one element a line. */
function innerTexts(page: Page, selector: string): Promise<string> {
  return page.evaluate((sel) => Array.from(document.querySelectorAll(sel)).map((e) => (e as HTMLElement).innerText ?? "").join("\n"), selector);
}

/** What the suite may ask of the page: look at the DOM, take a screenshot. */
async function serve(page: Page, request: { action: string; name: string }, dir: string): Promise<unknown> {
  if (request.action === "screenshot") {
    const path = join(dir, `${request.name}.png`);
    await page.screenshot({ path });
    return { path };
  }
  if (request.action === "ghost") {
    return page.evaluate(() =>
      Array.from(document.querySelectorAll(".ghost-text-decoration, .ghost-text-decoration-preview, .ghost-text"))
        .map((e) => e.textContent ?? "")
        .join("\n"),
    );
  }
  if (request.action === "hover") {
    return innerTexts(page, ".monaco-hover:not(.hidden)");
  }
  if (request.action === "decorations") {
    // qualm's highlights as the editor paints them: decoration overlays (generated "ced-" classes)
    // with an underline (a bottom border) in one of qualm's theme colours.
    return page.evaluate(() =>
      Array.from(document.querySelectorAll(".monaco-editor .view-overlays [class*='ced-']"))
        .map((e) => getComputedStyle(e))
        .filter((st) => parseFloat(st.borderBottomWidth) > 0)
        .map((st) => `${st.borderBottomWidth} ${st.borderBottomColor} on ${st.backgroundColor}`),
    );
  }
  if (request.action === "cancel-progress") {
    // The Cancel button of the progress notification, as a user would press it.
    // (in a toast or in the notification centre: the same notification item, the same button)
    const { text } = request as unknown as { text?: string };
    const item = page.locator(".notification-list-item", { hasText: text ?? "qualm: assessing" });
    await item.first().waitFor({ timeout: scaled(20000) });
    await item.first().hover();
    await item.first().getByRole("button", { name: "Cancel" }).first().click({ timeout: scaled(20000) });
    return { clicked: true, focused: await page.evaluate(() => document.hasFocus()) };
  }
  if (request.action === "notifications") {
    // Toasts, and the notification centre (VS Code keeps a toast there once it hides it).
    return innerTexts(page, ".notifications-toasts .notification-toast, .notifications-center .notification-list-item");
  }
  if (request.action === "notification-button") {
    // A button of the notification that has this text, pressed as a user would (in the centre).
    const { text, button } = request as unknown as { text: string; button: string };
    const item = page.locator(".notification-list-item", { hasText: text });
    await item.first().waitFor({ timeout: scaled(20000) });
    await item.first().hover();
    await item.first().getByRole("button", { name: button }).first().click({ timeout: scaled(20000) });
    return { clicked: true };
  }
  if (request.action === "output") {
    return qualmOutput(join(dir, "scratch"), dir);
  }
  if (request.action === "statusbar") {
    return innerTexts(page, QUALM_STATUS);
  }
  if (request.action === "statusbar-hover") {
    // The item's tooltip, as the mouse shows it (VS Code's custom hover, after its delay).
    await page.locator(QUALM_STATUS).first().hover();
    const hover = page.locator(".workbench-hover, .monaco-hover:not(.hidden)").filter({ hasText: "qualm" });
    await hover.first().waitFor({ timeout: scaled(10000) });
    return hover.first().innerText();
  }
  if (request.action === "action-widget") {
    // the quick-fix menu (VS Code's action widget) as it is painted
    return innerTexts(page, ".action-widget");
  }
  if (request.action === "refactor-preview") {
    // VS Code's refactor preview (the panel that asks before a change that needs confirmation is written)
    return innerTexts(page, ".bulk-edit-panel");
  }
  if (request.action === "refactor-preview-check") {
    // VS Code leaves an edit that needs confirmation unchecked in its preview: the user ticks it
    // (the file's checkbox ticks its edits), as a user would with the mouse
    const box = page.locator(".bulk-edit-panel .edit-checkbox").first();
    await box.waitFor({ timeout: scaled(20000) });
    await box.click({ timeout: scaled(20000) });
    await page.locator(".bulk-edit-panel .edit-checkbox.checked").first().waitFor({ timeout: scaled(20000) });
    return { checked: true };
  }
  if (request.action === "lenses") {
    return innerTexts(page, ".monaco-editor .codelens-decoration");
  }
  return { error: `unknown action ${request.action}` };
}

/** The extension's output channel ("qualm": client and server log), as VS Code saved it: a log output
 * channel is the extension host's `<logs>/exthost1/qualm.qualm/qualm.log`. */
function qualmOutput(scratch: string, dir: string): string {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === "qualm.log" && basename(dir) === "qualm.qualm") found.push(p);
    }
  };
  try {
    walk(join(scratch, "user-data", "logs"));
  } catch {
    return "(no logs)";
  }
  // this window's log only: the install suites' two windows share one profile (and its logs folder),
  // whose sessions are folders named by their start time
  const sessions = found.map((p) => p.slice(join(scratch, "user-data", "logs").length + 1).split("/")[0]).sort();
  const latest = found.filter((p) => p.includes(`/logs/${sessions[sessions.length - 1]}/`));
  for (const p of latest) copyFileSync(p, join(dir, "qualm-output.log"));
  return latest.map((p) => readFileSync(p, "utf8")).join("\n") || "(empty)";
}

/** Servers and browsers write into HOME, TMPDIR and XDG folders: keep them in the scratch folder. */
function env0(home: string, scratch: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOME: home,
    TMPDIR: join(scratch, "tmp"),
    XDG_RUNTIME_DIR: join(scratch, "run"),
    XDG_CONFIG_HOME: join(home, ".config"),
    // The model and the llama.cpp wheel live in qualm's real cache: keep it.
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? "/root", ".cache"),
    QUALM_CONFIG: join(scratch, "no-user-settings.json"),
  };
}

/** This checkout's version (package.json; pyproject.toml names the same one). */
const packageVersion = (): string => JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).version as string;

/** Installs a .vsix into a VS Code profile (its user data and extensions folders) and checks it is
 * listed at `version`; `where` names the profile in the log. */
function installVsix(node: string, env: NodeJS.ProcessEnv, profile: { userData: string; extensions: string }, vsix: string, version: string, where: string): boolean {
  if (!existsSync(vsix)) {
    log(`  ✘ installing ${vsix}: it is missing (npm run package)`);
    return false;
  }
  const cli = join(editorDir, "bin", "code-server");
  const dirs = ["--user-data-dir", profile.userData, "--extensions-dir", profile.extensions];
  const install = spawnSync(node, [cli, ...dirs, "--install-extension", vsix, "--force"], { env, encoding: "utf8" });
  const list = spawnSync(node, [cli, ...dirs, "--list-extensions", "--show-versions"], { env, encoding: "utf8" });
  const ok = install.status === 0 && list.stdout.split("\n").includes(`qualm.qualm@${version}`);
  log(`  ${ok ? "✔" : "✘"} installing ${basename(vsix)} into ${where}: ${ok ? `qualm.qualm@${version} listed` : install.stdout + install.stderr + list.stdout}`);
  return ok;
}

/** The .vsix that scripts/setup packaged installs into this VS Code and is listed with its version. */
function installPackagedExtension(node: string, env: NodeJS.ProcessEnv, scratch: string): boolean {
  const profile = { userData: join(scratch, "vsix-user-data"), extensions: join(scratch, "vsix-extensions") };
  return installVsix(node, env, profile, join(repo, "dist", "qualm.vsix"), packageVersion(), "code-server");
}

// ---- the install suites: qualm from its .vsix in a clean home ----

const INSTALL_SUITES: readonly Suite[] = ["install", "upgrade"];

/** The install suites' environment: an empty home and cache, qualm's real cache only as the prepared
 * one (read, never written), and a bare virtual environment's Python first on PATH. */
function cleanHomeEnv(home: string, scratch: string): NodeJS.ProcessEnv {
  const { QUALM_CACHE_DIR: _own, ...base } = env0(home, scratch);
  return { ...base, XDG_CACHE_HOME: join(home, ".cache"), QUALM_PREPARED_CACHE: qualmCacheDir(), PATH: `${join(scratch, "bare", "bin")}:${process.env.PATH ?? ""}` };
}

/** A bare virtual environment whose python3 comes first on PATH: no Python there can import qualm. */
function bareFirstOnPath(env: NodeJS.ProcessEnv, scratch: string): boolean {
  const bare = join(scratch, "bare");
  if (!existsSync(join(bare, "bin", "python3"))) spawnSync("python3", ["-m", "venv", bare], { encoding: "utf8" });
  const found = spawnSync("python3", ["-c", "import sys, qualm; print(sys.executable, qualm.__file__)"], { env, encoding: "utf8" });
  const which = spawnSync("sh", ["-c", "command -v python3"], { env, encoding: "utf8" }).stdout.trim();
  const ok = found.status !== 0 && which === join(bare, "bin", "python3");
  log(`  ${ok ? "✔" : "✘"} python3 on PATH is ${which} and cannot import qualm${ok ? "" : `: ${found.stdout}${found.stderr}`}`);
  return ok;
}

/** What of the prepared cache the engine setup may read (the llama-cpp-python wheels, the models): names, sizes and times. */
function preparedSnapshot(): string {
  const root = qualmCacheDir();
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = statSync(p);
        out.push(`${p} ${st.size} ${st.mtimeMs}`);
      }
    }
  };
  walk(join(root, "wheels"));
  walk(join(root, "models"));
  return out.sort().join("\n");
}

/** A version above `v` (its last number plus one): the newer .vsix of the upgrade. */
export function nextVersion(v: string): string {
  const parts = v.split(".");
  parts[parts.length - 1] = String(Number(parts[parts.length - 1]) + 1);
  return parts.join(".");
}

/** Installs a .vsix into the install suites' profile, and checks it stays small: the engine is bundled,
 * the model never (issue 57: under 5 MB). */
function installIntoCleanHome(node: string, env: NodeJS.ProcessEnv, scratch: string, vsix: string, version: string): boolean {
  const profile = { userData: join(scratch, "user-data"), extensions: join(scratch, "extensions") };
  if (!installVsix(node, env, profile, vsix, version, "a clean home")) return false;
  const mb = statSync(vsix).size / 1e6;
  const small = mb < 5;
  log(`  ${small ? "✔" : "✘"} ${basename(vsix)} is ${mb.toFixed(2)} MB (at most 5 MB; no model inside)`);
  return small;
}

/** Before an install suite's window: the .vsix in (the packaged one, or a newer one made now). */
function prepareInstall(suite: Suite, node: string, env: NodeJS.ProcessEnv, scratch: string): boolean {
  const version = packageVersion();
  if (suite === "install") {
    rmSync(join(scratch, "extensions"), { recursive: true, force: true });
    return bareFirstOnPath(env, scratch) && installIntoCleanHome(node, env, scratch, join(repo, "dist", "qualm.vsix"), version);
  }
  if (!existsSync(join(scratch, "user-data", "User", "globalStorage", "qualm.qualm", "engine"))) {
    log("  ✘ no engine from the install suite to upgrade: run QUALM_E2E_SUITE=install first (or both, in order)");
    return false;
  }
  const next = nextVersion(version);
  const vsix = join(scratch, `qualm-${next}.vsix`);
  const made = spawnSync(process.execPath, [join(repo, "extension", "package.mjs"), "--version", next, "--out", vsix], { encoding: "utf8" });
  if (made.status !== 0) {
    log(`  ✘ packaging qualm ${next}: ${made.stdout.slice(-2000)}${made.stderr.slice(-2000)}`);
    return false;
  }
  return bareFirstOnPath(env, scratch) && installIntoCleanHome(node, env, scratch, vsix, next);
}

async function main(): Promise<number> {
  const node = join(editorDir, "node", "bin", "node");
  const serverMain = join(editorDir, "lib", "node_modules", "code-server", "lib", "vscode", "out", "server-main.js");
  if (!existsSync(node) || !existsSync(serverMain)) {
    log(`no code-server in ${editorDir}: run scripts/setup-editor`);
    return 2;
  }
  // QUALM_E2E_SUITE: one suite, or several separated by commas, run in the order of SUITES
  const only = (process.env.QUALM_E2E_SUITE ?? "").split(",").map((x) => x.trim()).filter(Boolean);
  const unknown = only.filter((x) => !(SUITES as readonly string[]).includes(x));
  if (unknown.length) {
    log(`QUALM_E2E_SUITE must name some of ${SUITES.join(", ")}, got ${unknown.join(", ")}`);
    return 2;
  }
  // (`upgrade` alone goes on from the last `install`: its home and engine are kept)
  if (only.join() !== "upgrade") rmSync(artifacts, { recursive: true, force: true });
  let failed = false;
  let passed = 0;
  for (const suite of only.length ? SUITES.filter((x) => only.includes(x)) : SUITES) {
    log(`suite ${suite}`);
    const outcome = await runSuite(suite, node, serverMain);
    failed ||= outcome.failed;
    passed += outcome.passed;
  }
  if (!passed) log("no test passed (does QUALM_E2E_GREP match none?)");
  return failed || !passed ? 1 : 0;
}

/** The workspace a suite opens, made in its scratch folder: the query that opens it in the workbench. */
function prepareWorkspace(suite: Suite, scratch: string): string {
  const workspace = join(scratch, "workspace");
  if (suite === "multiroot") {
    // Two folders with settings of their own; the window's settings (the workspace file) name the
    // scripted backend's script, by its path here.
    cpSync(join(repo, "extension", "test", "e2e", "fixtures", "multiroot"), workspace, { recursive: true });
    const file = join(workspace, "multiroot.code-workspace");
    const config = JSON.parse(readFileSync(file, "utf8"));
    config.settings["qualm.model.path"] = join(workspace, "script.json");
    writeFileSync(file, JSON.stringify(config, null, 2));
    return `workspace=${encodeURIComponent(file)}`;
  }
  mkdirSync(join(workspace, ".vscode"), { recursive: true });
  copyFileSync(join(repo, "extension", "test", "e2e", "fixtures", "stub.py"), join(workspace, "stub.py"));
  // a function with a one-token bug that its docstring's examples catch: the likely fix's test
  copyFileSync(join(repo, "extension", "test", "e2e", "fixtures", "fixme.py"), join(workspace, "fixme.py"));
  // The restricted suite's folder names programs and files of its own, which qualm must not use
  // there: a program that leaves a marker if it ever runs, and files that do not exist. The chat
  // template and the tests' Python are set in a form VS Code itself does not hide (untrusted.ts).
  const own = (name: string) => join(workspace, name);
  if (suite === "restricted") {
    copyFileSync(join(repo, "extension", "test", "e2e", "fixtures", "restricted", "evil-python"), own("evil-python"));
    chmodSync(own("evil-python"), 0o755);
  }
  const untrusted = suite === "restricted" ? untrustedSettings(own) : {};
  // Small budgets keep the real model quick on two CPU cores; the methods are the same.
  const settings = {
    "qualm.inline.debounce_ms": 150,
    "qualm.editor.completion_max_tokens": 48,
    "qualm.editor.diagnostic_level": "low",
    "qualm.algorithmic.n_plans": 3,
    "qualm.algorithmic.max_tokens": 96,
    "qualm.functional.n_tests": 3,
    "qualm.functional.max_tokens": 200,
    "qualm.functional.n_solutions": 2,
    "qualm.functional.solution_max_tokens": 160,
    "editor.inlineSuggest.enabled": true,
    "editor.hover.delay": 100,
    ...untrusted,
  };
  writeFileSync(join(workspace, ".vscode", "settings.json"), JSON.stringify(settings, null, 2));
  return `folder=${encodeURIComponent(workspace)}`;
}

/** One suite in a VS Code window of its own: its outcome, with the checks of the qualm log. */
async function runSuite(suite: Suite, node: string, serverMain: string): Promise<{ passed: number; failed: boolean }> {
  // (the two install suites share one home, one VS Code profile and one engine: two windows of one user)
  const installing = INSTALL_SUITES.includes(suite);
  const dir = suite === "editor" ? artifacts : join(artifacts, installing ? "install" : suite);
  const scratch = join(dir, "scratch");
  const home = join(scratch, "home");
  const channel = join(dir, suite === "upgrade" ? "channel-upgrade" : "channel");
  if (suite === "install") rmSync(scratch, { recursive: true, force: true });
  for (const d of [home, join(scratch, "tmp"), join(scratch, "run"), channel]) mkdirSync(d, { recursive: true });
  const open = prepareWorkspace(suite, scratch);
  // Machine-wide settings only take effect as user settings: a quiet, trusted, offline editor; for the
  // restricted suite, workspace trust on (the folder is trusted by no one: Restricted Mode), asked
  // about by no dialog.
  const trust = suite === "restricted" ? { "security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never", "security.workspace.trust.banner": "never", "security.workspace.trust.untrustedFiles": "open" } : { "security.workspace.trust.enabled": false };
  const user = {
    ...trust,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "chat.disableAIFeatures": true,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "update.mode": "none",
  };
  mkdirSync(join(scratch, "user-data", "User"), { recursive: true });
  writeFileSync(join(scratch, "user-data", "User", "settings.json"), JSON.stringify(user, null, 2));

  const baseEnv = installing ? cleanHomeEnv(home, scratch) : env0(home, scratch);
  const prepared = installing ? preparedSnapshot() : "";
  const vsixOk = installing ? prepareInstall(suite, node, baseEnv, scratch) : suite !== "editor" || installPackagedExtension(node, baseEnv, scratch);
  if (!vsixOk && installing) return { passed: 0, failed: true };

  const port = await freePort();
  const env = { ...baseEnv, QUALM_E2E_CHANNEL: channel };
  log(`VS Code server (code-server ${CODE_SERVER_VERSION}) on port ${port}`);
  const server = spawn(
    node,
    [serverMain, "--enable-smoke-test-driver", "--without-connection-token", "--host", "127.0.0.1", "--port", String(port), "--server-data-dir", join(scratch, "server-data"), "--user-data-dir", join(scratch, "user-data"), "--extensions-dir", join(scratch, "extensions"), "--accept-server-license-terms"],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const serverLog: string[] = [];
  server.stdout!.on("data", (d) => serverLog.push(String(d)));
  server.stderr!.on("data", (d) => serverLog.push(String(d)));
  let browser;
  try {
    await waitForHttp(`http://127.0.0.1:${port}/`, scaled(60000), server);
    // The extension host runs in the VS Code server: its paths are vscode-remote URIs of that server.
    const remote = (path: string) => `vscode-remote://127.0.0.1:${port}${path}`;
    const payload = JSON.stringify([
      // the install suites: qualm is the installed .vsix; a driver extension carries the suite
      ["extensionDevelopmentPath", remote(installing ? join(repo, "extension", "test", "e2e", "fixtures", "driver") : repo)],
      ["extensionTestsPath", remote(join(repo, "extension", "out", "test", "e2e", "suite", "index.js"))],
      ["extensionEnvironment", JSON.stringify({ QUALM_E2E_CHANNEL: channel, QUALM_E2E_SUITE: suite, ...(grep ? { QUALM_E2E_GREP: grep } : {}), ...(installing ? { QUALM_PREPARED_CACHE: qualmCacheDir() } : {}) })],
    ]);
    const url = `http://127.0.0.1:${port}/?${open}&payload=${encodeURIComponent(payload)}`;
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      headless: true,
      env,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("console", (m) => {
      if (m.type() === "error") serverLog.push(`[page] ${m.text()}\n`);
    });
    await page.goto(url);
    log("workbench opened; the suite runs in the extension host");
    const results = join(channel, "results.json");
    const end = Date.now() + timeoutMs;
    while (!existsSync(results)) {
      if (Date.now() > end) throw new Error(`no results after ${timeoutMs / 1000} s`);
      if (server.exitCode !== null) throw new Error(`the VS Code server exited with ${server.exitCode}`);
      for (const f of readdirSync(channel).filter((x) => x.startsWith("request-"))) {
        const req = JSON.parse(readFileSync(join(channel, f), "utf8"));
        rmSync(join(channel, f));
        let answer: unknown;
        try {
          answer = await serve(page, req, dir);
        } catch (err) {
          answer = { error: String(err) };
        }
        writeWhole(join(channel, `answer-${req.name}.json`), JSON.stringify(answer));
        if (req.action === "screenshot") log(`screenshot ${req.name}.png`);
      }
      await sleep(200);
    }
    await page.screenshot({ path: join(dir, "final.png") });
    const outcome = JSON.parse(readFileSync(results, "utf8")) as { passed: string[]; failed: { title: string; error: string }[] };
    for (const t of outcome.passed) log(`  ✔ ${t}`);
    for (const t of outcome.failed) log(`  ✘ ${t.title}\n      ${t.error.replace(/\n/g, "\n      ")}`);
    // (a suite of which QUALM_E2E_GREP picked no test never started qualm: its log has nothing to check)
    const ran = outcome.passed.length + outcome.failed.length > 0;
    const check = (ok: unknown, what: string) => ran && log(`  ${ok ? "✔" : "✘"} ${what}`);
    // The leveled log: the handshake is logged at info level, with the server's version and protocol.
    const output = qualmOutput(scratch, dir);
    const handshake = output.split("\n").find((l) => /\[info\] handshake: server qualm \S+, protocol 2\b/.test(l));
    check(handshake, `the qualm output channel (a log channel) has the handshake: ${handshake ?? "no such line"}`);
    // Which Python runs the tests of the user's code (no Python extension here: the server's own).
    const testsPython = output.split("\n").find((l) => /\[info\] no interpreter selected in the Python extension: the tests run with the server's Python/.test(l));
    check(testsPython, `the qualm output channel says which Python runs the tests: ${testsPython ?? "no such line"}`);
    // A workspace of two folders runs one model, the window's: the log says which, where folder b names another.
    const oneModel = suite !== "multiroot" || output.split("\n").some((l) => /the workspace folder b sets qualm\.model\.path to .*it uses .*script\.json/.test(l));
    if (suite === "multiroot") check(oneModel, "the qualm output channel says which model serves both folders");
    // Restricted Mode: the program the untrusted folder names never ran, seen from outside the editor too.
    const noMarker = suite !== "restricted" || !existsSync(join(scratch, "workspace", "marker-written"));
    if (suite === "restricted") log(`  ${noMarker ? "✔" : "✘"} the untrusted folder's qualm.python never ran (no marker file)`);
    // The prepared cache was only read.
    const untouched = !installing || preparedSnapshot() === prepared;
    if (installing) check(untouched, `the prepared cache (${qualmCacheDir()}: its wheels and models) is as it was`);
    log(`${suite}: ${outcome.passed.length} passing, ${outcome.failed.length} failing; artifacts in ${dir}`);
    if (!outcome.passed.length && !outcome.failed.length) log(`${suite}: no test matched QUALM_E2E_GREP`);
    const checksFailed = !noMarker || (ran && (!handshake || !testsPython || !oneModel || !untouched));
    if (outcome.failed.length || checksFailed) log("qualm output channel:\n" + output.slice(-6000));
    // Last, so that a log's tail (a CI summary) names every failure and its first line, not only the last ones.
    for (const t of outcome.failed) log(`failed: ${t.title}: ${t.error.split("\n")[0].slice(0, 400)}`);
    return { passed: outcome.passed.length, failed: outcome.failed.length > 0 || !vsixOk || checksFailed };
  } catch (err) {
    log(`error: ${err instanceof Error ? err.message : err}`);
    log("VS Code server output:\n" + serverLog.join("").slice(-6000));
    log("qualm output channel:\n" + qualmOutput(scratch, dir).slice(-6000));
    return { passed: 0, failed: true };
  } finally {
    writeFileSync(join(dir, "vscode-server.log"), serverLog.join(""));
    await browser?.close().catch(() => undefined);
    // stopped: the exit awaited (a bound, scaled), then killed if it did not come
    if (server.exitCode === null) {
      const exited = new Promise<void>((r) => server.once("exit", () => r()));
      server.kill("SIGTERM");
      await Promise.race([exited, sleep(scaled(5000))]);
      if (server.exitCode === null) server.kill("SIGKILL");
    }
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(String(err));
    process.exit(1);
  },
);
