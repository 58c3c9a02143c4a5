// Restricted mode: in a workspace VS Code does not trust, the settings that name a program, a file or
// a server qualm runs, loads or talks to (package.json's capabilities.untrustedWorkspaces
// .restrictedConfigurations) are read from the user's settings only. A cloned repository's
// .vscode/settings.json must never choose the program qualm runs.
//
// VS Code itself drops those keys from the workspace's settings when it does not trust it, but only
// under their own names: `"qualm.model": {"path": ...}` or `"qualm": {"python": ...}` in a workspace
// file are not registered settings, are not dropped, and still land in a read of the whole `qualm`
// section. So the client replaces every restricted key in whatever it reads by the user's value (or
// the default), whatever form the workspace wrote it in. No VS Code here (the unit tests load it);
// client.ts does the reading.

/** package.json's restricted settings, full names (`qualm.python`): the one list, which VS Code
 * reads too. Empty when the manifest has none. */
export function restrictedSettings(packageJSON: unknown): string[] {
  const caps = (packageJSON as { capabilities?: { untrustedWorkspaces?: { restrictedConfigurations?: unknown } } } | undefined)?.capabilities;
  const list = caps?.untrustedWorkspaces?.restrictedConfigurations;
  return Array.isArray(list) ? list.filter((k): k is string => typeof k === "string") : [];
}

/** `value`, the configuration read at the dotted `section` ("" for the whole configuration, `qualm`,
 * `qualm.model`, `qualm.model.path`), with each restricted setting in it replaced by
 * `userValue(key)` (absent where that is undefined). The value is copied, never changed. */
export function withUserValues(section: string, value: unknown, restricted: readonly string[], userValue: (key: string) => unknown): unknown {
  let out = value;
  let copied = false;
  for (const key of restricted) {
    if (key === section) return copy(userValue(key));
    const prefix = section ? `${section}.` : "";
    if (!key.startsWith(prefix)) continue;
    if (!out || typeof out !== "object" || Array.isArray(out)) continue;
    if (!copied) {
      out = copy(out);
      copied = true;
    }
    const path = key.slice(prefix.length).split(".");
    setPath(out as Record<string, unknown>, path, copy(userValue(key)));
  }
  return out;
}

function copy(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** Sets `path` in `obj` (objects on the way made where the value is not undefined); undefined deletes. */
function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  const [head, ...rest] = path;
  if (!rest.length) {
    if (value === undefined) delete obj[head];
    else obj[head] = value;
    return;
  }
  let inner = obj[head];
  if (!inner || typeof inner !== "object" || Array.isArray(inner)) {
    if (value === undefined) return;
    inner = obj[head] = {};
  }
  setPath(inner as Record<string, unknown>, rest, value);
}

/** Which of the restricted settings a settings file (parsed) sets, in any form VS Code reads: the
 * full name (`"qualm.model.path"`), an object under a part of it (`"qualm.model": {"path": ...}`,
 * `"qualm": {"model": {"path": ...}}`), and inside a language block (`"[python]": {...}`). */
export function restrictedSetIn(settings: unknown, restricted: readonly string[]): string[] {
  const names = new Set<string>();
  const walk = (prefix: string, value: unknown) => {
    if (prefix) names.add(prefix);
    if (!value || typeof value !== "object" || Array.isArray(value)) return;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (!prefix && /^\[.*\]$/.test(k)) walk("", v); // a language block holds settings by their names
      else walk(prefix ? `${prefix}.${k}` : k, v);
    }
  };
  walk("", settings);
  return restricted.filter((key) => names.has(key));
}

/** JSON with comments and trailing commas (VS Code's settings files) as JSON.parse reads it;
 * undefined when it is not JSON even so. */
export function parseJsonc(text: string): unknown {
  let out = "";
  let i = 0;
  const n = text.length;
  // the text without comments (strings kept whole)
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
      out += " ";
    } else {
      out += c;
      i++;
    }
  }
  // without a comma before } or ]
  let clean = "";
  for (let k = 0; k < out.length; k++) {
    const c = out[k];
    if (c === '"') {
      let j = k + 1;
      while (j < out.length && out[j] !== '"') j += out[j] === "\\" ? 2 : 1;
      clean += out.slice(k, j + 1);
      k = j;
    } else if (c === ",") {
      const next = out.slice(k + 1).match(/^\s*(\S)/);
      if (!next || (next[1] !== "}" && next[1] !== "]")) clean += c;
    } else {
      clean += c;
    }
  }
  try {
    return clean.trim() ? JSON.parse(clean) : {};
  } catch {
    return undefined;
  }
}

/** A restricted setting the workspace set, and where. */
export interface Ignored {
  key: string;
  /** The file (or "workspace settings", "folder settings") that sets it. */
  where: string;
}

/** What the user is told once: which of the workspace's settings were ignored, and why. */
export function ignoredMessage(ignored: readonly Ignored[]): string {
  const byKey = new Map<string, string[]>();
  for (const { key, where } of ignored) {
    const places = byKey.get(key) ?? [];
    if (!places.includes(where)) places.push(where);
    byKey.set(key, places);
  }
  const list = [...byKey].map(([key, places]) => `${key} (${places.join(", ")})`).join(", ");
  return (
    `qualm: this workspace is not trusted (Restricted Mode), so its setting${byKey.size === 1 ? "" : "s"} ${list} ${byKey.size === 1 ? "is" : "are"} ignored: ` +
    "settings that name a program, file or server that qualm runs, loads or talks to are read from your user settings only, so that a repository you open cannot choose them. " +
    "Trust the workspace to use them."
  );
}
