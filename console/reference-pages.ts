import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Marked } from 'marked';
import type { Plugin } from 'vite';

/**
 * The destination types' reference pages (docs/reference/destinations/<type>.md), rendered with marked at build
 * time into the console site as `reference/destinations/<type>.html`: the configuration form links to its
 * type's page. Links to another type's page stay in the site; other links into the repository have no page
 * there, so they read as their text.
 */
export const REFERENCE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/reference/destinations');

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function render(markdown: string): { title: string; html: string } {
  const marked = new Marked({
    renderer: {
      link({ href, tokens }) {
        const text = this.parser.parseInline(tokens);
        if (/^https?:\/\//.test(href)) return `<a href="${escape(href)}" rel="noopener noreferrer">${text}</a>`;
        const sibling = /^(?:\.\/)?([a-z0-9-]+)\.md(#[\w-]*)?$/.exec(href);
        if (sibling) return `<a href="${sibling[1]}.html${sibling[2] ?? ''}">${text}</a>`;
        if (href.startsWith('#')) return `<a href="${escape(href)}">${text}</a>`;
        return `<span>${text}</span>`;
      },
      html({ text }) {
        return escape(text);
      },
    },
  });
  const title = /^# (.+)$/m.exec(markdown)?.[1]?.replace(/`/g, '') ?? 'Destination reference';
  return { title, html: marked.parse(markdown, { async: false }) };
}

const page = (title: string, body: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escape(title)} · Weir reference</title>
    <link rel="stylesheet" href="reference.css" />
  </head>
  <body>
    <main>
${body}
    </main>
  </body>
</html>
`;

const CSS = `body{margin:0;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1b1f24;line-height:1.45}
main{max-width:60rem;margin:0 auto;padding:1rem}
table{border-collapse:collapse;display:block;overflow-x:auto}
th,td{border-bottom:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
pre{background:#f6f8fa;padding:.6rem;overflow:auto}code{overflow-wrap:anywhere}a{color:#0b57d0}
`;

/** Emits the pages (and their stylesheet) into the build, beside the console. */
export function referencePages(): Plugin {
  return {
    name: 'weir-reference-pages',
    apply: 'build',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'reference/destinations/reference.css', source: CSS });
      for (const file of readdirSync(REFERENCE_DIR).filter((f) => f.endsWith('.md'))) {
        const { title, html } = render(readFileSync(path.join(REFERENCE_DIR, file), 'utf8'));
        this.emitFile({ type: 'asset', fileName: `reference/destinations/${file.replace(/\.md$/, '.html')}`, source: page(title, html) });
      }
    },
  };
}
