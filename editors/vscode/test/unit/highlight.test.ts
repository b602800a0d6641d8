// Unit tests of the chat's code highlighting (webview/highlight.ts): the
// languages named on a fence are coloured, everything else is left for
// markdown-it to escape, and the model's text never becomes markup.
// Run: npm run test:unit
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { highlight } from '../../webview/highlight';

test('a named language gets highlight.js spans', () => {
  const html = highlight('func main() { fmt.Println("hi") }', 'go');
  assert.match(html, /<span class="hljs-keyword">func<\/span>/);
  assert.match(html, /<span class="hljs-string">&quot;hi&quot;<\/span>/);
});

test('aliases and info strings with more words are understood', () => {
  assert.match(highlight('const x: number = 1', 'ts'), /hljs-keyword/);
  assert.match(highlight('def f(): pass', 'py title="f.py"'), /hljs-keyword/);
  assert.match(highlight('echo "$HOME"', 'sh'), /hljs-/);
  assert.match(highlight('a: 1', 'YML'), /hljs-attr/);
});

test('an unnamed or unknown language is left to markdown-it', () => {
  assert.equal(highlight('func main() {}', ''), '');
  assert.equal(highlight('anything', 'brainfudge'), '');
});

test("the model's markup is escaped, never passed through", () => {
  // Once highlight.js's own spans are taken out, no markup is left.
  const bare = (html: string) => html.replace(/<span class="[a-z_ -]+">|<\/span>/g, '');
  const html = highlight('<script>alert(1)</script><img src=x onerror=alert(1)>', 'html');
  assert.match(html, /hljs-tag/);
  assert.equal(bare(html), '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
  const go = highlight('s := "</span><b>x</b>"', 'go');
  assert.equal(bare(go), 's := &quot;&lt;/span&gt;&lt;b&gt;x&lt;/b&gt;&quot;');
});
