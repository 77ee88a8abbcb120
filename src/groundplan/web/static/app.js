// groundplan console: one page, no build step. Everything from the server is shown with
// textContent (never parsed as HTML); the scene is drawn as SVG from facts.
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
const metrics = { traceEvents: 0, renders: 0, lastRenderMs: 0, maxRenderMs: 0, loadMs: null, longTasks: [] };
window.gpMetrics = metrics;
// main-thread responsiveness: how late a 50 ms heartbeat fires (a frozen page shows large lags)
metrics.maxLagMs = 0; metrics.inputDelayMs = null; metrics.firstEventAt = null; metrics.lastEventAt = null;
{
  let expected = performance.now() + 50;
  setInterval(() => {
    const now = performance.now();
    metrics.maxLagMs = Math.max(metrics.maxLagMs, now - expected);
    expected = now + 50;
  }, 50);
}
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) metrics.longTasks.push(Math.round(e.duration));
  }).observe({ type: "longtask", buffered: true });
} catch (e) { /* no long-task timing in this browser */ }

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

async function api(path, opts) {
  const r = await fetch(path, Object.assign({ credentials: "same-origin" }, opts || {}));
  let body = null;
  try { body = await r.json(); } catch (e) { body = { error: `${r.status} ${r.statusText}` }; }
  if (!r.ok) throw new Error(body && body.error ? body.error : `${r.status}`);
  return body;
}
function postJSON(path, data) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data) });
}
function showError(msg) { $("form-error").textContent = msg || ""; }

// ------------------------------------------------------------------ scene model + drawing

class SceneModel {
  constructor(view) {
    this.view = view;
    this.facts = new Set(view.facts);
    this.changed = new Set();
    this.agents = new Set(view.agents.map((a) => a.name));
    // boxes: the scene's locations; a scene without them (a VirtualHome graph) is drawn by room
    this.locations = view.locations.length ? view.locations.slice()
      : view.facts.filter((f) => f.startsWith("(room ")).map((f) => f.slice(6, -1)).sort();
    this.boxes = new Set(this.locations);
  }
  apply(step) {
    this.changed = new Set();
    for (const f of step.deleted || []) this.facts.delete(f);
    for (const f of step.added || []) { this.facts.add(f); for (const a of f.slice(1, -1).split(" ").slice(1)) this.changed.add(a); }
    for (const f of step.deleted || []) { const a = f.slice(1, -1).split(" "); if (a[1]) this.changed.add(a[1]); }
  }
  // parent of each object (on / in / inside / liquid_in / inhand), agent positions, other states
  layout() {
    const parent = new Map(), agentAt = new Map(), states = new Map();
    const placing = new Set(this.view.placing);
    for (const f of this.facts) {
      const p = f.slice(1, -1).split(" ");
      const pred = p[0];
      if (pred === "at" && this.agents.has(p[1])) { agentAt.set(p[1], p[2]); continue; }
      if (placing.has(pred) && p.length === 3) {
        if (pred === "inhand" || pred.startsWith("holds")) {
          // (inhand obj agent) / (holds_rh agent obj)
          const [o, a] = this.agents.has(p[2]) ? [p[1], p[2]] : [p[2], p[1]];
          parent.set(o, a);
        } else if (!parent.has(p[1]) || (this.boxes.has(parent.get(p[1])) && !this.boxes.has(p[2]))) {
          parent.set(p[1], p[2]);  // the innermost holder wins over the room
        }
        continue;
      }
      if (p.length === 2) { if (!states.has(p[1])) states.set(p[1], []); states.get(p[1]).push(pred); }
    }
    return { parent, agentAt, states };
  }
}

let scene = null;       // SceneModel of the scene on show
let drawPending = false;
let lastDraw = -1e9;
// a redraw at most every 150 ms (or 4x the last draw's time): a fast stream of steps on a
// large scene must not keep the main thread drawing
function requestDraw() {
  if (drawPending) return;
  drawPending = true;
  const wait = Math.max(0, lastDraw + Math.max(150, 4 * metrics.lastRenderMs) - performance.now());
  setTimeout(() => requestAnimationFrame(() => { drawPending = false; drawScene(); lastDraw = performance.now(); }), wait);
}

