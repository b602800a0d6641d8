// ChatView is the chat's webview view (the agentls panel): its HTML, with
// a strict content security policy, and the message channel to the
// webview script (webview/main.ts, bundled as dist/webview.js).

import * as crypto from 'crypto';
import * as vscode from 'vscode';

import type { FromView, ToView } from './messages';

export class ChatView implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'agentls.chat';
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly onMessage: (m: FromView) => void,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = this.html(view.webview, dist);
    this.disposables.push(
      view.webview.onDidReceiveMessage((m: FromView) => {
        if (m.type === 'ready') {
          this.ready = true;
        }
        this.onMessage(m);
      }),
      view.onDidDispose(() => {
        if (this.view === view) {
          this.view = undefined;
          this.ready = false;
        }
      }),
    );
  }

  /** Whether the webview is drawn and listening. */
  get live(): boolean {
    return this.ready && this.view !== undefined;
  }

  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  /** Sends to the webview; dropped until it is ready (it asks for everything then). */
  post(m: ToView): void {
    if (this.live) {
      void this.view!.webview.postMessage(m);
    }
  }

  /** Shows the view, opening the panel if need be. */
  async reveal(preserveFocus: boolean): Promise<void> {
    if (this.view) {
      this.view.show(preserveFocus);
      return;
    }
    await vscode.commands.executeCommand(`${ChatView.viewId}.focus`);
  }

  private html(webview: vscode.Webview, dist: vscode.Uri): string {
    const nonce = crypto.randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css'));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
      `img-src ${webview.cspSource} https: data:`,
      `font-src ${webview.cspSource}`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>agentls</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
