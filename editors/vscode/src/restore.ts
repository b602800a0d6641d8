// Restoring checkpoints from VS Code: "Restore to here" on a step of the
// chat, the session's timeline (agentls: Checkpoints…), and undoing the
// last restore, through agentls.checkpoints and agentls.restoreCheckpoint.
// The server changes open documents through workspace/applyEdit, so
// Ctrl+Z takes a restore back; a path someone changed after the agent's
// step is kept, said in the chat and opened as a diff of the checkpoint's
// version and yours. See docs/checkpoints.md.

import * as fs from 'node:fs/promises';

import * as vscode from 'vscode';

import { diffable, hasRestore, restoreText, timeline, type TurnsChange, turnsText, whatChoices } from './checkpoints';
import type { Todo } from './chat/entries';
import { message } from './client';
import type { Checkpoint, CheckpointConflict, CheckpointList, RestoreArgs, RestoreReply } from './protocol';
import { serverCommand } from './protocol';

/** What the checkpoints need of the extension. */
export interface RestoreHost {
  /** Runs a server command; throws the server's error. */
  execute<T>(name: string, args?: unknown[]): Promise<T>;
  /** The session the chat shows (its next prompt continues it), if any. */
  sessionId(): string | undefined;
  notice(level: 'info' | 'warning' | 'error', text: string): void;
  /** Marks the chat's steps with their checkpoints. */
  mark(list: Checkpoint[]): void;
  /** Shows the turns the conversation holds (a restore's conversation.turns) and hides the rest. */
  showTurns(turns: readonly string[]): TurnsChange;
  /** Puts a prompt back in the chat's box (unless the person is typing there). */
  retype(prompt: string): void;
  /** Shows the todo list the conversation holds (a restore's conversation.todos). */
  showTodos(todos: readonly Todo[]): void;
}

/** The URI scheme of a checkpoint's version of a file in a diff (read-only, no language server). */
export const checkpointScheme = 'agentls-checkpoint';

/** Most diffs one restore opens; the chat names the rest. */
const maxDiffs = 5;