function drawScene() {
  const t0 = performance.now();
  const root = $("scene-svg");
  root.replaceChildren();
  if (!scene) return;
  const { parent, agentAt, states } = scene.layout();
  const children = new Map();
  for (const [o, p] of parent) { if (!children.has(p)) children.set(p, []); children.get(p).push(o); }
  for (const list of children.values()) list.sort();
  const boxes = scene.locations.concat(scene.view.agents.map((a) => a.name));
  const boxSet = new Set(boxes);
  const loose = scene.view.objects.map((o) => o.name).filter((n) => !parent.has(n) && !boxSet.has(n));
  const all = boxes.map((b) => ({ name: b, agent: scene.agents.has(b) }));
  if (loose.length) all.push({ name: "(elsewhere)", agent: false, items: loose });
  // rows of items per box, nested by depth
  const LINE = 16, W = 230, PAD = 6;
  const width = Math.max(root.clientWidth || 600, W + 2 * PAD);
  const cols = Math.max(1, Math.floor(width / (W + PAD)));
  const colH = new Array(cols).fill(PAD);
  const agentsHere = new Map();
  for (const [a, at] of agentAt) { if (!agentsHere.has(at)) agentsHere.set(at, []); agentsHere.get(at).push(a); }
  for (const box of all) {
    const rows = [];
    const walk = (name, depth, seen) => {
      for (const c of children.get(name) || []) {
        if (seen.has(c)) continue;
        seen.add(c);
        rows.push({ name: c, depth });
        walk(c, depth + 1, seen);
      }
    };
    if (box.items) for (const n of box.items) { rows.push({ name: n, depth: 0 }); walk(n, 1, new Set([n])); }
    else walk(box.name, 0, new Set([box.name]));
    const here = agentsHere.get(box.name) || [];
    const h = 22 + (here.length ? 20 : 0) + rows.length * LINE + 6;
    let c = 0;
    for (let i = 1; i < cols; i++) if (colH[i] < colH[c]) c = i;
    const x = PAD + c * (W + PAD), y = colH[c];
    colH[c] += h + PAD;
    const g = svg("g", { class: box.agent ? "agentbox" : "loc", "data-name": box.name, transform: `translate(${x},${y})` });
    g.append(svg("rect", { width: W, height: h, rx: 4 }));
    const st = states.get(box.name);
    g.append(svg("text", { class: "title", x: 6, y: 15 }, box.name + (st ? ` [${st.join(", ")}]` : "")));
    let yy = 22;
    if (here.length) {
      let ax = 8;
      for (const a of here) {
        const kind = (scene.view.agents.find((v) => v.name === a) || {}).kind || "robot";
        const ag = svg("g", { class: `agent ${kind}`, "data-agent": a, transform: `translate(${ax},${yy})` });
        ag.append(svg("circle", { cx: 8, cy: 8, r: 8 }));
        ag.append(svg("text", { x: 4, y: 12 }, a[0].toUpperCase()));
        ag.append(svg("title", {}, `${a} is at ${box.name}`));
        ag.append(svg("text", { class: "name", x: 20, y: 12 }, a));
        g.append(ag);
        ax += 30 + 7 * a.length;
      }
      yy += 20;
    }
    for (const r of rows) {
      const cls = "obj" + (scene.changed.has(r.name) ? " changed" : "");
      const og = svg("g", { class: cls, "data-name": r.name, transform: `translate(${6 + r.depth * 14},${yy})` });
      const s = states.get(r.name);
      let text = r.name + (s ? ` [${s.join(", ")}]` : "");
      const room = Math.floor((W - 16 - r.depth * 14) / 6.7);  // characters that fit the box
      if (text.length > room) text = text.slice(0, room - 1) + "…";
      og.append(svg("rect", { width: W - 12 - r.depth * 14, height: LINE - 2, rx: 3 }));
      og.append(svg("text", { x: 4, y: 11 }, text));
      if (s) og.append(svg("title", {}, `${r.name}: ${s.join(", ")}`));
      g.append(og);
      yy += LINE;
    }
    root.append(g);
  }
  root.setAttribute("height", Math.max(...colH) + PAD);
  $("scene-title").textContent = `${scene.view.name}: ${scene.view.objects.length} objects, ` +
    `${scene.locations.length} locations, ${scene.view.agents.length} agents` + (scene.view.hidden.length ? `, ${scene.view.hidden.length} hidden` : "");
  const ms = performance.now() - t0;
  metrics.renders++; metrics.lastRenderMs = ms; metrics.drawMs = (metrics.drawMs || 0) + ms; metrics.maxRenderMs = Math.max(metrics.maxRenderMs, ms);
}

// ------------------------------------------------------------------ trace rendering

const queue = [];
let flushPending = false;
let totals = { calls: 0, prompt: 0, completion: 0, seconds: 0 };

