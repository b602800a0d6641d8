// The extension's copy of the event contract (src/events.ts: AgentEvent,
// Usage, Hunk; src/chat/entries.ts: Todo) against docs/events.schema.json,
// the one description the Go and Neovim tests read too: every field of
// the schema is declared with a matching type, and nothing else is.
// Run: npm run test:unit
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as ts from 'typescript';

// The extension's folder: the tests run from it (npm run test:unit,
// test/e2e.sh), bundled into a temporary folder, so __dirname is not in
// the repository.
const root = process.cwd();
if (!fs.existsSync(path.join(root, 'src', 'events.ts'))) {
  throw new Error(`schema.test: run from editors/vscode (the working folder ${root} has no src/events.ts)`);
}
const schemaFile = path.resolve(root, '..', '..', 'docs', 'events.schema.json');

interface SchemaNode {
  type?: string;
  enum?: unknown[];
  $ref?: string;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  $defs?: Record<string, SchemaNode>;
}

/** The interfaces a source file declares: name → property → (type text, optional). */
function interfaces(file: string): Map<string, Map<string, { type: string; optional: boolean }>> {
  const src = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out = new Map<string, Map<string, { type: string; optional: boolean }>>();
  src.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node)) {
      return;
    }
    const props = new Map<string, { type: string; optional: boolean }>();
    for (const m of node.members) {
      if (ts.isPropertySignature(m) && m.type) {
        props.set(m.name.getText(src), { type: m.type.getText(src), optional: m.questionToken !== undefined });
      }
    }
    out.set(node.name.text, props);
  });
  return out;
}

/** The TypeScript a schema node becomes: string, number, boolean, X[], an interface's name, or unknown. */
function tsType(n: SchemaNode, defNames: Record<string, string>): string {
  if (n.$ref) {
    return defNames[n.$ref.replace('#/$defs/', '')] ?? `unknown def ${n.$ref}`;
  }
  if (n.type === 'array' && n.items) {
    return `${tsType(n.items, defNames)}[]`;
  }
  switch (n.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
  }
  if (n.enum && typeof n.enum[0] === 'string') {
    return 'string';
  }
  return 'unknown';
}

/** Whether a declared type accepts what the schema says (a string enum may be a union of its literals and string). */
function accepts(declared: string, want: string): boolean {
  if (declared === want) {
    return true;
  }
  return want === 'string' && declared.split('|').map((s) => s.trim()).includes('string');
}

function compare(name: string, declared: Map<string, { type: string; optional: boolean }> | undefined, node: SchemaNode, defNames: Record<string, string>): string[] {
  if (!declared) {
    return [`interface ${name} is not declared`];
  }
  const errs: string[] = [];
  const props = node.properties ?? {};
  for (const [field, p] of Object.entries(props)) {
    const d = declared.get(field);
    const want = tsType(p, defNames);
    if (!d) {
      errs.push(`${name}.${field} (${want}) is in the schema but not declared`);
      continue;
    }
    if (!accepts(d.type, want)) {
      errs.push(`${name}.${field} is declared ${d.type}, the schema says ${want}`);
    }
    const required = (node.required ?? []).includes(field);
    if (required === d.optional && name !== 'AgentEvent') {
      errs.push(`${name}.${field} is ${d.optional ? 'optional' : 'required'} here, ${required ? 'required' : 'optional'} in the schema`);
    }
  }
  for (const field of declared.keys()) {
    if (!(field in props)) {
      errs.push(`${name}.${field} is declared but not in the schema`);
    }
  }
  return errs;
}

test('schema: AgentEvent, Usage, Hunk and Todo match docs/events.schema.json', () => {
  const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8')) as SchemaNode;
  const defNames = { hunk: 'Hunk', usage: 'Usage', todo: 'Todo' };
  const events = interfaces(path.join(root, 'src', 'events.ts'));
  const entries = interfaces(path.join(root, 'src', 'chat', 'entries.ts'));
  const defs = schema.$defs ?? {};
  const errs = [
    ...compare('AgentEvent', events.get('AgentEvent'), schema, defNames),
    ...compare('Usage', events.get('Usage'), defs.usage, defNames),
    ...compare('Hunk', events.get('Hunk'), defs.hunk, defNames),
    ...compare('Todo', entries.get('Todo'), defs.todo, defNames),
  ];
  assert.deepEqual(errs, []);
});
