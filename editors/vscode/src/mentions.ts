// Files offered for an @-mention in the chat's prompt: the open ones
// first, then the workspace's files whose path contains what was typed.

import * as vscode from 'vscode';

/** How many files the list shows. */
const maxFiles = 30;
const exclude = '**/{node_modules,.git,dist,out,build,target,vendor}/**';

export async function mentionFiles(query: string): Promise<string[]> {
  const q = query.toLowerCase();
  const rel = (u: vscode.Uri) => vscode.workspace.asRelativePath(u, false);
  const open = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file').map((d) => rel(d.uri));
  const glob = q === '' ? '**/*' : `**/*${q.replace(/[[\]{}*?!]/g, '')}*`;
  let found: string[] = [];
  try {
    found = (await vscode.workspace.findFiles(glob, exclude, 200)).map(rel);
  } catch {
    // a workspace without folders
  }
  const matches = (p: string) => p.toLowerCase().includes(q);
  const all = [...new Set([...open.filter(matches), ...found.filter(matches).sort((a, b) => a.length - b.length || a.localeCompare(b))])];
  return all.filter((p) => !p.startsWith('/')).slice(0, maxFiles);
}