function resetLive(title) {
  $("trace").replaceChildren();
  $("plan").replaceChildren();
  $("goal").textContent = "";
  $("usage").textContent = "";
  $("trace-count").textContent = title || "";
  setStatus("running", "running");
  delete $("status").dataset.verdict;
  refusedBy = null;
  showRefusal(null);
  $("goal-note").textContent = "";
  totals = { calls: 0, prompt: 0, completion: 0, seconds: 0 };
  metrics.traceEvents = 0;
  metrics.firstEventAt = null;
  queue.length = 0;
}
function setStatus(cls, text) { const s = $("status"); s.className = `pill ${cls}`; s.textContent = text; }

// the verdict vocabulary of groundplan.core.verdict, the same as the CLI's: green only for
// "success" (a check goal held after execution); a refusal (unsafe, abstained) is an answer
// in its own colour, neither an error nor a failure
const VERDICT_CLASS = { "success": "success", "goal holds (unverified)": "unverified", "failure": "failure",
  "no plan": "noplan", "error": "error", "unsafe": "unsafe", "abstained": "abstained" };
const REFUSALS = {
  unsafe: { title: "Refused as unsafe", what: "the safety check refused a goal or step before it was planned or executed" },
  abstained: { title: "Abstained", what: "the method answered that the scene cannot meet the request" },
};
// "unsafe: <reason>" -> "unsafe"; "goal holds (unverified)" -> itself
function kindOfText(text) {
  const head = text.split(":")[0];
  return ["error", "unsafe", "abstained"].includes(head) ? head : text;
}
function verdictOf(ev) {
  if (ev.verdict) return { text: ev.verdict, kind: ev.verdict_kind || kindOfText(ev.verdict) };
  // an episode stored before verdicts: its status only
  if (["error", "crash", "unsupported"].includes(ev.status)) return { text: `error: ${ev.error || ev.status}`, kind: "error" };
  if (REFUSALS[ev.status]) {
    const why = String(ev.reason || ev.error || ev.status).replace(new RegExp(`^${ev.status}: `), "");
    return { text: `${ev.status}: ${why}`, kind: ev.status };
  }
  if (ev.success) return { text: "success", kind: "success" };
  if (["no_plan", "unsolvable", "timeout"].includes(ev.status)) return { text: "no plan", kind: "no plan" };
  return { text: "failure", kind: "failure" };
}
function setVerdict(ev) {
  const v = verdictOf(ev);
  setStatus(VERDICT_CLASS[v.kind] || "failure", v.text);
  const s = $("status");
  s.dataset.verdict = v.text;
  s.title = v.text;
  showRefusal(REFUSALS[v.kind] ? { kind: v.kind, text: v.text, ev } : null);
  return v;
}

// the goal or step the last refusing safety check named (from its trace event)
let refusedBy = null;
// the refusal banner under the verdict: what kind of answer, its reason, and what it refused
function showRefusal(r) {
  const box = $("refusal");
  box.replaceChildren();
  box.hidden = !r;
  box.className = r ? `refusal ${r.kind}` : "refusal";
  if (!r) { delete box.dataset.kind; return; }
  box.dataset.kind = r.kind;
  const info = REFUSALS[r.kind], ev = r.ev, m = ev.metrics || {};
  const reason = r.text.slice(r.kind.length + 2);
  box.append(el("div", { class: "refusal-title", text: info.title }),
    el("div", { class: "refusal-reason", text: reason }),
    el("div", { class: "note", text: `${info.what}; not an error and not a failure` }));
  const facts = [];
  if (r.kind === "unsafe") {
    if (refusedBy && refusedBy.step) facts.push(["refused step", refusedBy.step]);
    if (refusedBy && refusedBy.goal) facts.push(["refused goal", refusedBy.goal]);
    else if (ev.goal) facts.push(["goal", ev.goal]);
  }
  for (const other of m.unsafe_refused || []) if (other !== r.text && other !== reason && other !== `unsafe: ${reason}`) facts.push(["also refused", other]);
  if (r.kind === "abstained" && m.nearest && !reason.includes(`nearest: ${m.nearest}`)) facts.push(["nearest", m.nearest]);
  if (m.confidence !== undefined && m.confidence !== null) facts.push(["confidence", Number(m.confidence).toFixed(2)]);
  for (const [k, v] of facts) box.append(el("div", { class: "refusal-fact" }, el("b", { text: `${k}: ` }), el("code", { text: String(v) })));
  if (r.kind === "unsafe" && refusedBy && refusedBy.goal && refusedBy.goal === ev.goal) $("goal-note").textContent = " (refused by the safety check)";
}
const isUnsafeText = (t) => typeof t === "string" && /(^|: )unsafe: /.test(t);

