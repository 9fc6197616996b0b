/** The viewer's stylesheet, inlined into index.html (no external fonts or styles: the site works offline). */
export const VIEWER_CSS = `
:root { --fg: #1d2329; --muted: #5f6b76; --line: #d5dbe1; --bg: #ffffff; --panel: #f5f7f9; --ok: #1d7a3a; --bad: #b42318; --warn: #9a6700; --pos: #2f6fb3; --neg: #c2410c; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; gap: 16px; align-items: baseline; padding: 10px 18px; border-bottom: 1px solid var(--line); background: var(--panel); position: sticky; top: 0; z-index: 2; }
header.top .brand { font-weight: 700; }
header.top a { color: inherit; }
main { padding: 14px 18px 60px; max-width: 1400px; min-width: 0; }
h1 { font-size: 20px; margin: 4px 0 10px; }
h2 { font-size: 16px; margin: 22px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 3px; }
a { color: #1f5fa8; text-decoration: none; }
a:hover { text-decoration: underline; }
.muted { color: var(--muted); }
.small { font-size: 12px; }
pre, code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; padding: 6px 8px; background: var(--panel); border: 1px solid var(--line); border-radius: 4px; max-height: 520px; overflow: auto; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid var(--line); padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.filters { display: flex; flex-wrap: wrap; gap: 12px; margin: 6px 0 12px; align-items: center; }
.filters label { display: flex; gap: 4px; align-items: center; }
.matrix td.cell { min-width: 150px; }
.matrixwrap { overflow: auto; max-width: 100%; max-height: calc(100vh - 120px); border: 1px solid var(--line); }
.matrixwrap .matrix { margin: 0; }
.matrix thead th { position: sticky; top: 0; z-index: 1; }
.matrix .rowhead { position: sticky; left: 0; background: var(--bg); z-index: 1; min-width: 150px; max-width: 150px; overflow-wrap: anywhere; }
.matrix .rowhead.second { left: 150px; min-width: 90px; max-width: 90px; }
.matrix thead th.rowhead { z-index: 2; background: var(--panel); }
.cellrun { display: block; padding: 2px 0; color: inherit; }
.cellrun + .cellrun { border-top: 1px dashed var(--line); }
.status { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 11px; font-weight: 600; border: 1px solid currentColor; }
.status.complete, .status.ok { color: var(--ok); }
.status.failed { color: var(--bad); }
.status.degenerate { color: var(--warn); }
.status.other { color: var(--muted); }
.metric { font-variant-numeric: tabular-nums; font-size: 12px; }
svg.spark { display: block; margin-top: 2px; }
.chart { border: 1px solid var(--line); background: #fff; }
.step { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; margin: 10px 0; scroll-margin-top: 100px; }
.step.current { outline: 3px solid #f5b301; }
.step.over { border-left: 5px solid var(--neg); }
.step.perr { border-left: 5px solid var(--bad); }
.step h3 { margin: 0 0 6px; font-size: 14px; display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.badge { font-size: 11px; padding: 0 6px; border-radius: 9px; background: var(--panel); border: 1px solid var(--line); font-weight: 600; }
.badge.bad { color: var(--bad); border-color: var(--bad); }
.badge.warn { color: var(--neg); border-color: var(--neg); }
.badge.good { color: var(--ok); border-color: var(--ok); }
.judge { display: grid; grid-template-columns: 90px 80px 260px; gap: 2px 8px; align-items: center; margin: 4px 0 8px; }
.bar { position: relative; height: 12px; background: var(--panel); border: 1px solid var(--line); }
.bar .axis { position: absolute; left: 50%; top: -2px; bottom: -2px; width: 1px; background: var(--muted); }
.bar .fill { position: absolute; top: 0; bottom: 0; }
.bar .fill.s { background: var(--pos); }
.bar .fill.r { background: #7c8a96; }
.bar .fill.r.pos { background: var(--ok); }
.bar .fill.r.neg { background: var(--bad); }
.cols { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; }
@media (max-width: 900px) { .cols { grid-template-columns: minmax(0, 1fr); } }
.label { color: var(--muted); font-size: 12px; }
.toolbar { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; position: sticky; top: 41px; background: var(--bg); padding: 6px 0; z-index: 1; border-bottom: 1px solid var(--line); }
button { font: inherit; font-size: 13px; padding: 2px 9px; border: 1px solid var(--line); background: var(--panel); border-radius: 4px; cursor: pointer; }
button:hover { background: #e8edf2; }
.diff .add { background: #e6f4ea; }
.diff .del { background: #fdecea; text-decoration: line-through; color: #7a271a; }
.diff div { white-space: pre-wrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
.msg { margin: 6px 0; }
.msg .role { font-weight: 700; font-size: 12px; text-transform: uppercase; color: var(--muted); }
details > summary { cursor: pointer; color: var(--muted); }
.warnings li { color: var(--warn); }
.kv th { width: 180px; }
.epnav { display: flex; gap: 18px; }
tr.flip td { background: #fff4e5; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; }
.pairrow { scroll-margin-top: 60px; }
.pairrow.firstdiff { outline: 3px solid #f5b301; border-radius: 6px; padding: 2px 4px; }
.diffnote { font-weight: 700; color: var(--warn); margin-top: 8px; }
.comparepick { margin: 12px 0; }
`;
