// What the end-to-end suites share inside the extension host: waiting, asking the runner (outside the
// editor) to look at the page, and the qualm log as VS Code wrote it.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type * as vscode from "vscode";
import type { StreamEvent } from "../../src/completions";
import type { QualmApi } from "../../src/extension";
import { writeWhole } from "./channel";
import { scaled } from "./timing";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it gives a value (not undefined, null or false), or fails after `ms` (scaled). */
export async function until<T>(what: string | (() => string), probe: () => T | undefined | Promise<T | undefined>, ms = 60000): Promise<T> {
  const end = Date.now() + scaled(ms);
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out after ${scaled(ms) / 1000} s waiting for ${typeof what === "string" ? what : what()}`);
    await sleep(100);
  }
}

let asked = 0;

/** Ask the runner to look at the page (run.ts, serve()); wait for its answer. `extra` goes with the
 * request (a notification's text and button, say; `name`: a screenshot's file name). */
export async function askPage<T>(action: string, extra: { name?: string; [key: string]: unknown } = {}): Promise<T> {
  const channel = process.env.QUALM_E2E_CHANNEL!;
  const name = extra.name ?? `${action}-${Date.now()}-${asked++}`;
  const answer = join(channel, `answer-${name}.json`);
  writeWhole(join(channel, `request-${name}.json`), JSON.stringify({ ...extra, action, name }));
  const end = Date.now() + scaled(30000);
  while (!existsSync(answer)) {
    if (Date.now() > end) throw new Error(`the runner did not answer ${action} ${name}`);
    await sleep(100);
  }
  return JSON.parse(readFileSync(answer, "utf8")) as T;
}

/** The notifications on the page: toasts and the notification centre (open it first with
 * `notifications.showList`: headless, VS Code keeps new toasts back). */
export function notifications(): Promise<string> {
  return askPage<string>("notifications");
}

/** The qualm output channel as VS Code saved it (the extension host's qualm.log). */
export function qualmLog(): Promise<string> {
  return askPage<string>("output");
}

/** The first event of `event` that `matches`, or a failure naming `what` after `ms` (scaled). */
export function nextMatching<E>(event: vscode.Event<E>, matches: (e: E) => boolean, what: string, ms: number): Promise<E> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (sub.dispose(), reject(new Error(`no ${what} within ${scaled(ms) / 1000} s`))), scaled(ms));
    const sub = event((e) => {
      if (matches(e)) {
        clearTimeout(timer);
        sub.dispose();
        resolve(e);
      }
    });
  });
}

/** The end of the completion that `doc` gets at `at` (not of one cancelled or elsewhere), within `ms` (scaled). */
export const finishedAt = (api: QualmApi, doc: vscode.TextDocument, at: vscode.Position, ms: number): Promise<StreamEvent> =>
  nextMatching(api.onCompletion, (e) => e.kind === "finished" && e.stream.uri === doc.uri.toString() && e.stream.position.isEqual(at), `finished completion at ${at.line}:${at.character}`, ms);

/** Waits until VS Code has been handed the finished completion `s` as its item (the stream's last
 * re-trigger is over): a commit before that may land in the frame where the old item is hidden. */
export const handedOver = (s: StreamEvent["stream"], ms = 20000): Promise<true> =>
  until(() => `VS Code to be handed the finished completion ${JSON.stringify(s.result?.text)} (it has ${JSON.stringify(s.shown)})`, () => (s.result !== undefined && s.shown === s.result.text) || undefined, ms);