function pushEvent(ev) {
  const now = performance.now();
  if (metrics.firstEventAt === null) metrics.firstEventAt = now;
  metrics.lastEventAt = now;
  queue.push(ev);
  if (!flushPending) { flushPending = true; requestAnimationFrame(flush); }
}
function flush() {
  flushPending = false;
  const t0 = performance.now();
  const frag = document.createDocumentFragment();
  let n = 0;
  while (queue.length && performance.now() - t0 < 12) {
    const e0 = performance.now(), ev = queue.shift();
    const node = renderEvent(ev);
    if (node) frag.append(node);
    n++;
    const ms = performance.now() - e0;
    if (!metrics.slowestEvent || ms > metrics.slowestEvent.ms) metrics.slowestEvent = { type: ev.type, ms };
  }
  const a0 = performance.now();
  $("trace").append(frag);
  metrics.maxAppendMs = Math.max(metrics.maxAppendMs || 0, performance.now() - a0);
  metrics.traceEvents += n;
  $("trace-count").textContent = `${metrics.traceEvents} events`;
  if ($("follow").checked) $("trace").scrollTop = $("trace").scrollHeight;
  if (queue.length) { flushPending = true; requestAnimationFrame(flush); }
  else if (window.gpOnIdle) { const f = window.gpOnIdle; window.gpOnIdle = null; f(); }
}

function pre(text, limit) {
  let t = typeof text === "string" ? text : JSON.stringify(text, null, 1);
  if (t && limit && t.length > limit) t = t.slice(0, limit) + `\n... (${t.length - limit} more characters)`;
  return el("pre", { text: t || "" });
}
function details(summary, body) { const d = el("details", {}, el("summary", { text: summary })); d.append(body); return d; }
function facts(added, deleted) {
  const d = el("div", { class: "facts" });
  for (const f of added || []) d.append(el("div", { class: "add", text: "+ " + f }));
  for (const f of deleted || []) d.append(el("div", { class: "del", text: "- " + f }));
  return d;
}
function promptText(p) {
  if (Array.isArray(p)) return p.map((m) => `[${m.role}] ${m.content}`).join("\n\n");
  return typeof p === "string" ? p : JSON.stringify(p, null, 1);
}

