import * as assert from "node:assert/strict";
import { CompletionView, completionLabel, completionTooltip, completionView } from "../../src/doubt";
import { CompleteResult, CompletionDoubt } from "../../src/protocol";

const doubt: CompletionDoubt = { maxEntropy: 2.3149, topKEntropy: 1.204, minProb: 0.1234, level: "medium", tokens: 10 };
const writing: CompletionView = { done: false, tokens: 12, doubt };
const result: CompleteResult = {
  text: "    for item in items:\n",
  tokens: [],
  stopReason: "complete",
  model: "qwen2.5-coder-0.5b-instruct-q8_0",
  seconds: 1.234,
  function: "total_price",
  promptKind: "fim",
  doubt,
  firstTokenSeconds: 0.4,
};

suite("a completion's doubt in the status bar", () => {
  test("while it streams: the tokens so far and the running doubt in the server's level words", () => {
    assert.equal(completionLabel(writing), "$(sync~spin) qualm: writing · 12 tokens · uncertain (max 2.31 nats)");
    assert.equal(completionLabel({ ...writing, doubt: { ...doubt, level: "low" } }), "$(sync~spin) qualm: writing · 12 tokens · slightly uncertain (max 2.31 nats)");
    assert.equal(completionLabel({ ...writing, doubt: { ...doubt, level: "high" } }), "$(sync~spin) qualm: writing · 12 tokens · very uncertain (max 2.31 nats)");
    assert.equal(completionLabel({ ...writing, doubt: { ...doubt, level: "confident" } }), "$(sync~spin) qualm: writing · 12 tokens · confident (max 2.31 nats)");
    // only white space so far: no doubt yet
    assert.equal(completionLabel({ done: false, tokens: 1, doubt: null }), "$(sync~spin) qualm: writing · 1 token");
  });

  test("once done: the final doubt, an icon for its level, and a cut at doubt said so", () => {
    const done: CompletionView = { done: true, tokens: 12, doubt, stopReason: "complete", promptKind: "fim" };
    assert.equal(completionLabel(done), "$(warning) qualm: 12 tokens · uncertain (max 2.31 nats)");
    assert.equal(completionLabel({ ...done, doubt: { ...doubt, level: "confident" } }), "$(check) qualm: 12 tokens · confident (max 2.31 nats)");
    assert.equal(completionLabel({ ...done, doubt: { ...doubt, level: "low" }, stopReason: "doubt" }), "$(info) qualm: 12 tokens · slightly uncertain (max 2.31 nats) · cut at doubt");
    assert.equal(completionLabel({ ...done, tokens: 0, doubt: null }), "$(circle-slash) qualm: no completion");
  });

  test("the tooltip gives max and top-K entropy, the least probability, and the prompt kind once known", () => {
    const tip = completionTooltip(writing);
    assert.match(tip, /writing, 12 tokens so far/);
    assert.match(tip, /doubt: \*\*uncertain\*\* · max entropy \*\*2\.31\*\* nats · top-K entropy 1\.20 nats · least probability 0\.123 · over 10 tokens with text/);
    assert.doesNotMatch(tip, /prompt:/);
    const final = completionTooltip(completionView({ done: true, accepted: false, tokens: new Array(12), doubt, result })!);
    assert.match(final, /12 tokens in 1\.23 s \(first token after 0\.40 s\)/);
    assert.match(final, /prompt: fill-in-the-middle/);
    assert.match(final, /stopped: its end rule/);
    assert.match(completionTooltip({ ...writing, done: true, promptKind: "chat", stopReason: "doubt" }), /prompt: chat[\s\S]*stopped: cut before its first very uncertain token/);
    assert.match(completionTooltip({ ...writing, done: true, stopReason: "complete", endRule: "next-definition" }), /stopped: its end rule · one definition at a time/);
    assert.match(completionTooltip({ ...writing, doubt: null }), /no token with more than white space yet/);
  });

  test("a stream's view: the result's fields once finished; nothing once accepted or ended without a result", () => {
    const streaming = completionView({ done: false, accepted: false, tokens: [1, 2, 3], doubt });
    assert.deepEqual(streaming, { done: false, tokens: 3, doubt, promptKind: undefined, stopReason: undefined, endRule: undefined, seconds: undefined, firstTokenSeconds: undefined });
    const finished = completionView({ done: true, accepted: false, tokens: [1], doubt, result });
    assert.equal(finished?.promptKind, "fim");
    assert.equal(finished?.stopReason, "complete");
    assert.equal(completionView({ done: true, accepted: false, tokens: [1], doubt }), undefined, "cancelled or failed");
    assert.equal(completionView({ done: false, accepted: true, tokens: [1], doubt }), undefined, "accepted");
    // a server from before fill-in-the-middle completions: no prompt kind, no doubt
    const old = completionView({ done: true, accepted: false, tokens: [1], doubt: null, result: { ...result, promptKind: undefined, doubt: undefined } });
    assert.equal(completionLabel(old!), "$(check) qualm: 1 token");
  });
});
