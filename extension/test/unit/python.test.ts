// The Python extension's API, faked (ms-python.python is not installed here): which interpreter it
// selected, when a change of it restarts the server, and whether it runs the tests of the user's code
// (versions faked too, but for one real python3).

import * as assert from "node:assert/strict";
import type { Disposable, Extension, Uri } from "vscode";
import {
  ActiveEnvironmentPathChange,
  PYTHON_EXTENSION_ID,
  PythonExtensionApi,
  pythonExtensionApi,
  pythonExtensionInterpreter,
  pythonVersion,
  restartOnInterpreterChange,
  testsInterpreter,
  watchPythonInterpreter,
} from "../../src/python";

/** A stand-in for ms-python.python's API: one selected environment, and its change event. */
class FakePythonApi implements PythonExtensionApi {
  active = "/envs/a/bin/python";
  listeners: ((e: ActiveEnvironmentPathChange) => unknown)[] = [];
  resources: unknown[] = [];
  environments = {
    getActiveEnvironmentPath: (resource?: unknown) => {
      this.resources.push(resource);
      return { id: this.active, path: this.active };
    },
    resolveEnvironment: async (env: { path: string } | string) => {
      const path = typeof env === "string" ? env : env.path;
      return { executable: { uri: { fsPath: path } as Uri } };
    },
    onDidChangeActiveEnvironmentPath: (listener: (e: ActiveEnvironmentPathChange) => unknown): Disposable => {
      this.listeners.push(listener);
      return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) } as Disposable;
    },
  };

  select(path: string): void {
    this.active = path;
    this.listeners.forEach((l) => l({ id: path, path }));
  }
}

function fakeExtension(api: unknown, active: boolean): Extension<unknown> & { activations: number } {
  const ext = {
    id: PYTHON_EXTENSION_ID,
    isActive: active,
    exports: active ? api : undefined,
    activations: 0,
    activate: async () => {
      ext.activations++;
      ext.isActive = true;
      ext.exports = api;
      return api;
    },
  };
  return ext as unknown as Extension<unknown> & { activations: number };
}

suite("the Python extension's interpreter", () => {
  test("not installed: no API, no interpreter", async () => {
    const api = await pythonExtensionApi(() => undefined);
    assert.equal(api, undefined);
    assert.equal(await pythonExtensionInterpreter(api), undefined);
  });

  test("installed: activated if needed, and its selected interpreter resolved for the scope", async () => {
    const fake = new FakePythonApi();
    const ext = fakeExtension(fake, false);
    const api = await pythonExtensionApi((id) => (id === PYTHON_EXTENSION_ID ? ext : undefined));
    assert.equal(ext.activations, 1);
    const folder = { fsPath: "/ws" } as Uri;
    assert.equal(await pythonExtensionInterpreter(api, folder), "/envs/a/bin/python");
    assert.equal(fake.resources[0], folder);
  });

  test("an old API without environments: the execution details' command", async () => {
    const api: PythonExtensionApi = { settings: { getExecutionDetails: () => ({ execCommand: ["/old/python", "-X"] }) } };
    assert.equal(await pythonExtensionInterpreter(api), "/old/python");
  });
});

suite("restarting the server when the Python extension's interpreter changes", () => {
  const change = { setting: "", previous: "/envs/a/bin/python", next: "/envs/b/bin/python", running: "/envs/a/bin/python" };

  test("a new interpreter restarts the server", () => {
    const d = restartOnInterpreterChange(change);
    assert.equal(d.restart, true);
    assert.match(d.why, /from \/envs\/a\/bin\/python to \/envs\/b\/bin\/python/);
  });

  test("an explicit qualm.python is never replaced", () => {
    const d = restartOnInterpreterChange({ ...change, setting: " /mine/python " });
    assert.equal(d.restart, false);
    assert.match(d.why, /qualm\.python is set \(\/mine\/python\)/);
  });

  test("the same interpreter again, or the one the server already runs with, restarts nothing", () => {
    assert.equal(restartOnInterpreterChange({ ...change, next: change.previous }).restart, false);
    assert.equal(restartOnInterpreterChange({ ...change, previous: "/envs/c/bin/python", running: "/envs/b/bin/python" }).restart, false);
  });

  test("the server running from qualm's setup (the extension's choice lacked qualm) restarts for a new choice", () => {
    assert.equal(restartOnInterpreterChange({ ...change, running: "/qualm/.venv/bin/python" }).restart, true);
    assert.equal(restartOnInterpreterChange({ ...change, running: undefined }).restart, true);
  });

  test("the subscription tracks the previous interpreter, reads the setting at each change, and ends on dispose", () => {
    const fake = new FakePythonApi();
    let setting = "";
    let running: string | undefined = "/envs/a/bin/python";
    const decisions: boolean[] = [];
    const sub = watchPythonInterpreter(fake, () => undefined, () => ({ setting, running }), (d) => decisions.push(d.restart));
    assert.ok(sub);
    fake.select("/envs/b/bin/python"); // a change: restart
    running = "/envs/b/bin/python";
    fake.select("/envs/b/bin/python"); // fired again for another folder: nothing
    setting = "/mine/python";
    fake.select("/envs/c/bin/python"); // qualm.python set meanwhile: nothing
    setting = "";
    fake.select("/envs/a/bin/python"); // a change again: restart
    assert.deepEqual(decisions, [true, false, false, true]);
    sub!.dispose();
    fake.select("/envs/d/bin/python");
    assert.equal(decisions.length, 4);
  });

  test("an API without the change event: no subscription", () => {
    const api: PythonExtensionApi = { environments: { getActiveEnvironmentPath: () => ({ path: "/p" }), resolveEnvironment: async () => undefined } };
    assert.equal(watchPythonInterpreter(api, () => undefined, () => ({ setting: "", running: undefined }), () => assert.fail("no event")), undefined);
  });
});

suite("the Python that runs the tests of the user's code", () => {
  test("a real interpreter's version is read (python3 on PATH); a missing one has none", async () => {
    const v = await pythonVersion("python3");
    assert.ok(v && v[0] === 3 && v[1] >= 9, `python3 is ${v}`);
    assert.equal(await pythonVersion("/no/such/python"), undefined);
  });

  test("the Python extension's interpreter when it starts and is new enough, else the server's own, with the reason", async () => {
    const versions: Record<string, [number, number]> = { "/venv/bin/python": [3, 12], "/old/bin/python": [3, 8] };
    const version = async (p: string) => versions[p];
    assert.deepEqual(await testsInterpreter("/venv/bin/python", version), {
      path: "/venv/bin/python",
      why: "the tests of your code run with the Python extension's interpreter /venv/bin/python",
    });
    const old = await testsInterpreter("/old/bin/python", version);
    assert.equal(old.path, undefined);
    assert.match(old.why, /is 3\.8, older than the sandbox's 3\.9/);
    assert.match((await testsInterpreter("/gone/python", version)).why, /did not start/);
    assert.match((await testsInterpreter(undefined, version)).why, /no interpreter selected/);
  });
});