function renderEvent(ev) {
  const type = ev.type;
  const box = el("div", { class: `ev ${type}`, "data-type": type });
  const head = el("div", {}, el("span", { class: "k", text: type.replace("_", " ") }),
    ev.t === undefined ? null : el("span", { class: "t", text: `t=${ev.t}s ` }));
  box.append(head);
  switch (type) {
    case "start":
      head.append(`${ev.instruction} - ${ev.request.method} on ${ev.request.backend}`);
      if (ev.gold_goal) head.append(` (checked against ${ev.gold_goal})`);
      scene = new SceneModel(ev.scene); requestDraw();
      break;
    case "llm_call": {
      const u = ev.usage || {};
      totals.calls++; totals.prompt += u.prompt_tokens || 0; totals.completion += u.completion_tokens || 0; totals.seconds += u.latency_s || 0;
      head.append(`${ev.purpose || ""}: ${u.prompt_tokens ?? "?"}+${u.completion_tokens ?? "?"} tokens, ${(u.latency_s ?? 0).toFixed(2)} s`);
      box.append(details("prompt", pre(promptText(ev.prompt), 20000)));
      box.append(el("div", { text: "answer:" }), pre(ev.text !== undefined ? ev.text : { continuations: ev.continuations, logprobs: ev.logprobs }, 8000));
      $("usage").textContent = `${totals.calls} LLM calls, ${totals.prompt}+${totals.completion} tokens, ${totals.seconds.toFixed(1)} s in the model`;
      break;
    }
    case "goal":
      head.append(ev.round === undefined ? "" : `round ${ev.round}: `, el("code", { text: ev.text || ev.goal || "" }),
        ev.ok === false ? ` rejected: ${ev.error}` : " ok");
      if (ev.ok === false) box.classList.add("bad");
      if (ev.ok !== false && ev.text) $("goal").textContent = ev.text;
      break;
    case "check":
      if (ev.against === "safety") {
        // the safety check (core/safety.py): refused with its reason, or let through
        box.classList.add("safety", ev.success === false ? "refused" : "passed");
        if (ev.success === false) refusedBy = { goal: ev.goal, step: ev.step || ev.action };
        head.append(ev.success === false ? "safety check: refused" : "safety check: passed");
        if (ev.reason) box.append(el("div", { class: "refusal-reason", text: ev.reason }));
        for (const k of ["goal", "step", "action"]) if (ev[k]) box.append(el("div", {}, `${k}: `, el("code", { text: String(ev[k]) })));
        const rest = Object.fromEntries(Object.entries(ev).filter(([k]) => !["type", "t", "seq", "against", "success", "reason", "goal", "step", "action"].includes(k)));
        if (Object.keys(rest).length) box.append(details("details", pre(rest, 4000)));
        break;
      }
      head.append(`${ev.against || ""}: ${ev.success === undefined ? "" : ev.success ? "holds" : "does not hold"}`);
      if (ev.success === false) box.classList.add("bad");
      box.append(pre(Object.fromEntries(Object.entries(ev).filter(([k]) => !["type", "t", "seq"].includes(k))), 4000));
      break;
    case "note":
      if (ev.what === "abstain") {
        // goalsearch's answer that the scene cannot meet the request
        box.classList.add("abstain");
        head.append("abstained");
        box.append(el("div", { class: "refusal-reason", text: ev.reason || `no ${ev.wanted || "match"} in the scene` }));
        const said = [["wanted", ev.wanted], ["nearest", ev.nearest], ["kind", ev.kind === "absent" ? "a thing the scene lacks"
          : ev.kind === "need" ? "a need nothing in the scene meets" : ev.kind]];
        for (const [k, v] of said) if (v) box.append(el("div", {}, `${k}: `, el("code", { text: String(v) })));
        break;
      }
      {
        head.append(ev.what || "");
        const body = pre(Object.fromEntries(Object.entries(ev).filter(([k]) => !["type", "t", "seq", "what"].includes(k))), 4000);
        // a long note (goalsearch's candidates and timings) folds away: the trace stays readable
        box.append(body.textContent.length > 400 ? details("details", body) : body);
      }
      break;
    case "plan":
    case "replan": {
      const steps = ev.steps || ev.plan || [];
      head.append(`${ev.status || ""} ${steps.length} steps${ev.cost !== undefined && ev.cost !== null ? `, cost ${ev.cost}` : ""}${ev.seconds ? `, ${ev.seconds} s` : ""}`);
      if (ev.error) box.append(el("div", { class: isUnsafeText(ev.error) ? "refusal-reason" : "error", text: ev.error }));
      if (isUnsafeText(ev.error)) box.classList.add("safety", "refused");
      if (steps.length) {
        const ol = $("plan");
        // a replan from step k keeps steps 0..k-1 (already run) and replaces the rest
        const keep = type === "replan" && Number.isInteger(ev.from_step) ? ev.from_step : 0;
        while (ol.children.length > keep) ol.lastChild.remove();
        for (const s of steps) ol.append(el("li", { text: typeof s === "string" ? s : JSON.stringify(s) }));
        box.append(pre(steps.map((s) => (typeof s === "string" ? s : JSON.stringify(s))).join("\n"), 6000));
      }
      if (type === "replan") box.append(pre(Object.fromEntries(Object.entries(ev).filter(([k]) => !["type", "t", "seq", "steps", "plan"].includes(k))), 3000));
      break;
    }
    case "step": {
      const ok = ev.ok !== false;
      // a step the safety check refused was not tried: a refusal, not a failed step
      const refused = !ok && isUnsafeText(ev.reason);
      if (refused) box.classList.add("safety", "refused"); else box.classList.add(ok ? "ok" : "fail");
      head.append(`${(ev.index ?? 0) + 1}. ${ev.action || ev.command || ""}${ev.nl ? ` ("${ev.nl}")` : ""} ${ok ? "" : refused ? "REFUSED" : "FAILED"}`);
      if (ok) box.append(facts(ev.added, ev.deleted)); else box.append(el("div", { class: refused ? "refusal-reason" : "error", text: ev.reason || "" }));
      const li = $("plan").children[ev.index ?? -1];
      if (li) li.className = ok ? "ok" : refused ? "refused" : "failed";
      if (scene && ok) { scene.apply(ev); requestDraw(); }
      break;
    }
    case "feedback":
      head.append(ev.round === undefined ? "" : `round ${ev.round}: `);
      // a refusal by the safety check handed back to the method is not an error of it
      if (isUnsafeText(ev.message || ev.text)) box.classList.add("safety", "refused"); else box.classList.add("bad");
      box.append(pre(ev.message || ev.text || Object.fromEntries(Object.entries(ev).filter(([k]) => !["type", "t", "seq"].includes(k))), 4000));
      break;
    case "tool_call":
      head.append(`${ev.tool || ev.name || ""} ${ev.argument || ev.args || ""}`);
      box.append(pre(Object.fromEntries(Object.entries(ev).filter(([k]) => !["type", "t", "seq"].includes(k))), 4000));
      break;
    case "end": {
      const v = setVerdict(ev);
      const ok = v.kind === "success";
      head.append(`${v.text}${ev.status ? ` (method status ${ev.status})` : ""}${ev.judged_by ? `; judged by ${ev.judged_by}` : ""}${ev.wall_time ? `, ${ev.wall_time.toFixed(2)} s` : ""}`);
      const aside = ok || v.kind === "goal holds (unverified)";  // the method's own message, not the verdict
      if (REFUSALS[v.kind]) box.classList.add("refusal-end", v.kind);
      else if (ev.error && v.kind !== "error") box.append(el("div", { class: aside ? "note" : "error", text: aside ? `(the method reported: ${ev.error})` : ev.error }));
      if (ev.goal) $("goal").textContent = ev.goal;
      if (ev.plan && ev.plan.length && !$("plan").children.length) for (const s of ev.plan) $("plan").append(el("li", { text: s }));
      break;
    }
    default:
      box.append(pre(Object.fromEntries(Object.entries(ev).filter(([k]) => !["type", "t", "seq"].includes(k))), 4000));
  }
  return box;
}

