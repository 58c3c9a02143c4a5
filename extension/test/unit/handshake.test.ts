import * as assert from "node:assert/strict";
import { METHOD_NOT_FOUND, judgeHandshake } from "../../src/handshake";

suite("version handshake", () => {
  const base = { clientVersion: "0.2.0", protocol: 2, interpreter: "/venv/bin/python", installedVersion: "0.1.0" };
  const answer = { serverVersion: "0.2.0", protocol: 2, languages: ["python"], compatible: true, message: "" };

  test("a compatible server: its version, protocol and languages go to the status and the log", () => {
    const o = judgeHandshake({ ...base, answer });
    assert.equal(o.kind, "compatible");
    if (o.kind !== "compatible") return;
    assert.deepEqual(o.server, { version: "0.2.0", protocol: 2, languages: ["python"] });
    assert.match(o.log, /server qualm 0\.2\.0, protocol 2, languages python; extension 0\.2\.0, protocol 2/);
  });

  test("the server's process id goes to the status and the log where it says it", () => {
    const o = judgeHandshake({ ...base, answer: { ...answer, pid: 4242 } });
    assert.equal(o.kind, "compatible");
    if (o.kind !== "compatible") return;
    assert.equal(o.server.pid, 4242);
    assert.match(o.log, /; server process 4242$/);
    for (const pid of [0, -1, 1.5, "4242", null]) {
      const odd = judgeHandshake({ ...base, answer: { ...answer, pid } });
      assert.ok(odd.kind === "compatible" && odd.server.pid === undefined && !/server process/.test(odd.log), `pid ${JSON.stringify(pid)} is ignored`);
    }
  });

  test("the server says it is not compatible: its message is shown", () => {
    const o = judgeHandshake({ ...base, answer: { ...answer, protocol: 3, compatible: false, message: "qualm 0.3.0 speaks protocol 3; update the extension" } });
    assert.deepEqual(o, { kind: "incompatible", message: "qualm: qualm 0.3.0 speaks protocol 3; update the extension" });
    const silent = judgeHandshake({ ...base, answer: { ...answer, protocol: 3, compatible: false, message: "" } });
    assert.equal(silent.kind, "incompatible");
    if (silent.kind === "incompatible") assert.match(silent.message, /^qualm: the server \(qualm 0\.2\.0, protocol 3\) does not work with the extension \(0\.2\.0, protocol 2\)/);
  });

  test("a server older than the handshake (MethodNotFound): update qualm in that interpreter or run the setup", () => {
    const err = Object.assign(new Error("Unhandled method qualm/handshake"), { code: METHOD_NOT_FOUND });
    const o = judgeHandshake({ ...base, error: err });
    assert.deepEqual(o, {
      kind: "incompatible",
      message: "qualm: the server (qualm 0.1.0) is older than the extension (0.2.0): update qualm in /venv/bin/python (/venv/bin/python -m pip install -U qualm) or run scripts/setup",
    });
  });

  test("other failures (the server stopped, no answer in time) are only logged", () => {
    const o = judgeHandshake({ ...base, error: Object.assign(new Error("Client is not running"), { code: -32099 }) });
    assert.deepEqual(o, { kind: "unknown", log: "qualm/handshake failed: Client is not running" });
    assert.equal(judgeHandshake({ ...base, error: new Error("no answer within 30 s") }).kind, "unknown");
  });

  test("an answer without `compatible` is not understood (incompatible); missing details are tolerated", () => {
    assert.equal(judgeHandshake({ ...base, answer: null }).kind, "incompatible");
    assert.equal(judgeHandshake({ ...base, answer: { serverVersion: "0.2.0" } }).kind, "incompatible");
    const o = judgeHandshake({ ...base, answer: { compatible: true } });
    assert.equal(o.kind, "compatible");
    if (o.kind === "compatible") assert.deepEqual(o.server.languages, []);
  });
});
