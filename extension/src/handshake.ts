// The version handshake: right after the server starts, the extension sends qualm/handshake with its
// version and protocol; the server answers whether it speaks that protocol. A server older than the
// handshake does not know the request (MethodNotFound). This module only judges the answer (no VS Code
// here, so the unit tests load it); the client shows the outcome.

import type { HandshakeResult } from "./protocol";

/** JSON-RPC's "method not found": the server predates qualm/handshake. */
export const METHOD_NOT_FOUND = -32601;

/** What the status and the log say about the server once the handshake has succeeded. */
export interface ServerInfo {
  version: string;
  protocol: number;
  languages: string[];
  /** The server's process id, where it says. */
  pid?: number;
}

export type HandshakeOutcome =
  /** The server speaks our protocol. */
  | { kind: "compatible"; server: ServerInfo; log: string }
  /** It does not, or it is too old to say: the server must not be used (error notification, status failed). */
  | { kind: "incompatible"; message: string }
  /** No answer to judge (the server stopped or did not answer in time): logged, nothing else. */
  | { kind: "unknown"; log: string };

export interface HandshakeInput {
  clientVersion: string;
  /** The protocol this extension speaks (PROTOCOL_VERSION). */
  protocol: number;
  /** The interpreter that runs the server, and the qualm version it reported when probed. */
  interpreter: string;
  installedVersion: string;
  /** Where the interpreter was found (python.ts's Source), for the log: which qualm the extension found. */
  source?: string;
  /** The bundled engine (engine.ts) must be the extension's own version exactly; a user's own qualm or
   * a shared server must only speak a compatible protocol. */
  exact?: boolean;
  /** The server's answer, when the request succeeded. */
  answer?: unknown;
  /** The request's error, when it failed. */
  error?: unknown;
}

export function judgeHandshake(input: HandshakeInput): HandshakeOutcome {
  const { clientVersion, interpreter, installedVersion } = input;
  if (input.error !== undefined) {
    if (errorCode(input.error) === METHOD_NOT_FOUND) {
      return {
        kind: "incompatible",
        message:
          `qualm: the server (qualm ${installedVersion}) is older than the extension (${clientVersion}): ` +
          `update qualm in ${interpreter} (${interpreter} -m pip install -U qualm) or run scripts/setup`,
      };
    }
    return { kind: "unknown", log: `qualm/handshake failed: ${errorMessage(input.error)}` };
  }
  const a = normalize(input.answer);
  if (!a) {
    return {
      kind: "incompatible",
      message: `qualm: the server's answer to qualm/handshake was not understood (${JSON.stringify(input.answer) ?? "nothing"}): update qualm in ${interpreter} or the extension`,
    };
  }
  if (!a.compatible) {
    const why = a.message.trim() || `the server (qualm ${a.serverVersion}, protocol ${a.protocol}) does not work with the extension (${clientVersion}, protocol ${input.protocol})`;
    return { kind: "incompatible", message: why.startsWith("qualm:") ? why : `qualm: ${why}` };
  }
  if (input.exact && a.serverVersion !== clientVersion) {
    return {
      kind: "incompatible",
      message: `qualm: the engine runs qualm ${a.serverVersion}, but this extension bundles ${clientVersion}: run "qualm: Set Up qualm's Engine" to update it (llama.cpp is not built again)`,
    };
  }
  const server: ServerInfo = { version: a.serverVersion, protocol: a.protocol, languages: [...a.languages], ...(a.pid !== undefined ? { pid: a.pid } : {}) };
  const note = a.protocol === input.protocol ? "" : ` (the server speaks protocol ${a.protocol} and says it also serves ${input.protocol})`;
  const message = a.message.trim() ? `: ${a.message.trim()}` : "";
  const pid = a.pid !== undefined ? `; server process ${a.pid}` : "";
  return {
    kind: "compatible",
    server,
    log: `handshake: server qualm ${a.serverVersion}, protocol ${a.protocol}, languages ${a.languages.join(", ") || "none"}; extension ${clientVersion}, protocol ${input.protocol}${note}${message}${found(input)}${pid}`,
  };
}

/** Which qualm the extension found, as the log says it. */
function found(input: HandshakeInput): string {
  if (!input.source) return "";
  if (input.source === "qualm engine") return `; found: qualm's engine (bundled with the extension, ${input.interpreter})`;
  return `; found: your own qualm (${input.source}: ${input.interpreter})`;
}

/** The answer as a HandshakeResult: `compatible` must be there; the other fields fall back to
 * neutral values (they only go to the log and the status). */
function normalize(a: unknown): HandshakeResult | undefined {
  if (!a || typeof a !== "object") return undefined;
  const r = a as Record<string, unknown>;
  if (typeof r.compatible !== "boolean") return undefined;
  return {
    compatible: r.compatible,
    serverVersion: typeof r.serverVersion === "string" ? r.serverVersion : "(unknown version)",
    protocol: typeof r.protocol === "number" ? r.protocol : NaN,
    languages: Array.isArray(r.languages) ? r.languages.filter((l): l is string => typeof l === "string") : [],
    message: typeof r.message === "string" ? r.message : "",
    ...(Number.isInteger(r.pid) && (r.pid as number) > 0 ? { pid: r.pid as number } : {}),
  };
}

function errorCode(err: unknown): unknown {
  return err && typeof err === "object" ? (err as { code?: unknown }).code : undefined;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
