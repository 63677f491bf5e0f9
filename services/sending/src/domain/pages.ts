import { escapeHtml } from "@mailroom/kit";

/**
 * The subscription pages (decisions.md §6): one small, self-contained, accessible HTML page each.
 * No script, no outside resource; a GET only ever shows a form, the POST does the change.
 */

export interface PageAction {
  /** Absolute URL the form POSTs to. */
  url: string;
  label: string;
}

export interface Page {
  title: string;
  message: string;
  /** The address the page is about, shown so the reader knows which one it is. */
  address?: string;
  action?: PageAction;
  /** A second, less prominent form (e.g. "resubscribe" after unsubscribing). */
  secondary?: PageAction;
  /** The manage page's topics: one checkbox each, in a form that POSTs `topic=<id>` per checked box. */
  topics?: { url: string; items: Array<{ id: string; name: string; description: string | null; checked: boolean }> };
}

const topicForm = (t: NonNullable<Page["topics"]>) =>
  `<form method="post" action="${escapeHtml(t.url)}"><fieldset><legend>Topics</legend>
<input type="hidden" name="topics" value="1">
${t.items
  .map(
    (i) =>
      `<div class="topic"><label><input type="checkbox" name="topic" value="${escapeHtml(i.id)}"${i.checked ? " checked" : ""}> ${escapeHtml(i.name)}</label>` +
      `${i.description ? `<div class="hint">${escapeHtml(i.description)}</div>` : ""}</div>`,
  )
  .join("\n")}
</fieldset><button type="submit">Save my topics</button></form>`;

const STYLE = `
  :root { color-scheme: light dark; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f5f5f4; color: #1c1917; }
  main { max-width: 28rem; margin: 12vh auto; padding: 2rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 3px rgb(0 0 0 / .12); }
  h1 { font-size: 1.4rem; margin: 0 0 .75rem; }
  p { margin: 0 0 1.25rem; }
  .address { font-weight: 600; overflow-wrap: anywhere; }
  form { margin: 0 0 .75rem; }
  fieldset { border: 1px solid #d6d3d1; border-radius: 8px; margin: 0 0 1rem; padding: .5rem 1rem 1rem; }
  .topic { margin: .5rem 0; } .hint { font-size: .9rem; opacity: .8; margin-left: 1.6rem; }
  button { font: inherit; padding: .65rem 1.2rem; border-radius: 8px; border: 0; background: #1d4ed8; color: #fff; cursor: pointer; }
  button.secondary { background: transparent; color: #1d4ed8; padding: .3rem 0; text-decoration: underline; }
  button:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
  @media (prefers-color-scheme: dark) {
    body { background: #1c1917; color: #f5f5f4; } main { background: #292524; }
    button.secondary { color: #93c5fd; }
  }`;

const form = (a: PageAction, cls = "") =>
  `<form method="post" action="${escapeHtml(a.url)}"><button type="submit"${cls ? ` class="${cls}"` : ""}>${escapeHtml(a.label)}</button></form>`;

export function renderPage(p: Page): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(p.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(p.title)}</h1>
${p.address ? `<p>Address: <span class="address">${escapeHtml(p.address)}</span></p>` : ""}
<p role="status">${escapeHtml(p.message)}</p>
${p.topics && p.topics.items.length > 0 ? topicForm(p.topics) : ""}
${p.action ? form(p.action) : ""}
${p.secondary ? form(p.secondary, "secondary") : ""}
</main>
</body>
</html>
`;
}

/** Headers of every page: never cached or indexed, never framed. */
export const PAGE_HEADERS = {
  "cache-control": "no-store",
  "x-robots-tag": "noindex, nofollow",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};
