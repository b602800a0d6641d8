// Syntax highlighting of the answer's fenced code blocks, for the
// languages people ask an agent about. Only blocks that name their
// language are highlighted: guessing costs time on every streamed chunk
// and guesses wrong on short snippets. The colours come from the VS Code
// theme (chat.css maps highlight.js's classes to the theme's variables).

import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import lua from 'highlight.js/lib/languages/lua';
import makefile from 'highlight.js/lib/languages/makefile';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const languages = {
  bash, c, cpp, css, diff, dockerfile, go, ini, java, javascript, json, lua, makefile, markdown, python, rust, shell, sql,
  typescript, xml, yaml,
};
for (const [name, lang] of Object.entries(languages)) {
  hljs.registerLanguage(name, lang);
}

/**
 * highlight returns code as escaped HTML with highlight.js's spans, or ''
 * (markdown-it then escapes the code itself) when lang is not one of the
 * registered languages or their aliases (ts, py, sh, yml, html, …).
 */
export function highlight(code: string, lang: string): string {
  const name = lang.trim().split(/\s+/)[0].toLowerCase();
  if (name === '' || !hljs.getLanguage(name)) {
    return '';
  }
  try {
    return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  } catch {
    return '';
  }
}
