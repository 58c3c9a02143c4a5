// The file channel between the end-to-end runner (outside the editor) and the suite (inside it):
// each side polls for the other's files, so a file must appear whole. Written under a temporary name
// in the same folder and renamed, which is atomic: the reader never parses half a file.

import { renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export function writeWhole(path: string, text: string): void {
  const partial = join(dirname(path), `.partial-${basename(path)}`);
  writeFileSync(partial, text);
  renameSync(partial, path);
}
