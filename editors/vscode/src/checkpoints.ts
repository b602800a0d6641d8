// Checkpoints in words: the timeline's items, the choices of what to
// restore and what a restore did, for the chat and the QuickPicks of
// restore.ts. No vscode import (unit-tested in plain node).

import type { Checkpoint, RestoreReply, RestoreWhat } from './protocol';

/** One answer to "restore what?". */
export interface WhatChoice {
  what: RestoreWhat;
  label: string;
  detail: string;
}

/**
 * whatChoices are the answers to "restore what?" for checkpoint c: the
 * conversation only when the checkpoint knows where it stood.
 */
export function whatChoices(c: Pick<Checkpoint, 'convSeq'>): WhatChoice[] {
  const out: WhatChoice[] = [
    { what: 'files', label: 'Files', detail: 'Put the files back to before this step; the conversation goes on.' },
  ];
  if ((c.convSeq ?? -1) >= 0) {
    out.push(
      { what: 'conversation', label: 'Conversation', detail: "The agent forgets this step's prompt and everything after it; the files stay." },
      { what: 'both', label: 'Files and conversation', detail: 'Both: back to before this step.' },
    );
  }
  return out;
}

/** One item of the timeline: a checkpoint, numbered from 1 in the session. */
export interface TimelineItem {
  label: string;
  description: string;
  detail?: string;
  checkpoint: Checkpoint;
}

/**
 * timeline lists a session's checkpoints (oldest first, as the server
 * sends them) newest first: the step's number and title, when, and what
 * it changed or could not keep. time formats a checkpoint's time.
 */
export function timeline(list: readonly Checkpoint[], time: (iso: string) => string): TimelineItem[] {
  const out: TimelineItem[] = [];
  list.forEach((c, i) => {
    const changed = c.changed ?? 0;
    const notes = c.notes ?? [];
    out.push({
      label: `${c.kind === 'restore' ? '$(discard)' : '$(debug-step-over)'} ${i + 1}. ${c.title || c.tool || '?'}`,
      description: [c.time ? time(c.time) : '', `${changed} file${changed === 1 ? '' : 's'} changed`].filter((x) => x).join(' · '),
      detail: notes.length ? `not kept: ${notes.join('; ')}` : undefined,
      checkpoint: c,
    });
  });
  return out.reverse();
}

/** hasRestore tells whether a session's checkpoints include a restore (which can be undone). */
export function hasRestore(list: readonly Checkpoint[]): boolean {
  return list.some((c) => c.kind === 'restore');
}

/**
 * restoreText says what a restore did, for the chat: rel shows a path as
 * the person knows it. level is warning when a path was left alone.
 */
export function restoreText(r: RestoreReply, rel: (p: string) => string, undo: boolean): { level: 'info' | 'warning'; text: string } {
  const restored = (r.restored ?? []).map(rel);
  const conflicts = r.conflicts ?? [];
  const skipped = r.skipped ?? [];
  const parts = [
    undo ? `Undid the last restore (checkpoint ${r.to})` : `Restored to checkpoint ${r.to}`,
    restored.length ? `: put back ${restored.join(', ')}` : ': no file changed',
  ];
  if (conflicts.length) {
    parts.push(`; kept your version of ${conflicts.map((c) => `${rel(c.path)} (${c.reason})`).join(', ')}`);
  }
  if (skipped.length) {
    parts.push(`; left alone ${skipped.map((s) => `${rel(s.path)} (${s.reason})`).join(', ')}`);
  }
  if (r.conversation) {
    parts.push(`; the conversation is back to ${r.conversation.messages} message${r.conversation.messages === 1 ? '' : 's'}`);
  }
  parts.push('.');
  return { level: conflicts.length || skipped.length ? 'warning' : 'info', text: parts.join('') };
}

/**
 * diffable tells whether a conflict can open as a diff: a file on one side
 * at least (the other may be missing: an empty side).
 */
export function diffable(c: { yours: { kind?: string }; checkpoint: { kind?: string } }): boolean {
  return c.yours.kind === 'file' || c.checkpoint.kind === 'file';
}

/** What a restore changed in the chat: the turns it hid and showed again, and the first hidden one's prompt. */
export interface TurnsChange {
  dropped: number;
  back: number;
  prompt?: string;
}

/**
 * turnsText says what the chat shows after a restore of the conversation:
 * the turns hidden (the agent no longer sees them) and those back.
 */
export function turnsText(t: TurnsChange): string {
  const turns = (n: number) => `${n} turn${n === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (t.dropped) {
    parts.push(
      ` The chat no longer shows the ${turns(t.dropped)} the agent forgot` +
        (t.prompt !== undefined ? '; the prompt is back in the box, to edit and send again' : '') +
        '. Undo the last restore brings them back.',
    );
  }
  if (t.back) {
    parts.push(` The chat shows again the ${turns(t.back)} the agent remembers again.`);
  }
  return parts.join('');
}
