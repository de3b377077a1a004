// The page of pmcshim-report --format html: the run's totals, a region
// icicle (outermost on top), a sortable region table, the regions' spread
// across ranks or processes, and the sampled stacks' flame graph per
// region, of the data the reader embeds (see tools/reader/views/report_html.c
// for its shape), per view: everything, one process, or one thread. No
// network, no library.
'use strict';
(function () {
	const D = JSON.parse(document.getElementById('pmcshim-data').textContent);
	const NV = D.values.length, MM = D.minmax, STRIDE = 3 + 2 * NV + 2 * MM.length;
	const ROW_H = 18, TABLE_MAX = 500;
	const $ = (id) => document.getElementById(id);
	const el = (tag, text) => {
		const e = document.createElement(tag);
		if (text !== undefined)
			e.textContent = text;
		return e;
	};
	let tree = null, weight = D.weight, zoom = 0, byIpc = false;
	let view = null, sampled = null, szoom = 0, sregion = -1;

	// Views: everything, each process, each thread (by file and tid).
	const views = [{ name: 'all processes and threads', file: -1, tid: -1 }];
	D.files.forEach((f, fi) => views.push({ name: f.label, file: fi, tid: -1 }));
	D.files.forEach((f, fi) => f.threads.forEach((t) =>
		views.push({ name: f.label + ' / ' + t.label, file: fi, tid: t.tid })));
	const picks = (v, fi, tid) => (v.file < 0 || v.file === fi) && (v.tid < 0 || v.tid === tid);

	// Rows merged by path: node k has parent[k], region[k], and per value
	// v the sums incl[k * NV + v], excl[k * NV + v] and its calls' least
	// and most, min[k * NV + v], max[k * NV + v] (NaN: no value; the page
	// carries them for the values D.minmax names alone).
	function build(view) {
		const t = { parent: [-1], region: [-1], calls: [0], depth: [0], rec: [false],
			    incl: [], excl: [], min: [], max: [], key: new Map() };
		const add = (a, k, x, f) => {
			if (x !== null)
				a[k] = Number.isNaN(a[k]) ? x : f(a[k], x);
		};
		const plus = (a, b) => a + b;
		const fresh = () => {
			for (let v = 0; v < NV; v++)
				t.incl.push(NaN), t.excl.push(NaN), t.min.push(NaN), t.max.push(NaN);
		};
		fresh();
		D.files.forEach((f, fi) => f.threads.forEach((th) => {
			if (!picks(view, fi, th.tid))
				return;
			const r = th.rows, n = r.length / STRIDE, node = new Int32Array(n);
			for (let j = 0; j < n; j++) {
				const o = j * STRIDE, up = r[o] < 0 ? 0 : node[r[o]];
				const key = up * D.regions.length + r[o + 1];
				let k = t.key.get(key);
				if (k === undefined) {
					k = t.parent.length;
					t.key.set(key, k);
					t.parent.push(up), t.region.push(r[o + 1]), t.calls.push(0);
					t.depth.push(t.depth[up] + 1);
					let rec = false;
					for (let a = up; a > 0 && !rec; a = t.parent[a])
						rec = t.region[a] === r[o + 1];
					t.rec.push(rec);
					fresh();
				}
				node[j] = k;
				t.calls[k] += r[o + 2];
				for (let v = 0; v < NV; v++) {
					add(t.incl, k * NV + v, r[o + 3 + 2 * v], plus);
					add(t.excl, k * NV + v, r[o + 4 + 2 * v], plus);
				}
				for (let i = 0, x = o + 3 + 2 * NV; i < MM.length; i++, x += 2) {
					add(t.min, k * NV + MM[i], r[x], Math.min);
					add(t.max, k * NV + MM[i], r[x + 1], Math.max);
				}
			}
		}));
		t.n = t.parent.length;
		return t;
	}

	// Inclusive and exclusive weight per node (w -1: calls). The reader
	// gives each row's inclusive value made from its subtree's exclusive
	// ones (docs/reading.md): a node is never smaller than its children.
	function weigh(t, w) {
		const own = new Float64Array(t.n), sub = new Float64Array(t.n);
		const incl = new Float64Array(t.n);
		for (let k = 1; k < t.n; k++) {
			const x = w < 0 ? t.calls[k] : t.excl[k * NV + w];
			own[k] = Number.isNaN(x) ? 0 : x;
		}
		for (let k = t.n - 1; k > 0; k--) {
			sub[k] += own[k];
			sub[t.parent[k]] += sub[k];
		}
		for (let k = 1; k < t.n; k++) {
			const x = w < 0 ? sub[k] : t.incl[k * NV + w];
			incl[k] = Number.isNaN(x) ? 0 : x;
		}
		incl[0] = 0;
		const kids = Array.from({ length: t.n }, () => []);
		for (let k = 1; k < t.n; k++) {
			kids[t.parent[k]].push(k);
			if (t.parent[k] === 0)
				incl[0] += incl[k];
		}
		for (const c of kids)
			c.sort((a, b) => incl[b] - incl[a]);
		t.own = own, t.inclw = incl, t.kids = kids;
	}

	function fmt(x, v) {
		if (Number.isNaN(x) || x === undefined)
			return 'n/a';
		const time = v >= 0 && D.values[v].time;
		const units = time ? [[1e9, ' s'], [1e6, ' ms'], [1e3, ' us'], [1, ' ns']]
				   : [[1e12, ' T'], [1e9, ' G'], [1e6, ' M'], [1e3, ' k'], [1, '']];
		for (const [div, unit] of units)
			if (Math.abs(x) >= div || div === 1)
				return (div === 1 && !time ? String(Math.round(x))
					: (x / div).toPrecision(3)) + unit;
	}

	function path(t, k) {
		const p = [];
		for (; k > 0; k = t.parent[k])
			p.unshift(D.regions[t.region[k]]);
		return p.join(';');
	}

	// IPC of node k (its inclusive instructions over cycles), or NaN.
	function nodeIpc(t, k) {
		if (!D.ipc)
			return NaN;
		return t.incl[k * NV + D.ipc[0]] / t.incl[k * NV + D.ipc[1]];
	}

	// A name keeps its colour: warm hues from its characters.
	function nameColor(name) {
		let h = 0;
		for (const c of name)
			h = (h * 31 + c.charCodeAt(0)) >>> 0;
		return 'hsl(' + (h % 60 + 10) + ',80%,' + (62 + h % 15) + '%)';
	}

	// By name, or by IPC: red below 0.5, green from 2 up; grey without one.
	function color(t, k) {
		if (byIpc) {
			const x = nodeIpc(t, k);
			if (!Number.isFinite(x))
				return '#ccc';
			return 'hsl(' + Math.round(120 * Math.min(1, Math.max(0, (x - 0.5) / 1.5))) + ',70%,60%)';
		}
		return nameColor(D.regions[t.region[k]]);
	}

	// A tooltip's parts that have a value: no "NaN", no "undefined" where
	// nothing was counted (no PMU: no IPC).
	const tip = (head, parts) => head + '\n' + parts.filter((p) => p !== null).join(', ');

	// An icicle of tree g (parent, kids, inclw per node, node 0 the root)
	// in box from node zoom down, its ancestors above at full width; look
	// names, colours and explains a node. Returns the nodes drawn.
	function icicle(box, g, zoom, look) {
		const width = box.clientWidth, frag = document.createDocumentFragment(), chain = [];
		for (let a = zoom; a > 0; a = g.parent[a])
			chain.unshift(a);
		let drawn = 0, rows = 0;
		const put = (k, x, w, row, above) => {
			const d = el('div', look.label(k));
			d.className = above ? 'node above' : 'node';
			d.dataset.id = k;
			d.style.left = x + 'px', d.style.top = row * ROW_H + 'px';
			d.style.width = w + 'px', d.style.background = look.color(k);
			d.title = look.title(k);
			frag.appendChild(d);
			rows = Math.max(rows, row + 1);
			drawn++;
		};
		chain.forEach((k, i) => put(k, 0, width, i, k !== zoom));
		const walk = (k, x, w, row) => {
			let cx = x;
			const total = g.inclw[k] || 1;
			for (const c of g.kids[k]) {
				const cw = w * g.inclw[c] / total;
				if (cw >= 1) {
					put(c, cx, cw, row, false);
					walk(c, cx, cw, row + 1);
				}
				cx += cw;
			}
		};
		walk(zoom, 0, width, chain.length);
		box.textContent = '';
		box.style.height = Math.max(rows, 1) * ROW_H + 'px';
		box.appendChild(frag);
		box.dataset.nodes = g.n - 1;
		box.dataset.zoom = zoom;
		return drawn;
	}

	function drawFlame() {
		const t = tree;
		const drawn = icicle($('flame'), t, zoom, {
			label: (k) => D.regions[t.region[k]],
			color: (k) => color(t, k),
			title: (k) => {
				const ipc = nodeIpc(t, k);
				return tip(path(t, k), ['incl ' + fmt(t.inclw[k], weight),
					'excl ' + fmt(t.own[k], weight), 'calls ' + t.calls[k],
					Number.isFinite(ipc) ? 'IPC ' + ipc.toFixed(2) : null]);
			},
		});
		$('count').textContent = (t.n - 1) + ' nodes, ' + drawn + ' drawn' +
			(zoom ? ', zoomed on ' + path(t, zoom) : '');
	}

	// Per region of tree t: calls, incl (not counting a region inside
	// itself twice), excl, and of value v (the weight; -1: calls) the
	// calls' mean (incl over calls), least and most, wall time, IPC where
	// both events are there.
	function regionRows(t, v) {
		const rows = new Map(), ipc = D.ipc;
		const val = (a, k, x) => (x < 0 ? NaN : a[k * NV + x]);
		for (let k = 1; k < t.n; k++) {
			const r = t.region[k];
			let e = rows.get(r);
			if (!e)
				rows.set(r, e = { region: r, name: D.regions[r], calls: 0, incl: 0, excl: 0,
						  ins: 0, cyc: 0, wall: 0, min: NaN, max: NaN });
			e.calls += t.calls[k];
			e.excl += t.own[k];
			const lo = val(t.min, k, v), hi = val(t.max, k, v);
			if (!Number.isNaN(lo))
				e.min = Number.isNaN(e.min) ? lo : Math.min(e.min, lo);
			if (!Number.isNaN(hi))
				e.max = Number.isNaN(e.max) ? hi : Math.max(e.max, hi);
			if (t.rec[k])
				continue;
			e.incl += t.inclw[k];
			e.wall += t.incl[k * NV] || 0;
			if (ipc) {
				e.ins += t.incl[k * NV + ipc[0]] || 0;
				e.cyc += t.incl[k * NV + ipc[1]] || 0;
			}
		}
		const all = [...rows.values()], total = t.inclw[0];
		for (const e of all) {
			e.share = total ? e.excl / total : NaN;
			e.ipc = e.cyc ? e.ins / e.cyc : NaN;
			e.mean = v >= 0 && e.calls ? e.incl / e.calls : NaN;
			// the reader's rule (sum_min, sum_max): the mean bounds min
			// and max (a recursive region's mean counts its incl once)
			if (!Number.isNaN(e.mean) && !Number.isNaN(e.min))
				e.min = Math.min(e.min, Math.floor(e.mean)), e.max = Math.max(e.max, Math.ceil(e.mean));
		}
		return all;
	}

	// A sortable table: cols [key, label, cell(row) -> text]; state
	// {key, dir} is kept by the caller; redraw after a click; pick(row),
	// where given, on a click on a row.
	function sortable(id, all, cols, state, redraw, pick) {
		all.sort((a, b) => {
			const x = a[state.key], y = b[state.key];
			const c = typeof x === 'string' ? x.localeCompare(y) :
				(Number.isNaN(x) ? -Infinity : x) - (Number.isNaN(y) ? -Infinity : y);
			return state.dir * c || a.name.localeCompare(b.name);
		});
		const table = el('table'), head = el('tr');
		table.id = id;
		for (const [key, label] of cols) {
			const th = el('th', label);
			th.dataset.key = key;
			if (key === state.key)
				th.className = state.dir < 0 ? 'sorted-desc' : 'sorted-asc';
			th.onclick = () => {
				state.dir = key === state.key ? -state.dir : key === 'name' ? 1 : -1;
				state.key = key;
				redraw();
			};
			head.appendChild(th);
		}
		table.appendChild(head);
		for (const e of all.slice(0, TABLE_MAX)) {
			const tr = el('tr');
			for (const [key, , cell] of cols) {
				const td = el('td', cell(e));
				td.dataset.v = e[key];
				tr.appendChild(td);
			}
			if (pick)
				tr.onclick = () => pick(e);
			table.appendChild(tr);
		}
		return table;
	}

	const na = (x, f) => (Number.isNaN(x) ? 'n/a' : f(x));
	const pct = (x) => na(x, (y) => (100 * y).toFixed(1) + '%');
	const tableState = { key: 'incl', dir: -1 };

	// The text table's columns: share, calls, wall time, the weight's
	// incl and excl, per call mean, min and max, IPC.
	function drawTable() {
		const all = regionRows(tree, weight), w = weight;
		const cols = [['name', 'region', (e) => e.name], ['share', 'share', (e) => pct(e.share)],
			      ['calls', 'calls', (e) => String(e.calls)],
			      ['wall', 'wall', (e) => fmt(e.wall, 0)],
			      ['incl', 'incl', (e) => fmt(e.incl, w)], ['excl', 'excl', (e) => fmt(e.excl, w)],
			      ['mean', 'mean', (e) => fmt(e.mean, w)], ['min', 'min', (e) => fmt(e.min, w)],
			      ['max', 'max', (e) => fmt(e.max, w)]];
		if (D.ipc)
			cols.push(['ipc', 'IPC', (e) => na(e.ipc, (x) => x.toFixed(2))]);
		$('table').textContent = '';
		$('table').appendChild(sortable('regions', all, cols, tableState, drawTable, openSamples));
		$('table-note').textContent = (all.length > TABLE_MAX ? 'the first ' + TABLE_MAX +
			' of ' + all.length + ' regions' : all.length + ' regions') + '; ' +
			(w < 0 ? 'weight calls: no mean, min or max' : 'incl, excl, mean, min, max: ' +
			 D.values[w].name + '; mean, min, max: per call' + (MM.includes(w) ? '' :
			 ' (the page carries min and max for ' + MM.map((x) => D.values[x].name).join(' and ') +
			 ' only)'));
	}

	// Each region across the processes (ranks where all are MPI ranks):
	// the weight's incl per process, its least, mean and most, the process
	// with the most, and max/mean (1.00: balanced), as --ranks prints.
	const spreadState = { key: 'max', dir: -1 };
	function drawSpread() {
		const box = $('spread');
		box.textContent = '';
		if (D.files.length < 2) {
			box.textContent = 'one process: nothing to compare';
			return;
		}
		const ranks = D.files.every((f) => f.rank !== null), n = D.files.length;
		const per = new Map();
		D.files.forEach((f, fi) => {
			const t = build(views[1 + fi]);
			weigh(t, weight);
			for (const e of regionRows(t, weight)) {
				let s = per.get(e.region);
				if (!s)
					per.set(e.region, s = { name: e.name, vals: new Array(n).fill(0), have: 0 });
				s.vals[fi] = e.incl;
				s.have++;
			}
		});
		const who = (fi) => (ranks ? 'rank ' + D.files[fi].rank : 'pid ' + D.files[fi].pid);
		const all = [...per.values()].map((s) => {
			let at = 0;
			s.vals.forEach((x, i) => { if (x > s.vals[at]) at = i; });
			const mean = s.vals.reduce((a, b) => a + b, 0) / n;
			return { name: s.name, have: s.have, min: Math.min(...s.vals), mean, max: s.vals[at],
				 at: who(at), imbalance: mean > 0 ? s.vals[at] / mean : NaN };
		});
		const w = weight, unit = ranks ? 'ranks' : 'processes';
		const cols = [['name', 'region', (e) => e.name], ['have', unit, (e) => String(e.have)],
			      ['min', 'min', (e) => fmt(e.min, w)], ['mean', 'mean', (e) => fmt(e.mean, w)],
			      ['max', 'max', (e) => fmt(e.max, w)], ['at', 'max at', (e) => e.at],
			      ['imbalance', 'max/mean', (e) => na(e.imbalance, (x) => x.toFixed(2))]];
		$('spread-note').textContent = 'across ' + n + ' ' + unit + ': ' +
			(w < 0 ? 'calls' : D.values[w].name) + ' incl per ' + (ranks ? 'rank' : 'process') +
			' (one without the region counts 0); max/mean 1.00: balanced';
		box.appendChild(sortable('ranks', all, cols, spreadState, drawSpread));
	}

	// The sampled stacks of the view taken in region sregion (-1: all),
	// merged by path: node k has parent, frame, own and inclusive samples.
	function buildSampled() {
		const S = D.samples, g = { parent: [-1], frame: [-1], own: [0], key: new Map() };
		for (const st of S.stacks) {
			if (!picks(view, st[0], st[1]) || (sregion >= 0 && st[2] !== sregion))
				continue;
			let k = 0;
			for (let i = 4; i < st.length; i++) {
				const key = k * S.frames.length + st[i];
				let c = g.key.get(key);
				if (c === undefined) {
					c = g.parent.length;
					g.key.set(key, c);
					g.parent.push(k), g.frame.push(st[i]), g.own.push(0);
				}
				k = c;
			}
			g.own[k] += st[3];
		}
		g.n = g.parent.length;
		g.inclw = new Float64Array(g.n);
		g.kids = Array.from({ length: g.n }, () => []);
		for (let k = g.n - 1; k >= 0; k--) {
			g.inclw[k] += g.own[k];
			if (k > 0) {
				g.inclw[g.parent[k]] += g.inclw[k];
				g.kids[g.parent[k]].push(k);
			}
		}
		for (const c of g.kids)
			c.sort((a, b) => g.inclw[b] - g.inclw[a]);
		return g;
	}

	function drawSampled() {
		if (!D.samples)
			return;
		const g = sampled, S = D.samples, total = g.inclw[0];
		const name = (k) => S.frames[g.frame[k]];
		const spath = (k) => {
			const p = [];
			for (; k > 0; k = g.parent[k])
				p.unshift(name(k));
			return p.join(';');
		};
		const drawn = icicle($('sflame'), g, szoom, {
			label: name,
			color: (k) => nameColor(name(k)),
			title: (k) => tip(spath(k), [g.inclw[k] + ' samples', pct(g.inclw[k] / total),
				'self ' + g.own[k]]),
		});
		$('sflame').dataset.samples = total;
		$('scount').textContent = total + ' samples (' + S.event + ')' +
			(sregion >= 0 ? ' in ' + S.regions[sregion] : '') + ', ' + (g.n - 1) +
			' frames, ' + drawn + ' drawn' + (szoom ? ', zoomed on ' + spath(szoom) : '');
	}

	// A click on a region's row opens the flame graph of its samples.
	function openSamples(e) {
		const i = D.samples ? D.samples.regions.indexOf(e.name) : -1;
		if (i < 0)
			return;
		$('sregion').value = i;
		$('sregion').onchange();
		$('sampled').scrollIntoView();
	}

	function samplesControls() {
		if (!D.samples) {
			$('sampled').textContent = 'no sampled stacks (run with pmcshim --sample)';
			return;
		}
		const rs = $('sregion'), o = el('option', 'all regions');
		o.value = -1;
		rs.appendChild(o);
		D.samples.regions.forEach((r, i) => {
			const x = el('option', r);
			x.value = i;
			rs.appendChild(x);
		});
		rs.onchange = () => {
			sregion = Number(rs.value);
			sampled = buildSampled();
			szoom = 0;
			drawSampled();
		};
		$('sflame').onclick = (ev) => {
			const id = ev.target.dataset && ev.target.dataset.id;
			if (id === undefined)
				return;
			szoom = Number(id) === szoom ? sampled.parent[szoom] : Number(id);
			drawSampled();
		};
		$('sreset').onclick = () => {
			szoom = 0;
			drawSampled();
		};
	}

	function draw() {
		weigh(tree, weight);
		drawFlame();
		drawTable();
		drawSpread();
	}

	function setView(v) {
		view = views[v];
		tree = build(view);
		zoom = 0;
		if (D.samples) {
			sampled = buildSampled();
			szoom = 0;
			drawSampled();
		}
		draw();
	}

	function controls() {
		const vs = $('view'), ws = $('weight');
		views.forEach((v, i) => {
			const o = el('option', v.name);
			o.value = i;
			vs.appendChild(o);
		});
		D.values.forEach((v, i) => {
			const o = el('option', v.name);
			o.value = i;
			ws.appendChild(o);
		});
		const o = el('option', 'calls');
		o.value = -1;
		ws.appendChild(o);
		ws.value = weight;
		vs.onchange = () => setView(Number(vs.value));
		ws.onchange = () => {
			weight = Number(ws.value);
			draw();
		};
		$('flame').onclick = (ev) => {
			const id = ev.target.dataset && ev.target.dataset.id;
			if (id === undefined)
				return;
			zoom = Number(id) === zoom ? tree.parent[zoom] : Number(id);
			drawFlame();
		};
		$('reset').onclick = () => {
			zoom = 0;
			drawFlame();
		};
		window.onresize = () => {
			drawFlame();
			drawSampled();
		};
		const cs = $('color');
		if (!D.ipc)
			cs.disabled = true;
		cs.onchange = () => {
			byIpc = cs.value === 'ipc';
			drawFlame();
		};
		samplesControls();
	}

	// Each process, its state and events; an event that could not be
	// counted says why once below, with how many processes it struck,
	// not once per process (or rank).
	function files() {
		const box = $('files'), why = new Map();
		for (const f of D.files) {
			const d = el('div');
			d.appendChild(el('b', f.label));
			d.appendChild(document.createTextNode(' ' + f.state + (f.tree ? '' :
				' (no region tree: an older shim; regions shown outermost)') + '. events: '));
			f.events.forEach((e, i) => {
				const s = el('span', (i ? ', ' : '') + e.name + ' (' + e.source + ')');
				if (e.source === 'unavailable')
					s.className = 'unavailable';
				d.appendChild(s);
				if (e.reason) {
					const k = e.name + ' (' + e.source + '): ' + e.reason;
					why.set(k, (why.get(k) || 0) + 1);
				}
			});
			if (!f.events.length)
				d.appendChild(document.createTextNode('none (wall time only)'));
			box.appendChild(d);
		}
		const n = D.files.length;
		for (const [k, count] of why) {
			const d = el('div', k + (n > 1 ? ' (in ' + count + ' of ' + n + ' processes)' : ''));
			d.className = 'unavailable';
			$('errors').appendChild(d);
		}
	}

	$('title').textContent = D.title;
	$('totals').textContent = D.totals.replace(/^\n+/, '');
	files();
	controls();
	setView(0);
	window.pmcshimReadyMs = performance.now();
	document.body.dataset.ready = '1';
})();