// ------------------------------------------------------------------ running an episode

let source = null;
async function runEpisode(evt) {
  evt.preventDefault();
  showError("");
  const ds = $("dataset").value, dt = $("dataset-task").value;
  const backend = $("backend").value;
  const body = {
    scene: ds && dt ? `dataset:${ds}/${dt}` : $("scene").value,
    instruction: $("instruction").value, method: $("method").value, backend,
    model: $("model").value || null, skillset: $("skillset").value || null,
    check_goal: $("check-goal").value || null,
    skills_file: $("skills-file").value || null, oam_file: $("oam-file").value || null,
  };
  if (backend === "openai") { body.base_url = $("base-url").value; body.api_key = $("api-key").value || null; }
  if (backend === "scripted") {
    const text = $("script").value.trim();
    try {
      body.script = text.startsWith("[") ? JSON.parse(text) : text.split("\n").filter((l) => l.trim());
    } catch (e) { showError(`the answers are not a JSON list: ${e.message}`); return; }
  }
  resetLive("starting");
  try {
    const { id } = await postJSON("/api/episodes", body);
    follow(id);
  } catch (e) { setStatus("error", "error"); showError(e.message); }
}

function follow(id) {
  if (source) source.close();
  source = new EventSource(`/api/episodes/${id}/events`);
  $("conn").textContent = `episode ${id}: streaming`;
  source.addEventListener("trace", (m) => pushEvent(JSON.parse(m.data)));
  source.addEventListener("done", () => { source.close(); $("conn").textContent = `episode ${id}: done`; });
  source.onerror = () => { $("conn").textContent = `episode ${id}: connection lost`; };
}

// ------------------------------------------------------------------ choices

async function loadScene() {
  const ds = $("dataset").value, dt = $("dataset-task").value;
  const id = ds && dt ? `dataset:${ds}/${dt}` : $("scene").value;
  if (!id) return;
  try {
    const ss = $("skillset").value, sk = $("skills-file").value, oam = $("oam-file").value;
    const v = await api(`/api/scene?id=${encodeURIComponent(id)}${ss ? `&skillset=${encodeURIComponent(ss)}` : ""}` +
      `${sk ? `&skills=${encodeURIComponent(sk)}` : ""}${oam ? `&oam=${encodeURIComponent(oam)}` : ""}`);
    scene = new SceneModel(v); requestDraw();
    if (v.task) { $("instruction").value = v.task.instruction; }
  } catch (e) { showError(e.message); }
}

function fillSelect(sel, items, value, label) {
  sel.replaceChildren();
  for (const it of items) {
    const o = el("option", { value: value(it), text: label(it) });
    sel.append(o);
  }
}

async function loadOptions(selectScene) {
  const o = await api("/api/options");
  fillSelect($("scene"), o.scenes, (s) => s.id, (s) => s.label);
  $("scene").dataset.skillsets = JSON.stringify(Object.fromEntries(o.scenes.map((s) => [s.id, s.skillset])));
  for (const [sel, files] of [["skills-file", o.skill_files || []], ["oam-file", o.oam_files || []]]) {
    const keep = $(sel).value;
    fillSelect($(sel), [{ id: "", label: "(none)" }].concat(files), (f) => f.id, (f) => f.label);
    $(sel).value = files.some((f) => f.id === keep) ? keep : "";
  }
  if (selectScene) $("scene").value = selectScene;
  else if (o.scenes.some((s) => s.id === "bundled:kitchen.yaml")) $("scene").value = "bundled:kitchen.yaml";
  if (!$("method").options.length) {
    fillSelect($("method"), o.methods, (m) => m.name, (m) => m.name + (m.needs_llm ? "" : " (LLM not required)"));
    $("method").value = o.methods.some((m) => m.name === "goalsearch") ? "goalsearch" : o.methods[0].name;
    fillSelect($("backend"), o.backends, (b) => b, (b) => b);
    fillSelect($("skillset"), [""].concat(o.skillsets), (s) => s, (s) => s || "(the scene's)");
    for (const d of o.datasets) $("dataset").append(el("option", { value: d.name, text: d.name }));
  }
  backendChanged();
}

