/**
 * The viewer's page script. It runs in the browser, is inlined into index.html as the source text of
 * `viewerApp` (so it must stay self-contained: no imports, no outer variables), and renders from the
 * chunks the build wrote (`chunks/<key>.js`, each a call `S3V_CHUNK(key, data)`), loaded on demand
 * with a script element: that works from disk (file://) and over HTTP alike.
 *
 * Safety: model text is data. Every text node is created with createTextNode / textContent; no
 * innerHTML, no eval, no URL from the data (links are `#/run/<int>/...` built from numbers, or
 * `#/compare/<run id>/...` with the run ids percent-encoded). The
 * page's Content-Security-Policy (html.ts) forbids any external load and any inline script but this one.
 *
 * The build formats every number (the report's own formatters), so the page shows the report's digits.
 *
 * The kit compiles for Node (no DOM library in tsconfig, whose types would clash with Node's), so the
 * browser globals and element types are declared loosely here, for this file only.
 */
// biome-ignore-start lint/suspicious/noExplicitAny: the kit compiles without the DOM library (it clashes with Node's types), so this browser-only file types the page loosely
declare const document: any;
declare const window: any;
declare const location: any;
type Node = any;
type HTMLElement = any;
type SVGElement = any;
type HTMLSelectElement = any;
type HTMLButtonElement = any;
type KeyboardEvent = any;
// biome-ignore-end lint/suspicious/noExplicitAny: end of the loose browser types

