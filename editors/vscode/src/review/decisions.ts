// Decisions on one agentls/review: which hunks the person accepted or
// rejected, where each hunk's lenses go in the proposed text, and the
// result sent back (docs/protocol.md, "Review before apply"). No vscode
// import (unit-tested in plain node).

import type { ReviewHunk, ReviewParams, ReviewResult } from '../protocol';

export type Decision = 'accepted' | 'rejected';

export class ReviewDecisions {
  private readonly decided = new Map<number, Decision>();

  constructor(readonly params: ReviewParams) {}

  get hunks(): readonly ReviewHunk[] {
    return this.params.hunks;
  }

  decision(id: number): Decision | undefined {
    return this.decided.get(id);
  }

  /** Decides one hunk (again: the last word counts); returns the result once every hunk is decided. */
  decide(id: number, d: Decision): ReviewResult | undefined {
    if (this.hunks.some((h) => h.id === id)) {
      this.decided.set(id, d);
    }
    return this.complete() ? this.result() : undefined;
  }

  /** Takes a decision back. */
  undo(id: number): void {
    this.decided.delete(id);
  }

  /** How many hunks are still undecided. */
  get pending(): number {
    return this.hunks.filter((h) => !this.decided.has(h.id)).length;
  }

  complete(): boolean {
    return this.pending === 0;
  }

  /** The answer for the decisions so far; undecided hunks count as rejected. */
  result(): ReviewResult {
    const accept = this.hunks.filter((h) => this.decided.get(h.id) === 'accepted').map((h) => h.id);
    return { accept };
  }

  /** Accept every hunk, with a grant from params.choices (allow_session, allow_always) or none. */
  acceptAll(grant?: string): ReviewResult {
    const all = this.hunks.map((h) => h.id);
    return grant ? { accept: all, answer: grant } : { accept: all };
  }

  /** What the person ended up choosing, in words, for the chat. */
  static describe(result: ReviewResult, total: number): string {
    if (result === null) {
      return 'rejected';
    }
    if ('text' in result) {
      return 'applied with your edits';
    }
    const n = result.accept.length;
    if (n === 0) {
      return 'rejected';
    }
    return n === total ? `accepted${result.answer ? ` (${result.answer.replace('_', ' ')})` : ''}` : `accepted hunk${n > 1 ? 's' : ''} ${result.accept.join(', ')} of ${total}`;
  }
}

/**
 * lensLine is the 0-based line of the proposed text where a hunk's lenses
 * go: its first new line, or for a deletion the line that follows it
 * (newStart is the line it goes before; the last line when it deleted the
 * end of the file).
 */
export function lensLine(h: ReviewHunk, proposedLines: number): number {
  return Math.max(0, Math.min(h.newStart - 1, proposedLines - 1));
}

/** A hunk's size for its lens: "+2 −1". */
export function hunkSize(h: ReviewHunk): string {
  return [h.newLines ? `+${h.newLines}` : '', h.oldLines ? `−${h.oldLines}` : ''].filter((s) => s).join(' ');
}
