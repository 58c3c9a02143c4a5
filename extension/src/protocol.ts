// qualm's own LSP messages (the server's README table), typed for the client.

import { ProgressType, RequestType } from "vscode-languageclient/node";
import { Level } from "./levels";

export interface TokenJson {
  text: string;
  start: number;
  end: number;
  entropy: number;
  prob: number;
  level: Level | "confident";
  alternatives: { text: string; prob: number }[];
}

export interface Position {
  line: number;
  character: number;
}

export interface CompleteParams {
  textDocument: { uri: string };
  position: Position;
  options?: { maxTokens?: number; temperature?: number; topP?: number; seed?: number };
  partialResultToken?: string;
}

export interface CompleteResult {
  traceId: string;
  text: string;
  tokens: TokenJson[];
  stopReason: string;
  model: string;
  seconds: number;
  function: string | null;
}

export interface CompletePartial {
  text: string;
  tokens: TokenJson[];
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

export const ACCEPTED = "qualm/accepted";
export const STATUS = "qualm/status";
export const MARKS = "qualm/marks";

export type ServerState = "loading" | "ready" | "busy" | "error";

export interface StatusParams {
  state: ServerState;
  message: string;
  model: string | null;
}

export interface MarksParams {
  uri: string;
  version: number | null;
  marks: { range: { start: Position; end: Position }; level: string }[];
}