export class Restore implements vscode.Disposable {
  /** The checkpoints' versions the diffs show, by URI. */
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly host: RestoreHost) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(checkpointScheme, {
        onDidChange: this.changed.event,
        provideTextDocumentContent: (uri) => this.texts.get(uri.toString()) ?? '',
      }),
    );
  }

  private args(extra: RestoreArgs = {}): RestoreArgs[] {
    const sessionId = this.host.sessionId();
    return [{ ...(sessionId ? { sessionId } : {}), ...extra }];
  }

  /** The session's checkpoints, oldest first; they also mark the chat's steps. */
  async list(): Promise<Checkpoint[]> {
    const reply = await this.host.execute<CheckpointList>(serverCommand.checkpoints, this.args());
    const list = reply?.checkpoints ?? [];
    this.host.mark(list);
    return list;
  }

  /** Marks the chat's steps again (after a turn, a restore, a resume); quiet on failure (no session yet). */
  async refresh(): Promise<void> {
    try {
      await this.list();
    } catch {
      // No session yet, or an agentls without checkpoints: no marks.
    }
  }

  /** "Restore to here": asks what to restore to before checkpoint id, then restores it. */
  async restoreTo(id: number, known?: Checkpoint): Promise<void> {
    let c = known;
    if (!c) {
      try {
        c = (await this.list()).find((x) => x.id === id);
      } catch (err) {
        this.host.notice('error', `Listing the checkpoints failed: ${message(err)}`);
        return;
      }
    }
    if (!c) {
      this.host.notice('error', `Checkpoint ${id} is not one of this session's any more (the oldest are pruned).`);
      return;
    }
    const items = whatChoices(c).map((w) => ({ label: w.label, detail: w.detail, what: w.what }));
    const pick = await vscode.window.showQuickPick(items, {
      title: `agentls: restore to before ${c.title || c.tool || `checkpoint ${id}`}`,
      placeHolder: 'What goes back? A restore can be undone (agentls: Checkpoints…, Undo the last restore).',
    });
    if (pick) {
      await this.run({ checkpoint: id, what: pick.what }, false);
    }
  }

  /** Undoes the session's last restore (undoing again redoes it). */
  undo(): Promise<void> {
    return this.run({ undo: true }, true);
  }

  /** The session's timeline in a QuickPick: the checkpoint picked is restored to (asking what), or the last restore undone. */
  async pick(): Promise<void> {
    let list: Checkpoint[];
    try {
      list = await this.list();
    } catch (err) {
      this.host.notice('error', `Listing the checkpoints failed: ${message(err)}`);
      return;
    }
    if (list.length === 0) {
      void vscode.window.showInformationMessage('agentls: no checkpoints yet: one is taken before every step of the agent that may change files.');
      return;
    }
    type Item = vscode.QuickPickItem & { checkpoint?: Checkpoint; undo?: boolean };
    const items: Item[] = timeline(list, (iso) => new Date(iso).toLocaleTimeString());
    if (hasRestore(list)) {
      items.unshift({ label: '$(redo) Undo the last restore', description: 'undoing again redoes it', undo: true });
    }
    const pick = await vscode.window.showQuickPick(items, {
      title: "agentls: this session's checkpoints, newest first",
      placeHolder: 'Restore to before a step (then: files, conversation or both)',
      matchOnDescription: true,
    });
    if (pick?.undo) {
      await this.undo();
    } else if (pick?.checkpoint) {
      await this.restoreTo(pick.checkpoint.id, pick.checkpoint);
    }
  }

  private async run(a: RestoreArgs, undo: boolean): Promise<void> {
    let reply: RestoreReply;
    try {
      reply = await this.host.execute<RestoreReply>(serverCommand.restoreCheckpoint, this.args(a));
    } catch (err) {
      this.host.notice('error', `${undo ? 'Undoing the restore' : 'The restore'} failed: ${message(err)}`);
      return;
    }
    const rel = (p: string) => vscode.workspace.asRelativePath(p, false);
    const said = restoreText(reply, rel, undo);
    // The chat shows the conversation as the model has it now.
    const turns = reply.conversation?.turns;
    const shown = turns ? this.host.showTurns(turns) : undefined;
    this.host.notice(said.level, said.text + (shown ? turnsText(shown) : ''));
    // Its todo list went back with it.
    const todos = reply.conversation?.todos;
    if (todos) {
      this.host.showTodos(todos);
    }
    if (shown?.prompt !== undefined) {
      this.host.retype(shown.prompt);
    }
    void this.refresh();
    const conflicts = (reply.conflicts ?? []).filter(diffable);
    for (const c of conflicts.slice(0, maxDiffs)) {
      await this.diff(c, reply.to);
    }
  }

  /** Opens a conflict as a diff: the checkpoint's version (left, read-only) and yours, the file (right). */
  private async diff(c: CheckpointConflict, to: number): Promise<void> {
    let text = c.checkpoint.exists ? c.checkpoint.text ?? '' : '';
    if (c.checkpoint.copy) {
      text = await fs.readFile(c.checkpoint.copy, 'utf8').catch(() => text);
    }
    const rel = vscode.workspace.asRelativePath(c.path, false);
    const left = vscode.Uri.from({ scheme: checkpointScheme, path: `/${to}/${rel}` });
    this.texts.set(left.toString(), text);
    this.changed.fire(left);
    // Yours is the file (its open document, unsaved changes and all); a
    // file you deleted is an empty side.
    let right = vscode.Uri.file(c.path);
    if (!c.yours.exists) {
      right = vscode.Uri.from({ scheme: checkpointScheme, path: `/yours/${rel}` });
      this.texts.set(right.toString(), '');
    }
    await vscode.commands.executeCommand('vscode.diff', left, right, `${rel}: checkpoint ${to} ↔ yours (kept)`, { preview: false });
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
