// The status bar: what the agent does now (its running step), waiting for
// you (click: answer), stopped (click: restart), and next to it a
// "Revert" item that undoes the whole last turn's file changes.

import * as vscode from 'vscode';

import { type Status, type Usage, usageBadge, usageLine } from './events';
import { type SandboxStatus, sandboxLine } from './sandbox';

export interface StatusView {
  status: Status;
  step?: string;
  revertTurnId?: string;
  startError?: string;
  /** What the server's agentls.sandbox answered, once it is running. */
  sandbox?: SandboxStatus;
  /** agentls.model answered that no model is set anywhere. */
  noModel?: boolean;
  /** The session's tokens and cost so far. */
  usage?: Usage;
}



/** The commands the items run. */
export interface StatusCommands {
  showChat: string;
  answer: string;
  restart: string;
  revert: string;
  /** Opens the Settings editor on a setting (its argument). */
  settings: string;
}

export class StatusBar implements vscode.Disposable {
  private readonly main: vscode.StatusBarItem;
  private readonly revert: vscode.StatusBarItem;

  constructor(private readonly commands: StatusCommands) {
    this.main = vscode.window.createStatusBarItem('agentls.status', vscode.StatusBarAlignment.Left, 0);
    this.main.name = 'agentls';
    this.revert = vscode.window.createStatusBarItem('agentls.revert', vscode.StatusBarAlignment.Left, -1);
    this.revert.name = 'agentls: Revert';
    this.revert.text = '$(discard) Revert';
    this.revert.command = commands.revert;
    this.revert.accessibilityInformation = { label: 'agentls: revert the last turn' };
    this.main.show();
  }

  update(v: StatusView): void {
    const c = this.commands;
    const step = v.step ? `: ${shorten(v.step, 60)}` : ': working';
    const look: Record<Status, { text: string; label: string; tooltip: string; command: string }> = {
      starting: { text: '$(loading~spin) agentls', label: 'agentls: starting', tooltip: 'agentls: starting the server', command: c.showChat },
      idle: { text: '$(hubot) agentls', label: 'agentls: idle', tooltip: 'agentls: idle. Click to open the chat.', command: c.showChat },
      working: { text: `$(loading~spin) agentls${step}`, label: 'agentls: working', tooltip: `agentls: the agent is working${v.step ? ` (${v.step})` : ''}. Click to open the chat.`, command: c.showChat },
      waiting: { text: '$(bell-dot) agentls: waiting for you', label: 'agentls: waiting for you', tooltip: 'agentls: the agent asks you something. Click to answer.', command: c.answer },
      stopped: { text: '$(error) agentls: stopped', label: 'agentls: stopped', tooltip: `agentls: the server is not running${v.startError ? ` (${v.startError})` : ''}. Click to restart it.`, command: c.restart },
    };
    const l = v.status === 'idle' && v.noModel
      ? { text: '$(hubot) agentls: no model', label: 'agentls: no model', tooltip: 'agentls: no model is set. Click to set agentls.model (e.g. openai:gpt-4.1, or local:qwen3 with agentls.providers).', command: c.settings }
      : look[v.status];
    const badge = v.status === 'idle' && !v.noModel ? usageBadge(v.usage) : undefined;
    this.main.text = badge ? `${l.text} ${badge}` : l.text;
    const sandbox = v.status === 'stopped' ? '' : sandboxLine(v.sandbox);
    const used = v.status === 'stopped' ? undefined : usageLine(v.usage);
    this.main.tooltip = [l.tooltip, used && `This session: ${used}${v.usage?.cost_usd !== undefined ? ' (estimated)' : ''}`, sandbox].filter(Boolean).join('\n\n');
    this.main.command = l.command === c.settings ? { command: c.settings, title: 'Open Settings', arguments: ['agentls.model'] } : l.command;
    this.main.accessibilityInformation = { label: l.label };
    this.main.backgroundColor =
      v.status === 'waiting' ? new vscode.ThemeColor('statusBarItem.warningBackground') : v.status === 'stopped' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    if (v.revertTurnId && v.status === 'idle') {
      this.revert.tooltip = "agentls: undo the last turn's file changes (asks first)";
      this.revert.show();
    } else {
      this.revert.hide();
    }
  }

  dispose(): void {
    this.main.dispose();
    this.revert.dispose();
  }
}

function shorten(s: string, max: number): string {
  const line = s.split('\n')[0];
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}
