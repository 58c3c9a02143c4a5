// What a stream of partial results adds up to: each piece appends its text and tokens, and a piece
// marked `restart` first withdraws everything sent before it (the server asked the model again).

import { CompletePartial, TokenJson } from "./protocol";

export interface SoFar {
  text: string;
  tokens: TokenJson[];
}

export function withPartial(sofar: SoFar, part: CompletePartial): SoFar {
  const base = part.restart ? { text: "", tokens: [] } : sofar;
  return { text: base.text + part.text, tokens: [...base.tokens, ...part.tokens] };
}
