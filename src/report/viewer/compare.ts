/**
 * The viewer's run-against-run pages (page side, like client.ts): inlined into index.html as the
 * source of `compareViews` (html.ts), so it must stay self-contained; the page script hands it the
 * helpers it renders with (`api`) and gets back the picker and the two pages.
 *
 * - `#/compare/<run A>/<run B>`: the two runs' evaluation episodes paired by (view, checkpoint,
 *   seed), the episodes that FLIPPED first (solved in one run, not in the other: the game's success
 *   threshold, games/successThreshold.ts), then every pair with both scores and their difference.
 * - `#/compare/<run A>/<run B>/ep/<view>/<x>/<seed>`: the two trajectories side by side, step by
 *   step, opened at the first step where they differ (observation or parsed action).
 *
 * Links name runs by their run ids (URI-encoded), never by their position in a build, so a link
 * stays right when the data set grows. Run ids and model text are data: text nodes only.
 */
// biome-ignore lint/suspicious/noExplicitAny: runs in the browser on the kit's own JSON chunks, without the DOM library's types
type Any = any;

/** What the page script hands over (client.ts). */
export interface CompareApi {
  h: (tag: string, attrs: Record<string, string | undefined> | null, ...children: Any[]) => Any;
  load: (key: string) => Promise<Any>;
  page: (title: string, ...body: Any[]) => void;
  statusBadge: (status: string) => Any;
  fmtNum: (x: number | null | undefined) => string;
  pre: (text: string, cls?: string) => Any;
  document: Any;
  location: Any;
}

