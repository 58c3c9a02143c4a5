// The mocha entry VS Code loads in the extension host (extensionTestsPath). Results go to a file in
// the channel folder, which the runner outside the editor waits for.

import Mocha from "mocha";
import { writeWhole } from "../channel";
import { join } from "node:path";
import { scaled } from "../timing";

export function run(): Promise<void> {
  const channel = process.env.QUALM_E2E_CHANNEL;
  if (!channel) return Promise.reject(new Error("QUALM_E2E_CHANNEL is not set: run the suite with extension/test/e2e/run"));
  const mocha = new Mocha({ ui: "tdd", timeout: scaled(300000), color: false });
  // QUALM_E2E_GREP: only the tests whose title matches (each test costs the real model's time).
  const grep = process.env.QUALM_E2E_GREP;
  if (grep) mocha.grep(grep);
  // QUALM_E2E_SUITE: which suite this window runs (run.ts opens a folder for `editor`, a workspace of
  // two folders for `multiroot`).
  // (`install` and `upgrade` are two windows of one file: the second after a newer .vsix went in)
  const suite = process.env.QUALM_E2E_SUITE ?? "editor";
  mocha.addFile(join(__dirname, `${suite === "upgrade" ? "install" : suite}.test.js`));
  return new Promise((resolve, reject) => {
    const passed: string[] = [];
    const failed: { title: string; error: string }[] = [];
    try {
      mocha
        .run((failures) => {
          writeWhole(join(channel, "results.json"), JSON.stringify({ passed, failed }, null, 2));
          if (failures > 0) reject(new Error(`${failures} tests failed`));
          else resolve();
        })
        .on("pass", (t) => passed.push(t.fullTitle()))
        .on("fail", (t, err: Error) => failed.push({ title: t.fullTitle(), error: `${err.message}\n${err.stack ?? ""}` }));
    } catch (err) {
      writeWhole(join(channel, "results.json"), JSON.stringify({ passed, failed: [{ title: "loading the suite", error: String(err) }] }));
      reject(err);
    }
  });
}