export function viewerApp(): void {
  // biome-ignore lint/suspicious/noExplicitAny: the page's data chunks are JSON read without a schema (they are the kit's own output)
  type Any = any;
  const win = window as unknown as { S3V_CHUNK: (key: string, data: unknown) => void; S3V_STATE: Record<string, unknown> };
  const cache = new Map<string, unknown>();
  const waiting = new Map<string, { resolve: (d: unknown) => void; reject: (e: Error) => void }[]>();
  const state = { filters: { model: "", game: "", pathway: "", view: "", status: "" } as Record<string, string> };
  win.S3V_STATE = state as unknown as Record<string, unknown>;

  win.S3V_CHUNK = (key: string, data: unknown): void => {
    if (typeof key !== "string" || !waiting.has(key)) return; // only chunks this page asked for
    cache.set(key, data);
    // A run's episode and prompt files can be many MB: keep the last two of each, reload older ones on demand.
    for (const kind of ["d", "p"]) {
      if (!key.endsWith(kind)) continue;
      const big = [...cache.keys()].filter((k) => k.endsWith(kind));
      for (const k of big.slice(0, Math.max(0, big.length - 2))) cache.delete(k);
    }
    for (const w of waiting.get(key) ?? []) w.resolve(data);
    waiting.delete(key);
  };

  function load(key: string): Promise<Any> {
    if (!/^[a-z0-9]+$/.test(key)) return Promise.reject(new Error(`bad chunk key ${key}`));
    if (cache.has(key)) return Promise.resolve(cache.get(key));
    return new Promise((resolve, reject) => {
      const list = waiting.get(key);
      if (list) {
        list.push({ resolve, reject });
        return;
      }
      waiting.set(key, [{ resolve, reject }]);
      const s = document.createElement("script");
      s.src = `chunks/${key}.js`;
      s.onerror = () => {
        for (const w of waiting.get(key) ?? []) w.reject(new Error(`could not load chunks/${key}.js`));
        waiting.delete(key);
      };
      s.onload = () => s.remove();
      document.head.appendChild(s);
    });
  }

  type Child = Node | string | number | null | undefined | false;
  function h(tag: string, attrs: Record<string, string | undefined> | null, ...children: Child[]): HTMLElement {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === undefined) continue;
        // Only the viewer's own routes: numbers, and run ids percent-encoded (compare.ts encode).
        if (k === "href" && !/^#\/[A-Za-z0-9/._~%-]*$/.test(v)) continue;
        e.setAttribute(k, v);
      }
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return e;
  }
  const SVG = "http://www.w3.org/2000/svg";
  function s(tag: string, attrs: Record<string, string | number>): SVGElement {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  }
  function pre(text: string, cls?: string): HTMLElement {
    return h("pre", cls ? { class: cls } : null, text);
  }
  function statusBadge(status: string): HTMLElement {
    const known = ["complete", "failed", "degenerate", "ok"];
    return h("span", { class: `status ${known.includes(status) ? status : "other"}` }, status);
  }
  /** A number for the eye (at most 4 decimals; the exact value is in the element's title). */
  function fmtNum(x: number | null | undefined): string {
    if (x === null || x === undefined || Number.isNaN(x)) return "";
    return String(Math.round(x * 10000) / 10000);
  }

  const app = document.getElementById("app") as HTMLElement;
  // The run-against-run pages (compare.ts, inlined beside this script as S3V_COMPARE).
  const compare = (): Any => (win as unknown as { S3V_COMPARE: (api: unknown) => Any }).S3V_COMPARE({ h, load, page, statusBadge, fmtNum, pre, document, location });
  function page(title: string, ...body: Child[]): void {
    document.title = `${title} · s3gym view`;
    app.replaceChildren(h("header", { class: "top" }, h("a", { class: "brand", href: "#/" }, "s3gym view"), h("span", { class: "muted" }, title)), h("main", null, ...body));
  }
  function fail(e: unknown): void {
    page("error", h("p", { class: "status failed" }, String((e as Error)?.message ?? e)));
  }

  // ---------- overview ----------
  function sparkline(points: { x: number; y: number | null }[], w = 120, ht = 26): SVGElement {
    const svg = s("svg", { class: "spark", width: w, height: ht, viewBox: `0 0 ${w} ${ht}` });
    const ys = points.filter((p) => p.y !== null).map((p) => p.y as number);
    if (ys.length === 0 || points.length === 0) return svg;
    const xs = points.map((p) => p.x);
    const x0 = Math.min(...xs);
    const x1 = Math.max(...xs);
    const y0 = Math.min(...ys);
    const y1 = Math.max(...ys);
    const px = (x: number): number => (x1 === x0 ? w / 2 : 2 + ((x - x0) / (x1 - x0)) * (w - 4));
    const py = (y: number): number => (y1 === y0 ? ht / 2 : ht - 3 - ((y - y0) / (y1 - y0)) * (ht - 6));
    const pts = points.filter((p) => p.y !== null).map((p) => `${px(p.x).toFixed(1)},${py(p.y as number).toFixed(1)}`);
    svg.appendChild(s("polyline", { points: pts.join(" "), fill: "none", stroke: "#2f6fb3", "stroke-width": 1.5 }));
    for (const p of points) if (p.y === null) svg.appendChild(s("circle", { cx: px(p.x), cy: ht - 2, r: 1.8, fill: "#b42318" }));
    return svg;
  }

  async function overview(): Promise<void> {
    const idx: Any = await load("index");
    const f = state.filters;
    const keep = (r: Any): boolean =>
      (!f.model || r.model === f.model) &&
      (!f.game || r.game === f.game) &&
      (!f.pathway || r.pathway === f.pathway) &&
      (!f.view || (r.views as string[]).includes(f.view)) &&
      (!f.status || r.status === f.status);
    const runs = (idx.runs as Any[]).filter(keep);
    const select = (name: string, label: string, values: string[]): HTMLElement => {
      const sel = h("select", { "data-filter": name }, h("option", { value: "" }, "all"), ...values.map((v) => h("option", { value: v }, v))) as HTMLSelectElement;
      sel.value = f[name] ?? "";
      sel.addEventListener("change", () => {
        f[name] = sel.value;
        void overview();
      });
      return h("label", null, label, sel);
    };
    const games = (idx.facets.games as string[]).filter((g) => !f.game || g === f.game);
    const rowKeys: string[] = [];
    const cells = new Map<string, Any[]>();
    for (const r of runs) {
      const rk = `${r.model}\u0000${r.pathway}`;
      if (!cells.has(rk)) rowKeys.push(rk);
      const ck = `${rk}\u0000${r.game}`;
      cells.set(rk, [...(cells.get(rk) ?? []), r]);
      cells.set(ck, [...(cells.get(ck) ?? []), r]);
    }
    rowKeys.sort();
    const table = h(
      "table",
      { class: "matrix" },
      h("thead", null, h("tr", null, h("th", { class: "rowhead" }, "model"), h("th", { class: "rowhead second" }, "pathway"), ...games.map((g) => h("th", null, g)))),
      h(
        "tbody",
        null,
        ...rowKeys.map((rk) => {
          const [model, pathway] = rk.split("\u0000") as [string, string];
          return h(
            "tr",
            null,
            h("td", { class: "rowhead" }, model),
            h("td", { class: "rowhead second" }, pathway),
            ...games.map((g) => {
              const list = cells.get(`${rk}\u0000${g}`) ?? [];
              return h(
                "td",
                { class: "cell" },
                ...list.map((r) =>
                  h(
                    "a",
                    { class: "cellrun", href: `#/run/${r.i}`, "data-run": r.run_id, title: r.run_id },
                    statusBadge(r.status),
                    " ",
                    h("span", { class: "metric" }, r.training ? `y0 ${r.y0 || "–"} · dFinal ${r.dFinal || "–"}` : `Avg ${r.avg || "–"}`),
                    r.training ? null : h("div", { class: "metric" }, `NABA ${r.naba || "–"}`),
                    sparkline(r.spark),
                  ),
                ),
              );
            }),
          );
        }),
      ),
    );
    const statuses = [...new Set((idx.runs as Any[]).map((r) => r.status as string))].sort();
    page(
      "overview",
      h("h1", null, "Runs"),
      h(
        "p",
        { class: "muted" },
        `${idx.counts.runs} runs, ${idx.counts.episodes} episodes, ${idx.counts.steps} steps from ${(idx.dataDirs as string[]).join(", ")}. ` +
          `Avg and NABA as in \`s3gym report\` (${idx.bootstrap.method}, B = ${idx.bootstrap.B}, seed = ${idx.bootstrap.seed}).`,
      ),
      h(
        "div",
        { class: "filters" },
        select("model", "model", idx.facets.models),
        select("game", "game", idx.facets.games),
        select("pathway", "pathway", idx.facets.pathways),
        select("view", "view", idx.facets.views),
        select("status", "status", statuses),
        h("span", { class: "muted", id: "shown" }, `${runs.length} of ${idx.runs.length} runs shown`),
      ),
      compare().picker(runs),
      // Any number of games: the matrix scrolls sideways in its own box, model and pathway stay in view.
      h("div", { class: "matrixwrap" }, table),
      idx.warnings.length > 0
        ? h("details", null, h("summary", null, `${idx.warnings.length} loader warning(s)`), h("ul", { class: "warnings" }, ...(idx.warnings as string[]).map((w) => h("li", null, w))))
        : null,
    );
  }

  // ---------- run page ----------
  function curveChart(points: Any[], w = 560, ht = 240): SVGElement {
    const svg = s("svg", { class: "chart", width: w, height: ht, viewBox: `0 0 ${w} ${ht}`, role: "img" });
    if (points.length === 0) return svg;
    const m = { l: 46, r: 12, t: 10, b: 28 };
    const xs = points.map((p) => p.x as number);
    const vals = points.flatMap((p) => [p.y, p.lo, p.hi].filter((v) => typeof v === "number")) as number[];
    const x0 = Math.min(...xs);
    const x1 = Math.max(...xs);
    let y0 = Math.min(...vals);
    let y1 = Math.max(...vals);
    if (y1 === y0) {
      y0 -= 1;
      y1 += 1;
    }
    const px = (x: number): number => m.l + (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0)) * (w - m.l - m.r);
    const py = (y: number): number => ht - m.b - ((y - y0) / (y1 - y0)) * (ht - m.t - m.b);
    for (const t of [y0, (y0 + y1) / 2, y1]) {
      svg.appendChild(s("line", { x1: m.l, x2: w - m.r, y1: py(t), y2: py(t), stroke: "#e3e7eb" }));
      const label = s("text", { x: m.l - 4, y: py(t) + 4, "text-anchor": "end", "font-size": 10, fill: "#5f6b76" });
      label.textContent = fmtNum(t);
      svg.appendChild(label);
    }
    for (const x of xs) {
      const label = s("text", { x: px(x), y: ht - 10, "text-anchor": "middle", "font-size": 10, fill: "#5f6b76" });
      label.textContent = String(x);
      svg.appendChild(label);
    }
    const band = points.filter((p) => typeof p.lo === "number" && typeof p.hi === "number");
    if (band.length > 1) {
      const top = band.map((p) => `${px(p.x)},${py(p.hi)}`);
      const bottom = band.map((p) => `${px(p.x)},${py(p.lo)}`).reverse();
      svg.appendChild(s("polygon", { points: [...top, ...bottom].join(" "), fill: "#2f6fb3", "fill-opacity": 0.15, stroke: "none" }));
    }
    svg.appendChild(s("polyline", { points: points.map((p) => `${px(p.x)},${py(p.y)}`).join(" "), fill: "none", stroke: "#2f6fb3", "stroke-width": 2 }));
    for (const p of points) {
      const c = s("circle", { cx: px(p.x), cy: py(p.y), r: 3, fill: "#2f6fb3" });
      const t = s("title", {});
      t.textContent = `x = ${p.x}: y = ${p.yText}${p.loText ? ` [${p.loText}, ${p.hiText}]` : ""}`;
      c.appendChild(t);
      svg.appendChild(c);
    }
    return svg;
  }

  function kvTable(rows: [string, Child][]): HTMLElement {
    return h("table", { class: "kv" }, h("tbody", null, ...rows.map(([k, v]) => h("tr", null, h("th", null, k), h("td", null, v)))));
  }

  async function runPage(i: number): Promise<void> {
    const [run, idx]: Any[] = await Promise.all([load(`r${i}`), load("index")]);
    // The other runs of the same game: one click to compare against another model or pathway.
    const peers = (idx.runs as Any[]).filter((r) => r.game === run.game && r.run_id !== run.run_id);
    const enc = (id: string): string => compare().encode(id);
    const comparePeers =
      peers.length === 0
        ? null
        : h(
            "details",
            { class: "comparepick", id: "compare-peers" },
            h("summary", null, `Compare with another run of ${run.game} (${peers.length})`),
            h(
              "ul",
              null,
              ...peers.map((r) => h("li", null, h("a", { href: `#/compare/${enc(run.run_id)}/${enc(r.run_id)}` }, `${r.model} · ${r.pathway}`), " ", h("span", { class: "muted small" }, r.run_id))),
            ),
          );
    const epLink = (j: number, text: string): HTMLElement => h("a", { href: `#/run/${i}/ep/${j}` }, text);
    const metrics = h(
      "table",
      { id: "metrics" },
      h("thead", null, h("tr", null, ...(run.metrics as Any[]).map((m) => h("th", null, m.name)))),
      h("tbody", null, h("tr", null, ...(run.metrics as Any[]).map((m) => h("td", { class: "num", "data-metric": m.name }, m.text)))),
    );
    const curveTable = h(
      "table",
      { id: "curve" },
      h("thead", null, h("tr", null, h("th", null, "x"), h("th", null, "y(x)"), h("th", null, "lo"), h("th", null, "hi"))),
      h(
        "tbody",
        null,
        ...(run.curve as Any[]).map((p) =>
          h("tr", { "data-x": String(p.x) }, h("td", { class: "num" }, p.x), h("td", { class: "num" }, p.yText), h("td", { class: "num" }, p.loText), h("td", { class: "num" }, p.hiText)),
        ),
      ),
    );
    const checkpoints = h(
      "table",
      { id: "checkpoints" },
      h("thead", null, h("tr", null, h("th", null, "x"), h("th", null, "status"), h("th", null, "mean"), h("th", null, "episode scores"), h("th", null, "reason"))),
      h(
        "tbody",
        null,
        ...(run.checkpoints as Any[]).map((c) =>
          h(
            "tr",
            null,
            h("td", { class: "num" }, c.x),
            h("td", null, statusBadge(c.status)),
            h("td", { class: "num" }, c.mean),
            h("td", null, ...(c.episodes as Any[]).flatMap((e, k) => [k > 0 ? " · " : null, epLink(e.j, `${e.label}: ${e.score}`)])),
            h("td", null, c.reason ?? ""),
          ),
        ),
      ),
    );
    const episodes = h(
      "table",
      { id: "episodes" },
      h("thead", null, h("tr", null, ...["episode", "phase", "checkpoint", "view", "seed", "status", "score", "steps", "over-confident", "parse errors"].map((t) => h("th", null, t)))),
      h(
        "tbody",
        null,
        ...(run.episodes as Any[]).map((e) =>
          h(
            "tr",
            null,
            h("td", null, epLink(e.j, e.label)),
            h("td", null, e.phase),
            h("td", { class: "num" }, e.checkpoint ?? ""),
            h("td", null, e.phase === "eval" ? e.view : ""),
            h("td", { class: "num" }, e.seed),
            h("td", null, statusBadge(e.status), e.error ? ` ${e.error}` : ""),
            h("td", { class: "num" }, e.score),
            h("td", { class: "num" }, e.steps),
            h("td", { class: "num" }, e.over),
            h("td", { class: "num" }, e.parseErrors),
          ),
        ),
      ),
    );
    const memory = (run.memory as Any[]).map((v) =>
      h(
        "details",
        { class: "memver" },
        h("summary", null, `version ${v.after_episode}${v.parsed ? "" : " (reply rejected: previous memory kept)"}${v.error ? ` — ${v.error}` : ""}`),
        h("div", { class: "diff" }, ...(v.diff as Any[]).map((d) => h("div", { class: d.op === "+" ? "add" : d.op === "-" ? "del" : "same" }, `${d.op === "=" ? " " : d.op} ${d.text}`))),
      ),
    );
    // A count by kind (tokens_counted_by: {server: 40}) is an object: its entries, not "[object Object]".
    const usageCell = (v: unknown): string =>
      v === null
        ? "(no price known)"
        : typeof v === "number"
          ? fmtNum(v)
          : typeof v === "object"
            ? Object.entries(v as Record<string, unknown>)
                .map(([k, x]) => `${k}: ${String(x)}`)
                .join(", ") || "(none)"
            : String(v);
    const usage = run.usage ? kvTable(Object.entries(run.usage as Record<string, unknown>).map(([k, v]) => [k, usageCell(v)])) : h("p", { class: "muted" }, "no calls.jsonl");
    page(
      run.run_id,
      h("h1", null, `${run.model} · ${run.game} · ${run.pathway}`),
      h("p", null, statusBadge(run.status), " ", h("span", { class: "mono" }, run.run_id), " ", h("span", { class: "muted" }, run.statusNote)),
      comparePeers,
      h("h2", null, run.training ? "Training curve (epochs)" : "Curve"),
      h("p", { class: "muted small" }, run.curveNote),
      metrics,
      curveChart(run.curve),
      curveTable,
      h("h2", null, "Checkpoints"),
      checkpoints,
      run.memory.length > 0 ? h("h2", null, "Memory versions (diff from the previous version)") : null,
      ...memory,
      h("h2", null, "Episodes"),
      episodes,
      h("h2", null, "Cost and tokens"),
      h("p", { class: "muted small" }, run.usageNote),
      usage,
      h("h2", null, "Manifest"),
      run.manifest === null ? h("p", { class: "muted" }, "no manifest.json") : pre(run.manifest),
    );
  }

  // ---------- episode page ----------
  function bar(v: number | null, scale: number, cls: string): HTMLElement {
    const b = h("div", { class: "bar" }, h("div", { class: "axis" }));
    if (v === null || scale <= 0) return b;
    const f = h("div", { class: `fill ${cls}${cls === "r" ? (v > 0 ? " pos" : v < 0 ? " neg" : "") : ""}` });
    const frac = Math.min(1, Math.abs(v) / scale) * 50;
    f.style.width = `${frac}%`;
    f.style.left = v >= 0 ? "50%" : `${50 - frac}%`;
    b.appendChild(f);
    return b;
  }

  async function episodePage(i: number, j: number, focusStep: number | null): Promise<void> {
    const [eps, run]: Any[] = await Promise.all([load(`r${i}d`), load(`r${i}`)]);
    const ep: Any = eps.eps[j];
    if (!ep) throw new Error(`run ${i} has no episode ${j}`);
    const steps = ep.steps as Any[];
    const order = (run.episodes as Any[]).map((e) => e.j as number);
    const at = order.indexOf(j);
    const prevEp = at > 0 ? order[at - 1] : undefined;
    const nextEp = at >= 0 && at + 1 < order.length ? order[at + 1] : undefined;
    const sections: HTMLElement[] = steps.map((st) => {
      const badges: Child[] = [
        st.valid ? h("span", { class: "badge good" }, "valid") : h("span", { class: "badge bad" }, "invalid"),
        st.over ? h("span", { class: "badge warn" }, "over-confident (s > 0, r <= 0)") : null,
        st.parse_error !== null ? h("span", { class: "badge bad" }, "parse error") : null,
        st.cached ? h("span", { class: "badge" }, "cached") : null,
        st.done ? h("span", { class: "badge" }, "done") : null,
      ];
      const promptBox = h("div", { class: "prompt" });
      const promptButton = h("button", { type: "button", class: "prompt-button" }, "show the exact prompt") as HTMLButtonElement;
      promptButton.addEventListener("click", () => {
        void showPrompt(ep, st, promptBox).then(() => {
          promptButton.textContent = promptBox.childNodes.length > 0 ? "hide the prompt" : "show the exact prompt";
        });
      });
      const sec = h(
        "section",
        {
          class: `step${st.over ? " over" : ""}${st.parse_error !== null ? " perr" : ""}`,
          id: `step-${st.step}`,
          tabindex: "-1",
          "data-step": String(st.step),
          "data-over": st.over ? "1" : "0",
          "data-parse-error": st.parse_error !== null ? "1" : "0",
        },
        // Counted from 1 as the observation counts ("Step 1 of 16"); the log's `step` field counts from 0.
        h("h3", { title: `step ${st.step} in steps.jsonl (counted from 0)` }, `Step ${st.step + 1}`, ...badges),
        h(
          "div",
          { class: "judge" },
          h("span", { class: "label" }, "self-score s"),
          h("span", { class: "mono", "data-field": "self_score", title: st.self_score === null ? "unscored" : String(st.self_score) }, st.self_score === null ? "(none)" : fmtNum(st.self_score)),
          bar(st.self_score, ep.scale, "s"),
          h("span", { class: "label" }, "reward r"),
          h("span", { class: "mono", "data-field": "reward", title: String(st.reward) }, fmtNum(st.reward)),
          bar(st.reward, ep.scale, "r"),
          h("span", { class: "label" }, "score after"),
          h("span", { class: "mono", title: String(st.score_after) }, fmtNum(st.score_after)),
          h("span", null),
        ),
        h(
          "div",
          { class: "cols" },
          h("div", null, h("div", { class: "label" }, "observation (as the model saw it)"), pre(st.observation, "obs")),
          h(
            "div",
            null,
            h("div", { class: "label" }, "response"),
            st.reasoning ? h("details", { class: "reasoning" }, h("summary", null, `reasoning (${st.reasoning.length} characters)`), pre(st.reasoning)) : null,
            pre(st.answer, "response"),
            st.action !== null ? h("div", null, h("span", { class: "label" }, "parsed action: "), h("code", { "data-field": "action" }, st.action)) : null,
            st.parse_error !== null ? h("div", null, h("span", { class: "label" }, "parse error: "), h("span", { class: "status failed", "data-field": "parse_error" }, st.parse_error)) : null,
            h("div", { class: "label" }, "feedback"),
            pre(st.feedback || "(none)", "feedback"),
          ),
        ),
        st.retrieved !== undefined
          ? h("div", { class: "small" }, h("span", { class: "label" }, "retrieved earlier exploration steps it saw (hybrid): "), h("span", { "data-field": "retrieved" }, st.retrieved))
          : null,
        h("div", { class: "small muted" }, `tokens in ${st.tokens_in} · out ${st.tokens_out} · latency ${st.latency_ms} ms`),
        ep.prompt === true ? promptButton : h("div", { class: "small muted" }, `prompt not available: ${ep.prompt}`),
        promptBox,
      );
      return sec;
    });
    let current = -1;
    const status = h("span", { class: "muted", id: "navstatus" }, "");
    const go = (k: number): void => {
      if (k < 0 || k >= sections.length) return;
      sections[current]?.classList.remove("current");
      current = k;
      const sec = sections[k] as HTMLElement;
      sec.classList.add("current");
      sec.focus({ preventScroll: true });
      sec.scrollIntoView({ block: "start" });
      status.textContent = `at step ${steps[k].step + 1}`;
    };
    const seek = (dir: 1 | -1, test: (st: Any) => boolean, what: string): void => {
      for (let k = current + dir; k >= 0 && k < steps.length; k += dir) {
        if (test(steps[k])) {
          go(k);
          return;
        }
      }
      status.textContent = `no ${dir > 0 ? "further" : "earlier"} ${what}`;
    };
    const isOver = (st: Any): boolean => st.over;
    const isErr = (st: Any): boolean => st.parse_error !== null;
    const button = (label: string, fn: () => void): HTMLElement => {
      const b = h("button", { type: "button" }, label);
      b.addEventListener("click", fn);
      return b;
    };
    const nOver = steps.filter(isOver).length;
    const nErr = steps.filter(isErr).length;
    page(
      `${ep.run_id} · ${ep.title}`,
      h(
        "p",
        { class: "epnav" },
        h("a", { href: `#/run/${i}` }, `↑ ${ep.run_id}`),
        prevEp !== undefined ? h("a", { href: `#/run/${i}/ep/${prevEp}`, id: "prev-episode" }, "← previous episode") : null,
        nextEp !== undefined ? h("a", { href: `#/run/${i}/ep/${nextEp}`, id: "next-episode" }, "next episode →") : null,
      ),
      h("h1", null, ep.title),
      kvTable([
        ["status", h("span", null, statusBadge(ep.status), ep.error ? ` ${ep.error}` : "")],
        ["score (verifier)", String(ep.score)],
        ["phase / config / view", `${ep.phase} / ${ep.config} / ${ep.view}`],
        ["seed", String(ep.seed)],
        ["steps", `${steps.length} (${nOver} over-confident, ${nErr} parse errors)`],
        ["time", `${ep.started_at ?? "?"} → ${ep.ended_at ?? "?"}`],
      ]),
      h(
        "div",
        { class: "toolbar" },
        button("← prev step (k)", () => go(current - 1)),
        button("next step (j) →", () => go(current + 1)),
        button(`next over-confident (n) [${nOver}]`, () => seek(1, isOver, "over-confident step")),
        button("previous over-confident (p)", () => seek(-1, isOver, "over-confident step")),
        button(`next parse error (e) [${nErr}]`, () => seek(1, isErr, "parse error")),
        status,
      ),
      ...sections,
      ep.end_observation ? h("h2", null, "End state") : null,
      ep.end_observation ? pre(ep.end_observation) : null,
    );
    document.onkeydown = (ev: KeyboardEvent): void => {
      const t = ev.target as HTMLElement | null;
      if (ev.ctrlKey || ev.metaKey || ev.altKey || (t && /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName))) return;
      if (ev.key === "n") seek(1, isOver, "over-confident step");
      else if (ev.key === "p") seek(-1, isOver, "over-confident step");
      else if (ev.key === "e") seek(1, isErr, "parse error");
      else if (ev.key === "j") go(current + 1);
      else if (ev.key === "k") go(current - 1);
      else return;
      ev.preventDefault();
    };
    if (focusStep !== null) {
      const k = steps.findIndex((st) => st.step === focusStep);
      if (k >= 0) go(k);
    } else window.scrollTo(0, 0);
  }

  async function showPrompt(ep: Any, st: Any, box: HTMLElement): Promise<void> {
    if (box.childNodes.length > 0) {
      box.replaceChildren();
      return;
    }
    try {
      const file: Any = await load(`r${ep.i}p`);
      const p: Any = file.eps[ep.j];
      if (!p) throw new Error("this episode has no rebuilt prompts");
      const k = (p.steps as Any[]).findIndex((x) => x.step === st.step);
      if (k < 0) throw new Error("this step has no rebuilt prompt");
      // prompts.ts's unpackPrompt, inlined into the page as S3V_UNPACK (html.ts): one implementation.
      // The turns come from this episode's steps (the episode file), which the prompt file refers to.
      const messages: Any[] = (win as unknown as { S3V_UNPACK: (texts: unknown, p: unknown, k: number, shown: unknown) => Any[] }).S3V_UNPACK(file.texts, p, k, ep.steps);
      box.replaceChildren(
        h("div", { class: "small muted" }, `${messages.length} messages, ${messages.reduce((a, m) => a + m.content.length, 0)} characters, rebuilt from the logs`),
        ...messages.map((m) => h("div", { class: "msg" }, h("div", { class: "role" }, m.role), pre(m.content))),
      );
    } catch (e) {
      box.replaceChildren(h("p", { class: "status failed" }, String((e as Error).message)));
    }
  }

  function route(): void {
    document.onkeydown = null;
    const hash = location.hash || "#/";
    let m: RegExpExecArray | null;
    const dec = (x: string | undefined): string => {
      try {
        return decodeURIComponent(x ?? "");
      } catch {
        return "";
      }
    };
    if ((m = /^#\/compare\/([^/]+)\/([^/]+)\/ep\/([^/]+)\/(\d+)\/(\d+)$/.exec(hash))) void compare().pairPage(dec(m[1]), dec(m[2]), dec(m[3]), Number(m[4]), Number(m[5])).catch(fail);
    else if ((m = /^#\/compare\/([^/]+)\/([^/]+)$/.exec(hash))) void compare().comparePage(dec(m[1]), dec(m[2])).catch(fail);
    else if ((m = /^#\/run\/(\d+)\/ep\/(\d+)(?:\/step\/(\d+))?$/.exec(hash))) void episodePage(Number(m[1]), Number(m[2]), m[3] === undefined ? null : Number(m[3])).catch(fail);
    else if ((m = /^#\/run\/(\d+)$/.exec(hash))) void runPage(Number(m[1])).catch(fail);
    else void overview().catch(fail);
  }
  window.addEventListener("hashchange", route);
  route();
}
