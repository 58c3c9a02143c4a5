// A completion's doubt in the status bar's words. VS Code cannot colour ghost text, so while a
// completion streams (and a few seconds after it ends) the status bar says how sure the model was.
// The level and the numbers are the server's; this module only words them (no vscode import, so
// the unit tests can run it).

import { LEVEL_WORDS } from "./levels";
import { CompleteResult, CompletionDoubt, PromptKind } from "./protocol";

/** What the status bar shows of one completion. */
export interface CompletionView {
  /** false while it streams */
  done: boolean;
  tokens: number;
  doubt: CompletionDoubt | null;
  /** known once the server's answer came */
  promptKind?: PromptKind;
  stopReason?: string;
  /** the server's stop rule that ended it (qualm.engine.completion_end), when one did */
  endRule?: string | null;
  seconds?: number;
  firstTokenSeconds?: number | null;
}

/** The parts of a completion stream the view needs (completions.ts's Stream has them). */
export interface StreamState {
  done: boolean;
  accepted: boolean;
  tokens: readonly unknown[];
  doubt: CompletionDoubt | null;
  result?: CompleteResult;
}

/** The view of a stream, or undefined when there is nothing to show: it was accepted (the
 * highlights take over) or it ended without a result (cancelled by typing on, or failed). */
export function completionView(s: StreamState): CompletionView | undefined {
  if (s.accepted || (s.done && !s.result)) return undefined;
  const r = s.result;
  return {
    done: s.done,
    tokens: s.tokens.length,
    doubt: s.doubt,
    promptKind: r?.promptKind,
    stopReason: r?.stopReason,
    endRule: r?.endRule,
    seconds: r?.seconds,
    firstTokenSeconds: r?.firstTokenSeconds,
  };
}

// A finished completion's icon: a warning only where the model was really unsure.
const DONE_ICONS: Record<CompletionDoubt["level"], string> = {
  confident: "$(check)",
  low: "$(info)",
  medium: "$(warning)",
  high: "$(warning)",
};

/** The status bar text, e.g. "$(sync~spin) qualm: writing · 12 tokens · uncertain (max 2.31 nats)". */
export function completionLabel(v: CompletionView): string {
  if (v.done && v.tokens === 0) return "$(circle-slash) qualm: no completion";
  const parts = [v.done ? count(v.tokens) : `writing · ${count(v.tokens)}`];
  if (v.doubt) parts.push(`${LEVEL_WORDS[v.doubt.level]} (max ${v.doubt.maxEntropy.toFixed(2)} nats)`);
  if (v.done && v.stopReason === "doubt") parts.push("cut at doubt");
  const icon = !v.done ? "$(sync~spin)" : v.doubt ? DONE_ICONS[v.doubt.level] : "$(check)";
  return `${icon} qualm: ${parts.join(" · ")}`;
}

/** The tooltip (Markdown): the doubt's numbers, the prompt kind and why it stopped, once known. */
export function completionTooltip(v: CompletionView): string {
  const lines = [`**qualm: completion** · ${v.done ? finished(v) : `writing, ${count(v.tokens)} so far`}`];
  lines.push(v.doubt ? doubtLine(v.doubt) : "doubt: no token with more than white space yet");
  if (v.promptKind) lines.push(`prompt: ${PROMPTS[v.promptKind] ?? v.promptKind}`);
  if (v.stopReason) {
    const rule = v.endRule ? ` · ${RULES[v.endRule] ?? v.endRule}` : "";
    lines.push(`stopped: ${STOPS[v.stopReason] ?? v.stopReason}${rule}`);
  }
  lines.push("VS Code cannot colour ghost text: accepted tokens get their highlights in the file.");
  return lines.join("\n\n");
}

function doubtLine(d: CompletionDoubt): string {
  return (
    `doubt: **${LEVEL_WORDS[d.level]}** · max entropy **${d.maxEntropy.toFixed(2)}** nats · ` +
    `top-K entropy ${d.topKEntropy.toFixed(2)} nats · least probability ${d.minProb.toFixed(3)} · ` +
    `over ${count(d.tokens)} with text`
  );
}

function finished(v: CompletionView): string {
  const first = v.firstTokenSeconds != null ? ` (first token after ${v.firstTokenSeconds.toFixed(2)} s)` : "";
  const time = v.seconds != null ? ` in ${v.seconds.toFixed(2)} s` : "";
  return `${count(v.tokens)}${time}${first}`;
}

const PROMPTS: Record<string, string> = {
  fim: "fill-in-the-middle (the code before and after the cursor)",
  chat: "chat (the enclosing function up to the cursor)",
};

const STOPS: Record<string, string> = {
  doubt: "cut before its first very uncertain token (qualm.editor.completion_doubt_cut)",
  complete: "its end rule",
  fence: "a stop string",
  eos: "the model ended it",
  end_of_text: "the model ended it",
  length: "the token budget (qualm.editor.completion_max_tokens)",
};

// The server's stop rules (docs/completion.md, "Where it stops"), in words.
const RULES: Record<string, string> = {
  "line-end": "the line ended",
  "closes-rest": "a bracket the rest of the line closes",
  resumes: "the code after the cursor resumes there",
  "block-end": "the block ended",
  "next-definition": "one definition at a time",
  decorated: "the decorated def",
  fence: "a Markdown fence",
  unclosed: "cut back to close what it opened",
  syntax: "cut back so the file parses",
};

function count(n: number): string {
  return `${n} token${n === 1 ? "" : "s"}`;
}