export function compareViews(api: CompareApi): {
  picker: (runs: Any[]) => Any;
  comparePage: (a: string, b: string) => Promise<void>;
  pairPage: (a: string, b: string, view: string, x: number, seed: number) => Promise<void>;
  encode: (runId: string) => string;
} {
  const { h, load, page, statusBadge, fmtNum, pre } = api;

  /** A run id as one path segment of a link: every character but [A-Za-z0-9._~-] percent-encoded. */
  function encode(runId: string): string {
    return encodeURIComponent(runId).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  }
  function runLabel(r: Any): string {
    return `${r.model} · ${r.game} · ${r.pathway} (${r.run_id})`;
  }

  /** The overview's picker: two runs (of the filtered list), then the comparison page. */
  function picker(runs: Any[]): Any {
    const select = (name: string, k: number): Any => {
      const sel = h("select", { "data-compare": name }, ...runs.map((r) => h("option", { value: r.run_id }, runLabel(r))));
      if (runs[k]) sel.value = runs[k].run_id;
      return sel;
    };
    const a = select("a", 0);
    const b = select("b", 1);
    const go = h("button", { type: "button", id: "compare-go" }, "compare");
    go.addEventListener("click", () => {
      api.location.hash = `#/compare/${encode(a.value)}/${encode(b.value)}`;
    });
    return h(
      "details",
      { class: "comparepick", open: runs.length >= 2 ? "" : undefined },
      h("summary", null, "Compare two runs (two models or two pathways on one game): paired scores per evaluation seed, flipped episodes first"),
      h("div", { class: "filters" }, h("label", null, "run A ", a), h("label", null, "run B ", b), go),
    );
  }

  /** Run page data of a run id (its chunk index from the overview). */
  async function runOf(runId: string): Promise<Any> {
    const idx: Any = await load("index");
    const hit = (idx.runs as Any[]).find((r) => r.run_id === runId);
    if (!hit) throw new Error(`no run ${runId} in this site`);
    const run: Any = await load(`r${hit.i}`);
    return run;
  }

  const keyOf = (e: Any): string => `${e.view}|${e.checkpoint}|${e.seed}`;
  function evalEpisodes(run: Any): Map<string, Any> {
    const m = new Map<string, Any>();
    for (const e of run.episodes as Any[]) if (e.phase === "eval") m.set(keyOf(e), e);
    return m;
  }
  function solved(run: Any, e: Any): boolean | null {
    if (!e || e.status !== "ok" || run.successThreshold === null || run.successThreshold === undefined) return null;
    return Number(e.score) >= run.successThreshold;
  }
  function verdict(v: boolean | null): string {
    return v === null ? "–" : v ? "solved" : "not solved";
  }

  async function comparePage(a: string, b: string): Promise<void> {
    const [A, B] = await Promise.all([runOf(a), runOf(b)]);
    const ea = evalEpisodes(A);
    const eb = evalEpisodes(B);
    const pairs: { key: string; a: Any; b: Any; flip: boolean }[] = [];
    for (const [k, x] of ea) {
      const y = eb.get(k);
      if (!y) continue;
      const sa = solved(A, x);
      const sb = solved(B, y);
      pairs.push({ key: k, a: x, b: y, flip: sa !== null && sb !== null && sa !== sb });
    }
    const order = (p: { a: Any }): [number, string, number] => [p.a.checkpoint ?? -1, p.a.view, p.a.seed];
    pairs.sort((p, q) => {
      if (p.flip !== q.flip) return p.flip ? -1 : 1;
      const [x1, v1, s1] = order(p);
      const [x2, v2, s2] = order(q);
      return x1 - x2 || (v1 < v2 ? -1 : v1 > v2 ? 1 : 0) || s1 - s2;
    });
    const unpairedA = ea.size - pairs.length;
    const unpairedB = eb.size - pairs.length;
    const flips = pairs.filter((p) => p.flip);
    const row = (p: { a: Any; b: Any; flip: boolean }): Any => {
      const da = Number(p.a.score);
      const db = Number(p.b.score);
      const both = p.a.status === "ok" && p.b.status === "ok";
      return h(
        "tr",
        { class: p.flip ? "flip" : undefined, "data-flip": p.flip ? "1" : "0", "data-key": `${p.a.view}/${p.a.checkpoint}/${p.a.seed}` },
        h("td", null, p.a.view),
        h("td", { class: "num" }, p.a.checkpoint),
        h("td", { class: "num" }, p.a.seed),
        h("td", { class: "num" }, p.a.status === "ok" ? p.a.score : p.a.status),
        h("td", null, verdict(solved(A, p.a))),
        h("td", { class: "num" }, p.b.status === "ok" ? p.b.score : p.b.status),
        h("td", null, verdict(solved(B, p.b))),
        h("td", { class: "num" }, both ? fmtNum(db - da) : ""),
        h("td", null, h("a", { href: `#/compare/${encode(a)}/${encode(b)}/ep/${encode(p.a.view)}/${p.a.checkpoint}/${p.a.seed}`, class: "pairlink" }, "side by side")),
      );
    };
    const head = h("thead", null, h("tr", null, ...["view", "x", "seed", "score A", "A", "score B", "B", "B − A", ""].map((t) => h("th", null, t))));
    const sameGame = A.game === B.game;
    page(
      `compare ${a} · ${b}`,
      h("h1", null, "Run against run"),
      h(
        "table",
        { class: "kv", id: "compare-runs" },
        h(
          "tbody",
          null,
          ...[
            ["A", A],
            ["B", B],
          ].map(([name, r]) =>
            h("tr", null, h("th", null, name), h("td", null, statusBadge(r.status), " ", `${r.model} · ${r.game} · ${r.pathway} `, h("a", { href: `#/run/${r.i}`, class: "mono" }, r.run_id))),
          ),
        ),
      ),
      sameGame ? null : h("p", { class: "status failed" }, `different games (${A.game}, ${B.game}): seeds rarely pair and success thresholds differ`),
      h(
        "p",
        { class: "muted small" },
        `Evaluation episodes paired by view, checkpoint x and seed: ${pairs.length} pairs (${unpairedA} of A and ${unpairedB} of B without a partner). ` +
          `Solved: the episode's score reaches the game's success threshold (${A.game} ${A.successThreshold ?? "unknown"}${sameGame ? "" : `; ${B.game} ${B.successThreshold ?? "unknown"}`}); a failed episode is neither.`,
      ),
      h("h2", null, `Flipped episodes (${flips.length}): solved in one run, not in the other`),
      flips.length === 0 ? h("p", { class: "muted", id: "no-flips" }, "none") : null,
      flips.length === 0 ? null : h("table", { id: "flips" }, head.cloneNode(true), h("tbody", null, ...flips.map(row))),
      h("h2", null, "Every pair (flipped first)"),
      h("table", { id: "pairs" }, head, h("tbody", null, ...pairs.map(row))),
    );
  }

  /** Whether two steps differ in what the game showed or what the model did. */
  function differ(x: Any, y: Any): boolean {
    return !x || !y || x.observation !== y.observation || x.action !== y.action;
  }

  function stepCell(st: Any, other: Any): Any {
    if (!st) return h("div", { class: "step muted" }, "(no such step: the episode had ended)");
    return h(
      "div",
      { class: "step" },
      h(
        "h3",
        null,
        `Step ${st.step + 1}`,
        st.valid ? h("span", { class: "badge good" }, "valid") : h("span", { class: "badge bad" }, "invalid"),
        st.over ? h("span", { class: "badge warn" }, "over-confident") : null,
      ),
      h(
        "div",
        { class: "small" },
        `action `,
        h("code", null, st.action ?? "(none)"),
        other && other.action !== st.action ? " " : null,
        other && other.action !== st.action ? h("span", { class: "badge warn" }, "differs") : null,
        `  ·  s ${st.self_score === null ? "(none)" : fmtNum(st.self_score)}  ·  r ${fmtNum(st.reward)}  ·  score after ${fmtNum(st.score_after)}`,
      ),
      h("div", { class: "label" }, "observation", other && other.observation !== st.observation ? " (differs)" : ""),
      pre(st.observation, "obs"),
      h("div", { class: "label" }, "response"),
      pre(st.answer, "response"),
      h("div", { class: "label" }, "feedback"),
      pre(st.feedback || "(none)", "feedback"),
    );
  }

  async function pairPage(a: string, b: string, view: string, x: number, seed: number): Promise<void> {
    const idx: Any = await load("index");
    const ia = (idx.runs as Any[]).find((r) => r.run_id === a);
    const ib = (idx.runs as Any[]).find((r) => r.run_id === b);
    if (!ia || !ib) throw new Error(`no run ${!ia ? a : b} in this site`);
    const [da, db]: Any[] = await Promise.all([load(`r${ia.i}d`), load(`r${ib.i}d`)]);
    const find = (d: Any): Any => (d.eps as Any[]).find((e) => e.phase === "eval" && e.view === view && e.checkpoint === x && e.seed === seed);
    const A = find(da);
    const B = find(db);
    if (!A || !B) throw new Error(`no evaluation episode of view ${view} at x=${x} with seed ${seed} in ${!A ? a : b}`);
    const n = Math.max(A.steps.length, B.steps.length);
    let first = -1;
    for (let k = 0; k < n && first < 0; k++) if (differ(A.steps[k], B.steps[k])) first = k;
    const rows: Any[] = [];
    for (let k = 0; k < n; k++) {
      rows.push(
        h(
          "div",
          { class: `pairrow${k === first ? " firstdiff" : ""}`, id: `pair-step-${k}`, "data-step": String(k) },
          k === first ? h("div", { class: "diffnote" }, `first difference: step ${k + 1}`) : null,
          h("div", { class: "pair" }, stepCell(A.steps[k], B.steps[k]), stepCell(B.steps[k], A.steps[k])),
        ),
      );
    }
    page(
      `side by side · x=${x} seed ${seed}`,
      h("p", { class: "epnav" }, h("a", { href: `#/compare/${encode(a)}/${encode(b)}` }, "↑ back to the comparison")),
      h("h1", null, `${view} episode at x=${x}, seed ${seed}`),
      h(
        "div",
        { class: "pair" },
        h("div", null, h("strong", null, "A "), `${ia.model} · ${ia.pathway}`, h("div", { class: "small" }, statusBadge(A.status), ` score ${A.score} · ${A.steps.length} steps`)),
        h("div", null, h("strong", null, "B "), `${ib.model} · ${ib.pathway}`, h("div", { class: "small" }, statusBadge(B.status), ` score ${B.score} · ${B.steps.length} steps`)),
      ),
      h(
        "p",
        { class: "muted small", id: "firstdiff" },
        first < 0 ? "The two trajectories are the same at every step." : `They agree on ${first} step${first === 1 ? "" : "s"}; the first difference is at step ${first + 1} (opened below).`,
      ),
      ...rows,
    );
    const target = first >= 0 ? api.document.getElementById(`pair-step-${first}`) : null;
    if (target) target.scrollIntoView({ block: "start" });
  }

  return { picker, comparePage, pairPage, encode };
}
