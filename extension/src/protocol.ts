// qualm's own LSP messages (the server's README table), typed for the client.

import { NotificationType, ProgressType, RequestType } from "vscode-languageclient/node";
import { Level } from "./levels";

/** One token of a completion: where it is in the completion's text (character offsets) and how
 * uncertain the model was. Entropy, probability and alternatives stay on the server (the hover). */
export interface TokenJson {
  text: string;
  start: number;
  end: number;
  level: Level | "confident";
}

export interface Position {
  line: number;
  character: number;
}

export interface CompleteParams {
  textDocument: { uri: string };
  position: Position;
  /** Sampling overrides; the token budget is the server's qualm.editor.completion_max_tokens. */
  options?: { temperature?: number; topP?: number; seed?: number; maxTokens?: number };
  partialResultToken?: string;
}

/** The prompt a completion was written from: fill-in-the-middle (the code before and after the
 * cursor, on a model with FIM tokens) or the chat prompt for the enclosing function. */
export type PromptKind = "fim" | "chat";

/** How sure the model was of a completion's tokens (those with more than white space); the server
 * computes it, the status bar shows it (VS Code cannot colour ghost text). */
export interface CompletionDoubt {
  /** nats */
  maxEntropy: number;
  /** nats: the mean of the K largest entropies (the server's qualm.lexical.top_k) */
  topKEntropy: number;
  minProb: number;
  /** the level of the largest entropy */
  level: Level | "confident";
  tokens: number;
}

export interface CompleteResult {
  text: string;
  tokens: TokenJson[];
  /** "doubt": cut before its first very uncertain token (qualm.editor.completion_doubt_cut); else the
   * model's: "complete" (the end rule), "fence", "eos", "length", "end_of_text", "cancelled". */
  stopReason: string;
  /** the stop rule that cut the text (docs/completion.md): "line-end", "closes-rest", "resumes",
   * "block-end", "next-definition", "decorated", "fence", "unclosed", "syntax"; null: none did */
  endRule?: string | null;
  model: string;
  seconds: number;
  function: string | null;
  // Optional: a protocol-2 server from before fill-in-the-middle completions does not send them.
  promptKind?: PromptKind;
  /** null: no token with more than white space */
  doubt?: CompletionDoubt | null;
  firstTokenSeconds?: number | null;
}

/** A streamed piece of text: the new text and its tokens. */
export interface TokensPartial {
  text: string;
  tokens: TokenJson[];
}

export interface CompletePartial extends TokensPartial {
  /** The running doubt of all the tokens so far (not only this piece's). */
  doubt?: CompletionDoubt | null;
  /** The text and tokens sent so far are withdrawn: the completion is asked again (this piece is empty). */
  restart?: boolean;
}

export const CompleteRequest = new RequestType<CompleteParams, CompleteResult, void>("qualm/complete");
export const CompleteProgress = new ProgressType<CompletePartial>();

export interface AssessParams {
  textDocument: { uri: string };
  function?: string;
  position?: Position;
  workDoneToken?: string;
}

export interface AssessResult {
  function: string;
  summary?: string;
  cancelled?: boolean;
  assessment?: Record<string, unknown>;
}

export const AssessRequest = new RequestType<AssessParams, AssessResult, void>("qualm/assess");

/** The user took a completion (all of it, or the first part): the server finds its recent completion
 * for the document that begins with `text` and marks the tokens that are really in the document. */
export interface AcceptedParams {
  textDocument: { uri: string };
  range: { start: Position; end: Position };
  text: string;
}

export const AcceptedNotification = new NotificationType<AcceptedParams>("qualm/accepted");

/** The protocol this extension speaks (qualm/complete without a client token budget, tokens without
 * numbers, qualm/accepted by text). The server says in qualm/handshake whether it speaks it too. */
export const PROTOCOL_VERSION = 2;

export interface HandshakeParams {
  clientVersion: string;
  protocol: number;
}

export interface HandshakeResult {
  serverVersion: string;
  protocol: number;
  languages: string[];
  compatible: boolean;
  message: string;
  /** The server's process id (absent from servers before it was added): the log names it, and the
   * end-to-end tests kill that process to test the recovery from a crash. */
  pid?: number;
}

export const HandshakeRequest = new RequestType<HandshakeParams, HandshakeResult, void>("qualm/handshake");


export const STATUS = "qualm/status";
export const MARKS = "qualm/marks";

// unreachable: the model's inference server failed after start-up; the next request that gets
// through makes it ready again.
export type ServerState = "loading" | "ready" | "busy" | "error" | "unreachable";

export interface StatusParams {
  state: ServerState;
  message: string;
  model: string | null;
  /** The loaded model's file or server (none while no model is loaded). */
  modelPath?: string | null;
}

export interface MarksParams {
  uri: string;
  version: number | null;
  /** `span`: neighbouring marks with the same number are one highlight (and one hover). */
  marks: { range: { start: Position; end: Position }; level: string; doubt?: string; span?: number }[];
}

/** What a qualm code action acts on (opaque to the client: it hands it back as it came). */
export interface RegenerationData {
  qualm: "regenerate";
  uri: string;
  version: number;
  start: number;
  end: number;
  choice: number;
}

export interface RegenerateParams {
  data: RegenerationData;
  seed?: number;
  partialResultToken?: string;
}

/** The rewrite of `range` (in the document version it was computed for): `text` replaces it; the
 * tokens' offsets are into `text`. Nothing is written until the user accepts. */
export interface RegenerateResult {
  text: string;
  tokens: TokenJson[];
  range: { start: Position; end: Position };
  version: number;
  replaced: string;
  choice: string | null;
  stopReason: string;
  seconds: number;
}

export const RegenerateRequest = new RequestType<RegenerateParams, RegenerateResult, void>("qualm/regenerate");
/** A streamed piece of a rewrite: its tokens, and the range the whole rewrite replaces. */
export interface RegeneratePartial extends TokensPartial {
  range: { start: Position; end: Position };
}

export const RegenerateProgress = new ProgressType<RegeneratePartial>();
