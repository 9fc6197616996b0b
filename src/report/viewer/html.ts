/**
 * index.html: the one page of the site. Styles and the page script are inlined (no external URL is
 * ever loaded: no fonts, scripts or styles from elsewhere, so the site works offline), and a
 * Content-Security-Policy pins what may run: only this page's own inline script and style (by hash)
 * and the chunk scripts beside it ('self'); no other origin, no images, no fetches, no forms, no plugins.
 * Model text cannot run even if some renderer bug put it into markup: inline handlers
 * (`<img onerror>`), `javascript:` URLs and injected `<script>` elements all fall outside the policy.
 */
import { createHash } from "node:crypto";
import { viewerApp } from "./client.js";
import { compareViews } from "./compare.js";
import { unpackPrompt } from "./prompts.js";
import { VIEWER_CSS } from "./style.js";

function sha256(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/**
 * The page script: viewerApp's own source, run at once, with the prompt unpacker beside it. The
 * `__name` shim keeps the source valid when it comes from a transpiler that annotates function names
 * (tsx/esbuild's keepNames), so the same page works from `dist/` and from the sources.
 */
export function pageScript(): string {
  return [
    '"use strict";',
    "var __name = function (f) { return f; };",
    `var S3V_UNPACK = (${unpackPrompt.toString()});`,
    `var S3V_COMPARE = (${compareViews.toString()});`,
    `(${viewerApp.toString()})();`,
  ].join("\n");
}

/** The Content-Security-Policy of the page (also sent as a header by `s3gym view --serve`). */
export function contentSecurityPolicy(script: string = pageScript()): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${sha256(script)}`,
    `style-src ${sha256(VIEWER_CSS)}`,
    "img-src 'none'",
    "font-src 'none'",
    "connect-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

/** The whole index.html. */
export function indexHtml(): string {
  const script = pageScript();
  if (script.includes("</script")) throw new Error("page script contains '</script': it cannot be inlined");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(script)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>s3gym view</title>
<style>${VIEWER_CSS}</style>
</head>
<body>
<div id="app">Loading…</div>
<noscript>The s3gym viewer needs JavaScript (its own inline script only; nothing is loaded from elsewhere).</noscript>
<script>${script}</script>
</body>
</html>
`;
}
