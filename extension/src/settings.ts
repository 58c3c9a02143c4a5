// The client's own settings, and the part of the `qualm` section that belongs to the server.
// package.json's contributes.configuration is the schema of both; tests check it against the
// server's Settings dataclasses so the two cannot drift apart.

import { Level, isLevel } from "./levels";

/** Sections of `qualm.*` that the server reads (qualm.settings.Settings). */
export const SERVER_SECTIONS = ["model", "generation", "lexical", "algorithmic", "functional", "ensemble", "editor"] as const;

/** Settings that need the server process restarted rather than re-read. */
export const RESTART_SETTINGS = ["qualm.python"];

export interface ClientSettings {
  python: string;
  inlineEnabled: boolean;
  debounceMs: number;
  maxTokens: number;
  highlightsEnabled: boolean;
  minimumLevel: Level;
}

export type Getter = <T>(key: string, fallback: T) => T;

export function readClientSettings(get: Getter): ClientSettings {
  const level = get<string>("highlights.minimumLevel", "low");
  return {
    python: get<string>("python", ""),
    inlineEnabled: get<boolean>("inline.enabled", true),
    debounceMs: Math.max(0, get<number>("inline.debounceMs", 400)),
    maxTokens: Math.max(1, get<number>("inline.maxTokens", 128)),
    highlightsEnabled: get<boolean>("highlights.enabled", true),
    minimumLevel: isLevel(level) ? level : "low",
  };
}

/** The server's sections of the `qualm` configuration, as plain JSON (the server rejects unknown keys,
 * so the client's own settings must not reach it). */
export function serverSettings(section: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!section || typeof section !== "object") return out;
  for (const key of SERVER_SECTIONS) {
    const value = (section as Record<string, unknown>)[key];
    if (value && typeof value === "object") out[key] = JSON.parse(JSON.stringify(value));
  }
  return out;
}