function backendChanged() {
  const b = $("backend").value;
  for (const e of document.querySelectorAll(".llm-openai, .llm-scripted, .llm-embedded")) {
    e.hidden = !e.classList.contains(`llm-${b}`);
  }
}

async function datasetChanged() {
  const ds = $("dataset").value, sel = $("dataset-task");
  sel.hidden = !ds;
  sel.replaceChildren();
  if (!ds) { loadScene(); return; }
  try {
    const r = await api(`/api/datasets/${encodeURIComponent(ds)}/tasks?limit=1000`);
    fillSelect(sel, r.tasks, (t) => t.id, (t) => `${t.id}: ${t.instruction}`.slice(0, 120));
    loadScene();
  } catch (e) { showError(e.message); }
}

async function uploadScene() {
  const f = $("upload").files[0];
  if (!f) return;
  showError("");
  try {
    // checked against the skill set and map chosen beside it (default: household, the default map)
    const r = await postJSON("/api/scenes/upload", {
      filename: f.name, text: await f.text(), skillset: $("skillset").value || null,
      skills_file: $("skills-file").value || null, oam_file: $("oam-file").value || null,
    });
    $("dataset").value = ""; $("dataset-task").hidden = true;
    await loadOptions(r.id);
    loadScene();
  } catch (e) { showError(e.message); }
}

async function uploadData(kind, input, select) {
  const f = $(input).files[0];
  if (!f) return;
  showError("");
  try {
    const r = await postJSON("/api/files/upload", { kind, filename: f.name, text: await f.text() });
    await loadOptions($("scene").value);
    $(select).value = r.id;
    loadScene();
  } catch (e) { showError(e.message); }
}

// ------------------------------------------------------------------ results

