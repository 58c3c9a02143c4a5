// Highlight ranges kept true while the user edits, between two updates from the server.
// Same rule as the server's marks: an edit that touches a token's text drops its highlight (it no
// longer shows what the model wrote), an edit before it shifts it, an edit after it leaves it.

import { Level, LEVELS, atLeast } from "./levels";

export interface OffsetMark {
  start: number;
  end: number;
  level: Level;
  /** Neighbouring tokens the server grouped into one span (one highlight, one hover). */
  span?: number;
}

/** What is painted: the marks at or above `minimum`, each span of neighbours merged into one range
 * at its most uncertain level (a calm underline under a phrase rather than a box per token). */
export function paintedSpans(marks: readonly OffsetMark[], minimum: Level): OffsetMark[] {
  const out: OffsetMark[] = [];
  for (const m of marks) {
    if (!atLeast(m.level, minimum)) continue;
    const last = out[out.length - 1];
    if (last && m.span !== undefined && last.span === m.span) {
      last.end = Math.max(last.end, m.end);
      if (LEVELS.indexOf(m.level) > LEVELS.indexOf(last.level)) last.level = m.level;
    } else {
      out.push({ ...m });
    }
  }
  return out;
}

/** One change as VS Code reports it: offsets in the text before the change. */
export interface TextChange {
  rangeOffset: number;
  rangeLength: number;
  text: string;
}

export function applyChange(marks: readonly OffsetMark[], change: TextChange): OffsetMark[] {
  const start = change.rangeOffset;
  const end = start + change.rangeLength;
  const delta = change.text.length - change.rangeLength;
  const out: OffsetMark[] = [];
  for (const m of marks) {
    if (m.end <= start) {
      out.push(m); // before the edit; typing right after a token keeps it
    } else if (m.start >= end) {
      out.push({ ...m, start: m.start + delta, end: m.end + delta });
    } // otherwise the edit touched the token: drop it
  }
  return out;
}

/** The changes of one document event. VS Code gives them in the coordinates of the text before the
 * event and they do not overlap, so applying them from the last to the first keeps each valid. */
export function applyChanges(marks: readonly OffsetMark[], changes: readonly TextChange[]): OffsetMark[] {
  const ordered = [...changes].sort((a, b) => b.rangeOffset - a.rangeOffset);
  let current = [...marks];
  for (const c of ordered) current = applyChange(current, c);
  return current;
}

/** Marks per document (keyed by URI string), with the document version they belong to. */
export class MarkStore {
  private readonly docs = new Map<string, { version: number; marks: OffsetMark[] }>();

  /** Replace a document's marks with the server's; older versions than what we hold are ignored. */
  set(uri: string, version: number, marks: OffsetMark[]): boolean {
    const held = this.docs.get(uri);
    if (held && held.version > version) return false;
    this.docs.set(uri, { version, marks: [...marks].sort((a, b) => a.start - b.start) });
    return true;
  }

  edit(uri: string, version: number, changes: readonly TextChange[]): boolean {
    const held = this.docs.get(uri);
    if (!held) return false;
    const marks = applyChanges(held.marks, changes);
    const changed = marks.length !== held.marks.length || marks.some((m, i) => m.start !== held.marks[i].start);
    this.docs.set(uri, { version, marks });
    return changed;
  }

  get(uri: string): readonly OffsetMark[] {
    return this.docs.get(uri)?.marks ?? [];
  }

  delete(uri: string): void {
    this.docs.delete(uri);
  }

  uris(): string[] {
    return [...this.docs.keys()];
  }
}
