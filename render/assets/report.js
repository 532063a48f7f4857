// Draws a lockstep report page from the JSON that `lockstep render` embeds in it
// (<script type="application/json" id="lockstep-data">). No network, no libraries.
//
// The timeline's x axis is the tick: a top-level step's own task or one unit the model ran
// (render/src/timeline.h). Only what intersects the visible window is drawn, so a trace of
// thousands of ticks costs what one screenful costs; zoom changes pixels per tick.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
const PRIORITIES = ['background', 'background cont.', 'user-visible', 'user-visible cont.',
  'user-blocking', 'user-blocking cont.'];  // effective priorities 0-5 (I-17)
const ROW = 18;         // px per row of a lane
const TASK_HEADER = 20; // px above a task lane's priority rows, beside the lane's name

// A lane's drawing height: its rows, and room for its two-line label.
function laneHeight(lane) {
  return lane.kind === 'tasks' ? TASK_HEADER + lane.rows * ROW : Math.max(lane.rows * ROW, 30);
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

// One event as a short line: what happened and to what.
function eventText(e) {
  if (!e) return '';
  const rest = Object.entries(e).filter(([k]) => !['step', 'agent', 'event', 'tick'].includes(k))
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ');
  return `${e.event} ${rest} (step ${e.step})`;
}

function eventKind(e) {
  if (e.event === 'settled') return e.state === 'rejected' ? 'rejected' : 'fulfilled';
  return e.event;
}

// ---- the model's run as lanes ----------------------------------------------------------------

// Each request of a resource name: when it waited and when it held, from the recorded states.
function requestIntervals(lock, endTick) {
  const open = new Map();  // request -> interval being built
  const done = [];
  const close = (iv, tick) => { iv.end = tick; done.push(iv); };
  for (let s = 0; s < lock.states.length; s++) {
    const st = lock.states[s];
    const seen = new Set();
    const visit = (entry, held, position) => {
      seen.add(entry.request);
      let iv = open.get(entry.request);
      if (iv && iv.held !== held) { close(iv, st.tick); iv = null; }
      if (!iv) {
        iv = { request: entry.request, agent: entry.agent, mode: entry.mode, held, start: st.tick,
          positions: [] };
        open.set(entry.request, iv);
      }
      iv.positions.push([st.tick, position]);
    };
    st.held.forEach((h, i) => visit(h, true, i));
    st.pending.forEach((p, i) => visit(p, false, i));
    for (const [req, iv] of [...open]) {
      if (!seen.has(req)) { close(iv, st.tick); open.delete(req); }
    }
  }
  for (const iv of open.values()) close(iv, endTick);
  return done.sort((a, b) => a.start - b.start || (a.held ? -1 : 1));
}

// Rows by first fit for the intervals given (those in view), a request keeping its row from
// waiting to holding where it can; returns how many rows they take.
function packRows(intervals) {
  const rows = [];
  const rowOf = new Map();
  for (const iv of intervals) {
    let r = rowOf.get(iv.request);
    if (r === undefined || rows[r] > iv.start) {
      r = rows.findIndex((end) => end <= iv.start);
      if (r < 0) { r = rows.length; rows.push(0); }
    }
    rows[r] = iv.end;
    rowOf.set(iv.request, r);
    iv.row = r;
  }
  return Math.max(1, rows.length);
}

function buildLanes(data) {
  const tl = data.timeline;
  const endTick = tl.ticks.length;
  const lanes = [];
  for (const lock of tl.locks) {
    const intervals = requestIntervals(lock, endTick);
    lanes.push({ kind: 'lock', label: lock.name, sub: lock.manager, rows: packRows(intervals),
      intervals, lock });
  }
  for (const agent of data.trace.agents) {
    const events = tl.events.filter((e) => e.agent === agent.id);
    lanes.push({ kind: 'agent', label: agent.id, sub: `${agent.kind} ${agent.origin}`, rows: 1,
      events });
  }
  const loops = new Map();
  tl.ticks.forEach((t, i) => {
    if (t.priority < 0) return;
    const loop = t.unit.replace(/^loop:/, '').replace(/\/scheduler$/, '');
    if (!loops.has(loop)) loops.set(loop, []);
    loops.get(loop).push(i);
  });
  for (const [loop, ticks] of loops)
    lanes.push({ kind: 'tasks', label: `loop ${loop}`, sub: 'scheduler tasks by effective priority',
      rows: 6, ticks });
  return lanes;
}

// What a scheduler unit ran, from the events it logged.
function tickLabel(data, i) {
  const t = data.timeline.ticks[i];
  const evs = data.timeline.events.slice(t.events[0], t.events[1]);
  const task = evs.find((e) => e.event === 'task');
  if (task) return task.task;
  const settled = evs.find((e) => e.event === 'settled');
  return settled ? `${settled.target} resumes` : t.unit;
}

class Timeline {
  constructor(root, data, options) {
    this.data = data;
    this.compact = !!options.compact;
    this.ticks = data.timeline.ticks;
    this.lanes = buildLanes(data);
    this.onSelect = options.onSelect || (() => {});
    this.pxPerTick = options.pxPerTick || 0;
    this.selected = -1;
    this.highlight = null;  // {agent, tick}
    this.root = root;
    this.drawn = 0;
    const height = this.lanes.reduce((h, l) => h + (this.compact ? l.rows * ROW : laneHeight(l)) + 8,
      this.compact ? 4 : 26);
    this.height = height;
    if (this.compact) {
      this.width = options.width || 360;
      this.pxPerTick = this.width / Math.max(1, this.ticks.length);
      this.svg = svg('svg', { width: this.width, height, class: 'thumb' });
      root.append(this.svg);
      this.draw(0);
      return;
    }
    this.labels = el('div', { class: 'lane-labels' });
    this.scroller = el('div', { class: 'scroller' });
    this.spacer = el('div', { class: 'spacer' });
    this.svg = svg('svg', { height, class: 'lanes' });
    this.stage = el('div', { class: 'stage' }, this.svg);
    this.scroller.append(this.stage, this.spacer);
    root.append(el('div', { class: 'timeline-body' }, this.labels, this.scroller));
    this.drawLabels();
    this.scroller.addEventListener('scroll', () => this.redraw());
    this.svg.addEventListener('click', (ev) => {
      const x = ev.clientX - this.svg.getBoundingClientRect().left;
      const tick = Math.floor(this.t0 + x / this.pxPerTick);
      if (tick >= 0 && tick < this.ticks.length) this.select(tick);
    });
    window.addEventListener('resize', () => this.setZoom(this.pxPerTick));
    this.setZoom(this.pxPerTick || this.fitZoom());
  }

  viewWidth() { return Math.max(200, this.scroller.clientWidth || 800); }
  fitZoom() { return Math.min(60, Math.max(6, this.viewWidth() / Math.max(1, this.ticks.length))); }

  setZoom(px) {
    const center = this.t0 === undefined ? 0 : this.t0 + this.viewWidth() / 2 / this.pxPerTick;
    this.pxPerTick = Math.min(120, Math.max(1, px));
    this.spacer.style.width = `${Math.ceil(this.ticks.length * this.pxPerTick)}px`;
    if (this.t0 !== undefined)
      this.scroller.scrollLeft = Math.max(0, center * this.pxPerTick - this.viewWidth() / 2);
    this.redraw();
  }

  scrollToTick(tick) {
    this.scroller.scrollLeft = Math.max(0, tick * this.pxPerTick - this.viewWidth() / 3);
    this.redraw();
  }

  redraw() { this.draw(this.scroller.scrollLeft / this.pxPerTick); }

  select(tick) {
    this.selected = tick;
    if (!this.compact) this.redraw();
    this.onSelect(tick);
  }

  drawLabels() {
    this.labels.replaceChildren(el('div', { class: 'axis-label', text: 'steps' }));
    for (const lane of this.lanes) {
      const title = lane.kind === 'lock' ? `lock "${lane.label}"` : lane.kind === 'agent'
        ? `agent ${lane.label}` : lane.label;
      const node = el('div', { class: `lane-label ${lane.kind}` },
        el('b', { text: title }), el('small', { text: lane.sub }));
      node.style.height = `${laneHeight(lane) + 8}px`;
      lane.labelNode = node;
      if (lane.kind === 'tasks') {
        node.classList.add('priorities');
        for (let p = 5; p >= 0; p--) node.append(el('span', { text: PRIORITIES[p] }));
      }
      this.labels.append(node);
    }
  }

  // Draws ticks [t0, t0 + width / pxPerTick): everything else stays out of the DOM.
  draw(t0) {
    const width = this.compact ? this.width : this.viewWidth();
    this.t0 = t0;
    const t1 = t0 + width / this.pxPerTick;
    const x = (t) => (t - t0) * this.pxPerTick;
    const visible = (a, b) => b > t0 && a < t1;
    const g = svg('g', {});
    let drawn = 0;
    const add = (node, title) => {
      if (title) { const tt = svg('title', {}); tt.textContent = title; node.append(tt); }
      g.append(node);
      drawn++;
      return node;
    };
    const lo = Math.max(0, Math.floor(t0));
    const hi = Math.min(this.ticks.length, Math.ceil(t1));
    if (!this.compact) {
      // A lock lane is as tall as the requests in view need: a queue that was deep elsewhere in
      // the run does not leave empty rows here.
      for (const lane of this.lanes) {
        if (lane.kind !== 'lock') continue;
        lane.inView = lane.intervals.filter((iv) => visible(iv.start, iv.end));
        lane.rows = packRows(lane.inView);
        lane.labelNode.style.height = `${laneHeight(lane) + 8}px`;
      }
      this.height = this.lanes.reduce((h, l) => h + laneHeight(l) + 8, 26);
      this.svg.setAttribute('height', this.height);
    }
    let y = 0;
    if (!this.compact) {
      // The step axis: a line where each top-level step begins, labelled when there is room.
      let lastLabel = -1e9;
      for (let i = lo; i < hi; i++) {
        const step = this.ticks[i].step;
        if (i > 0 && this.ticks[i - 1].step === step) continue;
        add(svg('line', { x1: x(i), x2: x(i), y1: 0, y2: this.height, class: 'step-line' }));
        if (x(i) - lastLabel > 40) {
          const t = add(svg('text', { x: x(i) + 2, y: 14, class: 'step-label' }));
          t.textContent = `${step}`;
          lastLabel = x(i);
        }
      }
      if (this.selected >= 0 && visible(this.selected, this.selected + 1))
        add(svg('rect', { x: x(this.selected), y: 0, width: Math.max(2, this.pxPerTick),
          height: this.height, class: 'selected-tick' }));
      y = 26;
    } else {
      y = 4;
    }
    for (const lane of this.lanes) {
      const h = this.compact ? lane.rows * ROW : laneHeight(lane);
      add(svg('line', { x1: 0, x2: width, y1: y + h + 4, y2: y + h + 4, class: 'lane-rule' }));
      if (lane.kind === 'lock') {
        for (const iv of lane.inView || lane.intervals) {
          if (!visible(iv.start, iv.end)) continue;
          const x0 = Math.max(x(iv.start), -2);
          const w = Math.max(2, Math.min(x(iv.end), width + 2) - x0);
          const cls = iv.held ? `held ${iv.mode}` : 'pending';
          const what = iv.held ? `${iv.request} (${iv.agent}) holds "${lane.label}" ${iv.mode}`
            : `${iv.request} (${iv.agent}) waits for "${lane.label}" (${iv.mode})`;
          add(svg('rect', { x: x0, y: y + iv.row * ROW + 2, width: w, height: ROW - 4,
            class: `bar ${cls}`, 'data-request': iv.request }),
          `${what}, ticks ${iv.start}-${iv.end}`);
          if (!this.compact && w > 34) {
            const t = add(svg('text', { x: x0 + 3, y: y + iv.row * ROW + ROW - 6,
              class: `bar-label ${iv.held ? 'on-held' : ''}` }));
            t.textContent = `${iv.request}·${iv.agent}`;
          }
        }
      } else if (lane.kind === 'agent') {
        let i = 0;
        const evs = lane.events;
        while (i < evs.length) {
          let j = i;
          while (j < evs.length && evs[j].tick === evs[i].tick) j++;
          const tick = evs[i].tick;
          if (visible(tick, tick + 1)) {
            for (let k = i; k < j; k++) {
              const cx = x(tick) + this.pxPerTick * (k - i + 0.5) / (j - i);
              const e = evs[k];
              const hl = this.highlight && this.highlight.agent === e.agent &&
                this.highlight.index === this.agentIndex(e);
              add(svg('circle', { cx, cy: y + ROW / 2 + 2, r: this.compact ? 2.5 : 5,
                class: `event ${eventKind(e)}${hl ? ' divergent' : ''}` }), eventText(e));
            }
          }
          i = j;
        }
      } else {
        for (const tick of lane.ticks) {
          if (!visible(tick, tick + 1)) continue;
          const p = this.ticks[tick].priority;
          const ry = y + (this.compact ? 0 : TASK_HEADER) + (5 - p) * ROW + 3;
          add(svg('rect', { x: x(tick), y: ry, width: Math.max(3, this.pxPerTick - 1),
            height: ROW - 6, class: `task p${p}` }),
          `${tickLabel(this.data, tick)} at ${PRIORITIES[p]}`);
        }
      }
      y += h + 8;
    }
    this.svg.setAttribute('width', width);
    this.svg.replaceChildren(g);
    this.drawn = drawn;
    if (!this.compact) {
      // For readers and tests: how much is in the DOM against how much the run holds.
      const body = document.body.dataset;
      body.drawn = String(drawn);
      body.drawable = String(this.drawable());
      body.ticks = String(this.ticks.length);
      body.pxPerTick = this.pxPerTick.toFixed(2);
    }
  }

  // Everything the whole run would draw: bars, event dots, task marks, step lines.
  drawable() {
    let n = new Set(this.ticks.map((t) => t.step)).size;
    for (const lane of this.lanes)
      n += lane.kind === 'lock' ? lane.intervals.length
        : lane.kind === 'agent' ? lane.events.length : lane.ticks.length;
    return n;
  }

  agentIndex(e) {
    if (!this.indexes) {
      this.indexes = new Map();
      const count = {};
      for (const ev of this.data.timeline.events) {
        count[ev.agent] = (count[ev.agent] || 0);
        this.indexes.set(ev, count[ev.agent]++);
      }
    }
    return this.indexes.get(e);
  }
}

// ---- panels ----------------------------------------------------------------------------------

function lockStateAt(lock, tick) {
  let state = null;
  for (const s of lock.states) { if (s.tick <= tick) state = s; else break; }
  return state;
}

function tickDetails(data, tick) {
  const t = data.timeline.ticks[tick];
  const box = el('div', { class: 'details' });
  const what = t.unit === 'step' ? `step ${t.step}'s own task` : `unit ${t.unit}` +
    (t.priority >= 0 ? ` (${PRIORITIES[t.priority]})` : '') + ` while settling step ${t.step}`;
  box.append(el('h3', { text: `Tick ${tick}: ${what}` }));
  const step = data.trace.steps[t.step];
  if (step) box.append(el('p', {}, el('span', { text: `step ${t.step}: ` }),
    el('code', { text: JSON.stringify(step) })));
  const evs = data.timeline.events.slice(t.events[0], t.events[1]);
  box.append(el('h4', { text: evs.length ? 'Events logged' : 'No events logged' }));
  const ul = el('ul');
  for (const e of evs) ul.append(el('li', {}, el('b', { text: `${e.agent} ` }),
    el('span', { text: eventText(e) })));
  box.append(ul);
  box.append(el('h4', { text: 'Locks after this tick (held in the held set\'s order, ' +
    'waiting in queue order)' }));
  const table = el('table', { class: 'state' });
  table.append(el('tr', {}, el('th', { text: 'lock manager' }), el('th', { text: 'name' }),
    el('th', { text: 'held' }), el('th', { text: 'waiting' })));
  for (const lock of data.timeline.locks) {
    const s = lockStateAt(lock, tick);
    if (!s || (!s.held.length && !s.pending.length)) continue;
    const fmt = (list) => list.map((r) => `${r.request} (${r.agent}, ${r.mode})`).join(' → ');
    table.append(el('tr', {}, el('td', { text: lock.manager }), el('td', { text: lock.name }),
      el('td', { text: fmt(s.held) }), el('td', { text: fmt(s.pending) })));
  }
  box.append(table);
  return box;
}

function specLink(data, id) {
  const info = data.specSteps[id];
  if (!info) return el('code', { text: id });
  return el('a', { href: info.url, title: `${info.title}: ${info.words}`, class: 'spec-step',
    target: '_blank' }, id);
}

function verdictBlock(data) {
  const c = data.check;
  const box = el('section', { id: 'verdict', class: `verdict ${c.verdict.replace(' ', '-')}` });
  box.append(el('h2', { text: `Observed log: ${c.verdict}` }));
  box.append(el('p', { text: `profile ${c.profile}; ${c.runs} replays of the trace, ` +
    `${c.choicePoints} choice points searched; ${c.observedEvents} observed events.` }));
  // Unknown: the budget the search spent, and how to give it a larger one.
  if (c.verdict === 'unknown' && c.maxRuns !== undefined) {
    box.append(el('p', { class: 'budget', 'data-max-runs': String(c.maxRuns),
      text: `The search budget ran out before every schedule was tried: ${c.maxRuns} ` +
        `${c.maxRuns === 1 ? 'replay' : 'replays'} under each combination of readings on each ` +
        'engine (--max-runs of lockstep check and render sets it; a larger budget may decide ' +
        'the log).' }));
  }
  // Each combination of readings searched (I-24, I-25), when there were several: what the log
  // depends on.
  if ((c.searches || []).length > 1) {
    const list = el('ul', { class: 'searches' });
    for (const s of c.searches) {
      const named = Object.entries(s.readings).map(([k, v]) => `${k}: ${v}`).join(', ');
      const explained = s.verdict === 'allowed' ? '' :
        `, ${s.matched} of ${c.observedEvents} events explained`;
      const replays = `${s.runs} ${s.runs === 1 ? 'replay' : 'replays'}`;
      list.append(el('li', { 'data-verdict': s.verdict,
        text: `${named}: ${s.verdict}${explained} (${replays})` }));
    }
    box.append(el('p', { text: 'Readings searched, in order:' }), list);
  }
  const d = c.divergence;
  if (c.verdict !== 'allowed' && d) {
    box.append(el('p', {}, el('b', { text: 'First event no schedule explains: ' }),
      el('span', { text: d.observed ? `agent ${d.agent}'s event ${d.agentIndex} ` +
        `(events[${d.logIndex}] of the observed log): ${eventText(d.observed)}`
        : `agent ${d.agent} logged all ${d.agentIndex} of its observed events; the model ` +
          'always logs more' })));
    box.append(el('p', { text: `Longest prefix explained: ${d.matched} of ${c.observedEvents} ` +
      'events. The model\'s side below is the first run that got that far.' }));
    if (d.instead.length || d.modelCouldStop) {
      const ul = el('ul', { class: 'instead' });
      for (const e of d.instead) ul.append(el('li', { text: `${e.agent}: ${eventText(e)}` }));
      if (d.modelCouldStop) ul.append(el('li', { text: `nothing more for agent ${d.agent}` }));
      box.append(el('p', { text: 'What the model allowed there instead:' }), ul);
    }
    // Why, in words, and the spec's rule there (check/README.md, "Why").
    if (d.why) box.append(el('p', { class: 'why' }, el('b', { text: 'Why: ' }), el('span', { text: d.why })));
    if (d.restsOn && d.restsOn.length) {
      const p = el('p', { class: 'steps' }, el('span', { text: 'The spec\'s rule there: ' }));
      d.restsOn.forEach((id, i) => {
        if (i) p.append(', ');
        p.append(specLink(data, id));
      });
      box.append(p);
    }
    if (d.specSteps.length) {
      // The steps of the unit that logged what the model allowed instead (check/README.md).
      const shown = 10;
      const p = el('p', { class: 'steps' }, el('span', { text: 'Spec steps that decide it ' +
        '(those of the unit that logged the model\'s event instead): ' }));
      d.specSteps.slice(0, shown).forEach((id, i) => {
        if (i) p.append(', ');
        p.append(specLink(data, id));
      });
      box.append(p);
      if (d.specSteps.length > shown) {
        const more = el('details', {}, el('summary', { text: `${d.specSteps.length - shown} more` }));
        d.specSteps.slice(shown).forEach((id, i) => {
          if (i) more.append(', ');
          more.append(specLink(data, id));
        });
        box.append(more);
      }
    } else if (d.specStepsLookedUp === false && d.instead.length) {
      box.append(el('p', { class: 'steps', text: 'Spec steps: not looked up (the search\'s ' +
        'budget ran out on the impl engine, and a model replay of the divergence\'s schedule ' +
        'did not get there; lockstep check --model-only searches the model, which names them).' }));
    }
  }
  for (const a of c.assumptions || []) box.append(el('p', { class: 'assumed', text: `assumed: ${a}` }));
  return box;
}

// Expected (the model's run) and observed events, agent by agent, side by side.
function sideBySide(data, onPick) {
  const box = el('section', { id: 'compare' }, el('h2', { text: 'Expected and observed, per agent' }));
  const d = data.check.divergence;
  const observed = data.observed.events;
  for (const agent of data.trace.agents) {
    const mine = [];
    observed.forEach((e, i) => { if (e.agent === agent.id) mine.push([e, i]); });
    const model = data.timeline.events.filter((e) => e.agent === agent.id);
    if (!mine.length && !model.length) continue;
    const table = el('table', { class: 'compare' });
    table.append(el('tr', {}, el('th', { text: '#' }),
      el('th', { text: 'expected (the model)' }), el('th', { text: 'observed' })));
    const n = Math.max(mine.length, model.length);
    const here = d && data.check.verdict !== 'allowed' && d.agent === agent.id ? d.agentIndex : -1;
    for (let i = 0; i < n; i++) {
      const m = model[i];
      const o = mine[i];
      const same = m && o && eventText(m) === eventText(o[0]);
      const cls = i === here ? 'divergence' : here >= 0 && i > here ? 'after' : same ? 'same'
        : 'differs';
      const row = el('tr', { class: cls },
        el('td', { text: String(i) }), el('td', { text: m ? eventText(m) : '—' }),
        el('td', { text: o ? eventText(o[0]) : '—' }));
      if (i === here) {
        row.id = 'divergence';
        row.dataset.agent = agent.id;
        row.dataset.agentIndex = String(i);
        if (o) row.dataset.logIndex = String(o[1]);
      }
      if (m) row.addEventListener('click', () => onPick(m.tick));
      table.append(row);
    }
    box.append(el('h3', { text: `agent ${agent.id}` }), table);
  }
  return box;
}

function coverageBlock(data) {
  const box = el('section', { id: 'coverage' }, el('h2', { text: 'Spec steps exercised' }));
  for (const spec of data.coverage) {
    box.append(el('h3', {}, el('a', { href: spec.url, target: '_blank', text: spec.spec }),
      el('span', { text: `: ${spec.covered} of ${spec.total} steps` })));
    const table = el('table', { class: 'coverage' });
    for (const alg of spec.algorithms) {
      const cell = el('td');
      for (const s of alg.steps) {
        cell.append(el('a', { href: `${spec.url}#${alg.anchor}`, target: '_blank',
          class: `chip ${s.hits ? 'hit' : 'missed'}`, title: `${s.words}` +
            (s.hits ? ` (ran ${s.hits}×)` : ' (not exercised)'), text: s.number }));
      }
      table.append(el('tr', {}, el('th', {}, el('a', { href: `${spec.url}#${alg.anchor}`,
        target: '_blank', text: alg.title })), cell));
    }
    box.append(table);
  }
  return box;
}

function stepsBlock(data) {
  const box = el('section', { id: 'steps' }, el('h2', { text: 'Trace steps' }));
  const ol = el('ol', { start: '0', class: 'steps-list' });
  for (const s of data.trace.steps) ol.append(el('li', {}, el('code', { text: JSON.stringify(s) })));
  box.append(ol);
  return box;
}

function legend() {
  return el('div', { class: 'legend' },
    el('span', { class: 'key held exclusive' }), ' held exclusive ',
    el('span', { class: 'key held shared' }), ' held shared ',
    el('span', { class: 'key pending' }), ' waiting ',
    el('span', { class: 'key dot callback' }), ' callback ',
    el('span', { class: 'key dot task' }), ' task ',
    el('span', { class: 'key dot fulfilled' }), ' fulfilled ',
    el('span', { class: 'key dot rejected' }), ' rejected ',
    el('span', { class: 'key dot other' }), ' other ');
}

// ---- pages -----------------------------------------------------------------------------------

function reportPage(data) {
  const main = document.getElementById('main');
  main.append(el('header', {}, el('h1', { text: data.title }),
    data.trace.description ? el('p', { class: 'description', text: data.trace.description }) : null,
    el('p', { class: 'meta', text: `${data.trace.agents.length} agents, ` +
      `${data.trace.steps.length} steps, ${data.timeline.ticks.length} ticks, ` +
      `${data.timeline.events.length} events` }),
    data.timeline.schedule.length ? el('details', { class: 'schedule' },
      el('summary', { text: `the schedule drawn (${data.timeline.schedule.length} choices)` }),
      el('code', { text: data.timeline.schedule.join(' ') })) : null));
  if (data.check) main.append(verdictBlock(data));
  const details = el('div', { id: 'tick-details' });
  const section = el('section', { id: 'timeline' }, el('h2', { text: 'Timeline' }));
  const controls = el('div', { class: 'controls' });
  section.append(controls, legend());
  main.append(section);
  const timeline = new Timeline(section, data, {
    onSelect: (tick) => details.replaceChildren(tickDetails(data, tick)) });
  controls.append(
    el('button', { text: '−', title: 'zoom out', onclick: () => timeline.setZoom(timeline.pxPerTick / 1.6) }),
    el('button', { text: '+', title: 'zoom in', onclick: () => timeline.setZoom(timeline.pxPerTick * 1.6) }),
    el('button', { text: 'fit', onclick: () => timeline.setZoom(timeline.viewWidth() / Math.max(1, timeline.ticks.length)) }),
    el('span', { class: 'hint', text: 'click a tick for its events and the lock queues; ' +
      'scroll sideways to move' }));
  section.append(details);
  if (data.check) {
    const d = data.check.divergence;
    main.append(sideBySide(data, (tick) => { timeline.scrollToTick(tick); timeline.select(tick); }));
    if (data.check.verdict !== 'allowed' && d) {
      const model = data.timeline.events.filter((e) => e.agent === d.agent);
      const at = model[Math.min(d.agentIndex, model.length - 1)];
      if (at) {
        timeline.highlight = { agent: d.agent, index: timeline.agentIndex(at) };
        timeline.scrollToTick(at.tick);
        timeline.select(at.tick);
      }
    }
  }
  if (data.coverage) main.append(coverageBlock(data));
  main.append(stepsBlock(data));
}

function indexPage(data) {
  const main = document.getElementById('main');
  main.append(el('header', {}, el('h1', { text: data.title }),
    el('p', { class: 'meta', text: `${data.entries.length} scenarios; each picture is the ` +
      'model\'s run: lock names (held, waiting), agents\' events, scheduler tasks.' })));
  const grid = el('div', { class: 'grid' });
  for (const entry of data.entries) {
    const card = el('a', { class: 'card', href: entry.href });
    card.append(el('h3', { text: entry.name }));
    if (entry.verdict) card.append(el('span', { class: `badge ${entry.verdict.replace(' ', '-')}`,
      text: `expected log: ${entry.verdict}` }));
    const pic = el('div', { class: 'picture' });
    card.append(pic);
    new Timeline(pic, entry, { compact: true, width: 340 });
    card.append(el('p', { class: 'description', text: entry.trace.description || '' }));
    grid.append(card);
  }
  main.append(grid);
}

try {
  const data = JSON.parse(document.getElementById('lockstep-data').textContent);
  if (data.kind === 'index') indexPage(data); else reportPage(data);
  document.body.dataset.rendered = 'ok';
} catch (e) {
  document.body.dataset.rendered = 'failed';
  document.getElementById('main').prepend(el('pre', { class: 'fatal', text: String(e && e.stack || e) }));
  throw e;
}
