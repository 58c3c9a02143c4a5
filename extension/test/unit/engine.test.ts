// The engine the .vsix bundles (engine.ts): its manifest, the setup's steps, the base Python, how a
// step's failure reads, and how the engine in global storage compares with the bundled one; then where
// it stands among the server's interpreters and what the handshake asks of it.

import * as assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { basePythonCandidates, bundledEngine, engineDir, engineProblem, judgeEngine, lastLines, newEnough, setupSteps, stepFailure, venvPython } from "../../src/engine";
import { judgeHandshake } from "../../src/handshake";
import { candidates } from "../../src/python";

function extensionWithEngine(manifest: unknown, files = ["qualm-0.2.0-py3-none-any.whl", "engine_setup.py"]): string {
  const root = mkdtempSync(join(tmpdir(), "qualm-ext-"));
  const dir = join(root, "dist", "engine");
  mkdirSync(dir, { recursive: true });
  for (const f of files) writeFileSync(join(dir, f), "");
  writeFileSync(join(dir, "manifest.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest));
  return root;
}

const MANIFEST = { version: "0.2.0", wheel: "qualm-0.2.0-py3-none-any.whl", script: "engine_setup.py", constraints: "constraints.txt" };

suite("the bundled engine", () => {
  test("the manifest names the wheel, the script and the constraints, as absolute paths", () => {
    const root = extensionWithEngine(MANIFEST);
    const e = bundledEngine(root);
    assert.deepEqual(e, {
      version: "0.2.0",
      wheel: join(root, "dist", "engine", MANIFEST.wheel),
      script: join(root, "dist", "engine", "engine_setup.py"),
      constraints: join(root, "dist", "engine", "constraints.txt"),
    });
  });

  test("a development build (no manifest), a broken manifest or a missing wheel: no bundled engine", () => {
    assert.equal(bundledEngine(mkdtempSync(join(tmpdir(), "qualm-dev-"))), undefined);
    assert.equal(bundledEngine(extensionWithEngine("{not json")), undefined);
    assert.equal(bundledEngine(extensionWithEngine({ ...MANIFEST, version: 2 })), undefined);
    assert.equal(bundledEngine(extensionWithEngine(MANIFEST, ["engine_setup.py"])), undefined);
  });

  test("the steps, in order: each a process of its own, the environment's Python after the first", () => {
    const engine = { version: "0.2.0", wheel: "/x/q.whl", script: "/x/engine_setup.py", constraints: "/x/constraints.txt" };
    const venv = engineDir("/storage");
    assert.equal(venv, join("/storage", "engine"));
    const steps = setupSteps("/usr/bin/python3", engine, venv, "cuda", "linux");
    assert.deepEqual(
      steps.map((s) => [s.id, s.command, ...s.args]),
      [
        ["venv", "/usr/bin/python3", "/x/engine_setup.py", "venv", "--venv", venv],
        ["llama", join(venv, "bin/python"), "/x/engine_setup.py", "llama", "--venv", venv, "--gpu", "cuda"],
        ["qualm", join(venv, "bin/python"), "/x/engine_setup.py", "qualm", "--venv", venv, "--wheel", "/x/q.whl", "--constraints", "/x/constraints.txt"],
        ["model", join(venv, "bin/python"), "/x/engine_setup.py", "model", "--venv", venv],
        ["check", join(venv, "bin/python"), "/x/engine_setup.py", "check", "--venv", venv, "--version", "0.2.0"],
      ],
    );
    assert.match(steps[1].title, /CUDA/);
    assert.match(setupSteps("python3", engine, venv, "cpu", "linux")[1].title, /this CPU/);
    assert.equal(venvPython("C:\\e", "win32"), join("C:\\e", "Scripts/python.exe"));
  });

  test("the base Python: the Python extension's first, then the usual names, newest first; 3.10 or newer", () => {
    assert.deepEqual(basePythonCandidates("/env/bin/python3", "linux"), ["/env/bin/python3", "python3", "python3.13", "python3.12", "python3.11", "python3.10", "python"]);
    assert.deepEqual(basePythonCandidates("python3", "linux").slice(0, 2), ["python3", "python3.13"]);
    assert.deepEqual(basePythonCandidates(undefined, "win32"), ["python", "py"]);
    assert.equal(newEnough([3, 10]), true);
    assert.equal(newEnough([4, 0]), true);
    assert.equal(newEnough([3, 9]), false);
    assert.equal(newEnough(undefined), false);
  });

  test("a failed step names itself, how it ended and its last lines", () => {
    const step = setupSteps("python3", { version: "0.2.0", wheel: "w", script: "s", constraints: "c" }, "/e", "cpu", "linux")[1];
    const output = "Collecting llama-cpp-python\n\n  Building wheel\nCMake Error at CMakeLists.txt:3\n  No CMAKE_CXX_COMPILER could be found.\nerror: subprocess-exited-with-error\n";
    assert.equal(lastLines(output, 2), "  No CMAKE_CXX_COMPILER could be found.\nerror: subprocess-exited-with-error");
    const message = stepFailure(step, { code: 1, signal: null }, output);
    assert.match(message, /^qualm: the engine setup failed at step "building llama\.cpp for this CPU.*": it exited with 1\. Last lines: CMake Error/);
    assert.match(message, /No CMAKE_CXX_COMPILER could be found\. ⏎ error: subprocess-exited-with-error$/);
    assert.match(stepFailure(step, { code: null, signal: null, error: "spawn python3 ENOENT" }, ""), /it could not start .* \(spawn python3 ENOENT\)\.$/);
    assert.match(stepFailure(step, { code: null, signal: "SIGKILL", error: undefined }, ""), /it was stopped \(SIGKILL\)\.$/);
  });

  test("the engine in global storage against the bundled one: it must be the same version exactly", () => {
    const bundled = { version: "0.2.0", wheel: "w", script: "s", constraints: "c" };
    assert.deepEqual(judgeEngine(undefined, "/e/bin/python", true, { ok: true, detail: "0.2.0" }), { kind: "none" });
    assert.deepEqual(judgeEngine(bundled, "/e/bin/python", false, undefined), { kind: "absent" });
    assert.deepEqual(judgeEngine(bundled, "/e/bin/python", true, { ok: true, detail: "0.2.0" }), { kind: "ready", python: "/e/bin/python" });
    assert.deepEqual(judgeEngine(bundled, "/e/bin/python", true, { ok: true, detail: "0.1.0" }), { kind: "outdated", python: "/e/bin/python", installed: "0.1.0", bundled: "0.2.0" });
    assert.deepEqual(judgeEngine(bundled, "/e/bin/python", true, { ok: false, detail: "No module named 'qualm'" }), { kind: "broken", python: "/e/bin/python", detail: "No module named 'qualm'" });
    // what the log and the notifications say of it
    assert.equal(engineProblem({ kind: "outdated", python: "/e/bin/python", installed: "0.1.0", bundled: "0.2.0" }), "qualm's engine has qualm 0.1.0, this extension bundles 0.2.0");
    assert.equal(engineProblem({ kind: "broken", python: "/e/bin/python", detail: "No module named 'qualm'" }), "qualm's engine (/e/bin/python) does not start: No module named 'qualm'");
    for (const kind of ["none", "absent"] as const) assert.equal(engineProblem({ kind }), undefined);
    assert.equal(engineProblem({ kind: "ready", python: "/e/bin/python" }), undefined);
  });

  test("a ready engine is the first interpreter after an explicit qualm.python", async () => {
    const sources = (setting: string) => ({ setting, engine: "/g/engine/bin/python", pythonExtension: async () => "/env/bin/python", setupInterpreters: () => ["/qualm/.venv/bin/python"] });
    assert.deepEqual(
      (await candidates(sources(""))).map((c) => c.source),
      ["qualm engine", "Python extension", "qualm setup", "PATH"],
    );
    assert.deepEqual(await candidates(sources("/mine/python")), [{ path: "/mine/python", source: "qualm.python setting" }]);
  });

  test("the handshake: the bundled engine must match exactly, a user's own qualm only in protocol; the log says which was found", () => {
    const answer = { serverVersion: "0.1.0", protocol: 2, languages: ["python"], compatible: true, message: "" };
    const base = { clientVersion: "0.2.0", protocol: 2, interpreter: "/g/engine/bin/python", installedVersion: "0.1.0", answer };
    const engine = judgeHandshake({ ...base, source: "qualm engine", exact: true });
    assert.equal(engine.kind, "incompatible");
    assert.match(engine.kind === "incompatible" ? engine.message : "", /the engine runs qualm 0\.1\.0, but this extension bundles 0\.2\.0: run "qualm: Set Up qualm's Engine"/);
    const same = judgeHandshake({ ...base, answer: { ...answer, serverVersion: "0.2.0" }, source: "qualm engine", exact: true });
    assert.match(same.kind === "compatible" ? same.log : "", /; found: qualm's engine \(bundled with the extension, \/g\/engine\/bin\/python\)/);
    const own = judgeHandshake({ ...base, interpreter: "/usr/bin/python3", source: "PATH", answer: { ...answer, pid: 77 } });
    assert.equal(own.kind, "compatible");
    // the server's process id stays last (the recovery suite reads the line's end)
    assert.match(own.kind === "compatible" ? own.log : "", /; found: your own qualm \(PATH: \/usr\/bin\/python3\); server process 77$/);
  });
});