function mdToNodes(md) {
  // headings, tables, lists, <details> lines and paragraphs; text only, never HTML
  const out = document.createDocumentFragment();
  const lines = md.split("\n");
  let i = 0;
  while (i < lines.length) {
    const l = lines[i];
    if (l.startsWith("|")) {
      const t = el("table");
      let head = true;
      while (i < lines.length && lines[i].startsWith("|")) {
        const cells = lines[i].split("|").slice(1, -1).map((c) => c.trim());
        if (!cells.every((c) => /^:?-+:?$/.test(c))) {
          const tr = el("tr");
          for (const c of cells) tr.append(el(head ? "th" : "td", { text: c.replace(/\*\*/g, "") }));
          t.append(tr);
          head = false;
        }
        i++;
      }
      out.append(t);
      continue;
    }
    const h = l.match(/^(#{1,3}) (.*)/);
    if (h) out.append(el(`h${h[1].length}`, { text: h[2] }));
    else if (l.startsWith("- ")) out.append(el("div", { text: "• " + l.slice(2) }));
    else if (l.trim() && !/^<\/?(details|summary)/.test(l)) out.append(el("p", { text: l.replace(/<[^>]*>/g, "") }));
    i++;
  }
  return out;
}

async function refreshRuns() {
  const db = $("db").value;
  const tbody = $("runs").querySelector("tbody");
  tbody.replaceChildren();
  try {
    const r = await api(`/api/results/runs?db=${db}`);
    for (const run of r.runs) {
      const cb = el("input", { type: "checkbox", "data-run": run.run_id });
      const tr = el("tr", { "data-run": run.run_id }, el("td", {}, cb), el("td", { text: run.run_id + (run.allow_unsafe ? " (safety check off)" : "") }), el("td", { text: run.method }),
        el("td", { text: run.dataset }), el("td", { text: run.backend }), el("td", { text: run.model }),
        el("td", { text: run.episodes }), el("td", { text: run.successes }), el("td", { text: run.errors ?? 0 }),
        el("td", { text: run.unsafe ?? 0, class: run.unsafe ? "verdict unsafe" : "" }),
        el("td", { text: run.abstained ?? 0, class: run.abstained ? "verdict abstained" : "" }));
      tr.addEventListener("click", (e) => { if (e.target !== cb) showEpisodes(run.run_id); });
      tbody.append(tr);
    }
    if (!r.runs.length) tbody.append(el("tr", {}, el("td", { colspan: 11, text: "no runs in this results file" })));
  } catch (e) { tbody.append(el("tr", {}, el("td", { colspan: 11, class: "error", text: e.message }))); }
}

async function makeReport() {
  const runs = [...document.querySelectorAll("#runs input:checked")].map((c) => c.dataset.run);
  const box = $("report");
  if (!runs.length) { box.replaceChildren(el("p", { text: "select runs first" })); return; }
  box.replaceChildren(el("p", { text: "building the report..." }));
  try {
    const r = await api(`/api/results/report?db=${$("db").value}&runs=${encodeURIComponent(runs.join(","))}`);
    box.replaceChildren(mdToNodes(r.markdown));
    for (const p of r.plots) box.append(el("div", {}, el("div", { text: p.name }), el("img", { src: `data:image/png;base64,${p.png}`, alt: p.name })));
  } catch (e) { box.replaceChildren(el("p", { class: "error", text: e.message })); }
}

async function showEpisodes(run) {
  const box = $("episodes");
  box.replaceChildren(el("h3", { text: `episodes of ${run}` }));
  try {
    const r = await api(`/api/results/episodes?db=${$("db").value}&run=${encodeURIComponent(run)}`);
    const t = el("table", { class: "fit" }, el("tr", {}, ...["task", "seed", "subset", "verdict", "steps", "LLM calls", "time (s)", ""].map((h) => el("th", { text: h }))));
    for (const e of r.episodes) {
      const b = el("button", { type: "button", text: "trace", "data-task": e.task_id });
      b.addEventListener("click", () => openStored(run, e.task_id, e.seed));
      t.append(el("tr", {}, el("td", { text: e.task_id }), el("td", { text: e.seed }), el("td", { text: e.subset }),
        el("td", { text: verdictOf(e).text, class: `verdict ${VERDICT_CLASS[verdictOf(e).kind] || ""}` }), el("td", { text: e.steps }),
        el("td", { text: e.llm_calls }), el("td", { text: e.wall_time.toFixed(2) }), el("td", {}, b)));
    }
    box.append(t);
  } catch (e) { box.append(el("p", { class: "error", text: e.message })); }
}

async function openStored(run, task, seed) {
  const t0 = performance.now();
  const db = $("db").value;
  const r = await api(`/api/results/episode?db=${db}&run=${encodeURIComponent(run)}&task=${encodeURIComponent(task)}&seed=${seed}`);
  showTab("run");
  resetLive(`${run} / ${task}`);
  scene = r.scene ? new SceneModel(r.scene) : null;
  requestDraw();
  $("conn").textContent = `stored episode ${run} / ${task}`;
  for (const ev of r.trace) pushEvent(ev);
  pushEvent({ type: "end", status: r.status, success: r.success, judged_by: "as stored", goal: r.goal, plan: r.plan,
    error: r.error, wall_time: r.wall_time, verdict: r.verdict, verdict_kind: r.verdict_kind, metrics: r.metrics });
  window.gpOnIdle = () => requestAnimationFrame(() => { metrics.loadMs = performance.now() - t0; document.body.dataset.loaded = "1"; });
}

function showTab(name) {
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === name);
  $("pane-run").hidden = name !== "run";
  $("pane-results").hidden = name !== "results";
  if (name === "results") refreshRuns();
  if (name === "run") requestDraw();
}

// ------------------------------------------------------------------ start

window.addEventListener("DOMContentLoaded", async () => {
  $("run-form").addEventListener("submit", runEpisode);
  $("backend").addEventListener("change", backendChanged);
  $("scene").addEventListener("change", () => { $("dataset").value = ""; $("dataset-task").hidden = true; loadScene(); });
  $("skillset").addEventListener("change", loadScene);
  $("dataset").addEventListener("change", datasetChanged);
  $("dataset-task").addEventListener("change", loadScene);
  $("upload").addEventListener("change", uploadScene);
  $("upload-skills").addEventListener("change", () => uploadData("skills", "upload-skills", "skills-file"));
  $("upload-oam").addEventListener("change", () => uploadData("oam", "upload-oam", "oam-file"));
  $("skills-file").addEventListener("change", loadScene);
  $("oam-file").addEventListener("change", loadScene);
  for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", (e) => {
    metrics.inputDelayMs = performance.now() - e.timeStamp;  // how long the click waited for the page
    showTab(b.dataset.tab);
  });
  $("refresh-runs").addEventListener("click", refreshRuns);
  $("db").addEventListener("change", refreshRuns);
  $("make-report").addEventListener("click", makeReport);
  window.addEventListener("resize", requestDraw);
  try {
    await loadOptions();
    await loadScene();
    document.body.dataset.ready = "1";
  } catch (e) { showError(`cannot reach the console: ${e.message}`); }
});
