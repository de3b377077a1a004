// The page of pmcshim-report --format html: a region icicle (outermost on
// top) and a sortable region table of the data the reader embeds (see
// tools/reader/views/report_html.c for its shape), per view: everything, one process,
// or one thread. No network, no library.
'use strict';
(function () {
	const D = JSON.parse(document.getElementById('pmcshim-data').textContent);
	const NV = D.values.length, STRIDE = 3 + 2 * NV, ROW_H = 18, TABLE_MAX = 500;
	const $ = (id) => document.getElementById(id);
	const el = (tag, text) => {
		const e = document.createElement(tag);
		if (text !== undefined)
			e.textContent = text;
		return e;
	};
	let tree = null, weight = D.weight, zoom = 0, sortKey = 'incl', sortDir = -1, byIpc = false;

	// Views: everything, each process, each thread.
	const views = [{ name: 'all processes and threads', pick: () => true }];
	D.files.forEach((f, fi) => views.push({ name: f.label, pick: (a) => a === fi }));
	D.files.forEach((f, fi) => f.threads.forEach((t, ti) =>
		views.push({ name: f.label + ' / ' + t.label, pick: (a, b) => a === fi && b === ti })));

	// Rows merged by path: node k has parent[k], region[k], and per value
	// v the sums incl[k * NV + v], excl[k * NV + v] (NaN: no value).
	function build(view) {
		const t = { parent: [-1], region: [-1], calls: [0], depth: [0], rec: [false],
			    incl: [], excl: [], key: new Map() };
		const add = (a, k, x) => {
			if (x !== null)
				a[k] = Number.isNaN(a[k]) ? x : a[k] + x;
		};
		for (let v = 0; v < NV; v++)
			t.incl.push(NaN), t.excl.push(NaN);
		D.files.forEach((f, fi) => f.threads.forEach((th, ti) => {
			if (!view.pick(fi, ti))
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
					for (let v = 0; v < NV; v++)
						t.incl.push(NaN), t.excl.push(NaN);
				}
				node[j] = k;
				t.calls[k] += r[o + 2];
				for (let v = 0; v < NV; v++) {
					add(t.incl, k * NV + v, r[o + 3 + 2 * v]);
					add(t.excl, k * NV + v, r[o + 4 + 2 * v]);
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

	// By name (a region keeps its colour), or by IPC: red below 0.5,
	// green from 2 up; grey without one.
	function color(t, k) {
		const r = t.region[k];
		if (byIpc) {
			const x = nodeIpc(t, k);
			if (!Number.isFinite(x))
				return '#ccc';
			return 'hsl(' + Math.round(120 * Math.min(1, Math.max(0, (x - 0.5) / 1.5))) + ',70%,60%)';
		}
		let h = 0;
		for (const c of D.regions[r])
			h = (h * 31 + c.charCodeAt(0)) >>> 0;
		return 'hsl(' + (h % 60 + 10) + ',80%,' + (62 + h % 15) + '%)';
	}

	// The icicle from the zoomed node down; its ancestors above, full width.
	function drawFlame() {
		const box = $('flame'), width = box.clientWidth, t = tree;
		const frag = document.createDocumentFragment();
		const chain = [];
		for (let a = zoom; a > 0; a = t.parent[a])
			chain.unshift(a);
		let drawn = 0, rows = 0;
		const put = (k, x, w, row, above) => {
			const d = el('div', D.regions[t.region[k]]);
			d.className = above ? 'node above' : 'node';
			d.dataset.id = k;
			d.style.left = x + 'px', d.style.top = row * ROW_H + 'px';
			d.style.width = w + 'px', d.style.background = color(t, k);
			d.title = path(t, k) + '\nincl ' + fmt(t.inclw[k], weight) + ', excl ' +
				  fmt(t.own[k], weight) + ', calls ' + t.calls[k] +
				  (D.ipc ? ', IPC ' + nodeIpc(t, k).toFixed(2) : '');
			frag.appendChild(d);
			rows = Math.max(rows, row + 1);
			drawn++;
		};
		chain.forEach((k, i) => put(k, 0, width, i, k !== zoom));
		const walk = (k, x, w, row) => {
			let cx = x;
			const total = t.inclw[k] || 1;
			for (const c of t.kids[k]) {
				const cw = w * t.inclw[c] / total;
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
		$('count').textContent = (t.n - 1) + ' nodes, ' + drawn + ' drawn' +
			(zoom ? ', zoomed on ' + path(t, zoom) : '');
		box.dataset.nodes = t.n - 1;
		box.dataset.zoom = zoom;
	}

	// Per region: calls, incl (not counting a region inside itself twice),
	// excl, share (its excl over the whole, as in the text table), IPC
	// where both events are there.
	function drawTable() {
		const t = tree, rows = new Map(), ipc = D.ipc;
		for (let k = 1; k < t.n; k++) {
			const r = t.region[k];
			let e = rows.get(r);
			if (!e)
				rows.set(r, e = { name: D.regions[r], calls: 0, incl: 0, excl: 0, ins: 0, cyc: 0 });
			e.calls += t.calls[k];
			e.excl += t.own[k];
			if (!t.rec[k])
				e.incl += t.inclw[k];
			if (ipc && !t.rec[k]) {
				e.ins += t.incl[k * NV + ipc[0]] || 0;
				e.cyc += t.incl[k * NV + ipc[1]] || 0;
			}
		}
		const all = [...rows.values()], total = tree.inclw[0];
		for (const e of all) {
			e.share = total ? e.excl / total : NaN;
			e.ipc = e.cyc ? e.ins / e.cyc : NaN;
		}
		all.sort((a, b) => {
			const x = a[sortKey], y = b[sortKey];
			const c = typeof x === 'string' ? x.localeCompare(y) :
				(Number.isNaN(x) ? -Infinity : x) - (Number.isNaN(y) ? -Infinity : y);
			return sortDir * c || a.name.localeCompare(b.name);
		});
		const cols = [['name', 'region'], ['calls', 'calls'], ['incl', 'incl'],
			      ['excl', 'excl'], ['share', 'share']];
		if (ipc)
			cols.push(['ipc', 'IPC']);
		const table = el('table'), head = el('tr');
		table.id = 'regions';
		for (const [key, label] of cols) {
			const th = el('th', label);
			th.dataset.key = key;
			if (key === sortKey)
				th.className = sortDir < 0 ? 'sorted-desc' : 'sorted-asc';
			th.onclick = () => {
				sortDir = key === sortKey ? -sortDir : key === 'name' ? 1 : -1;
				sortKey = key;
				drawTable();
			};
			head.appendChild(th);
		}
		table.appendChild(head);
		for (const e of all.slice(0, TABLE_MAX)) {
			const tr = el('tr');
			tr.appendChild(el('td', e.name));
			tr.appendChild(el('td', String(e.calls)));
			tr.appendChild(el('td', fmt(e.incl, weight)));
			tr.appendChild(el('td', fmt(e.excl, weight)));
			tr.appendChild(el('td', Number.isNaN(e.share) ? 'n/a' : (100 * e.share).toFixed(1) + '%'));
			if (ipc)
				tr.appendChild(el('td', Number.isNaN(e.ipc) ? 'n/a' : e.ipc.toFixed(2)));
			for (const [i, [key]] of cols.entries())
				tr.children[i].dataset.v = e[key];
			table.appendChild(tr);
		}
		$('table').textContent = '';
		$('table').appendChild(table);
		$('table-note').textContent = all.length > TABLE_MAX ?
			'the first ' + TABLE_MAX + ' of ' + all.length + ' regions' : all.length + ' regions';
	}

	function draw() {
		weigh(tree, weight);
		drawFlame();
		drawTable();
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
		vs.onchange = () => {
			tree = build(views[vs.value]);
			zoom = 0;
			draw();
		};
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
		window.onresize = drawFlame;
		const cs = $('color');
		if (!D.ipc)
			cs.disabled = true;
		cs.onchange = () => {
			byIpc = cs.value === 'ipc';
			drawFlame();
		};
	}

	function files() {
		const box = $('files');
		for (const f of D.files) {
			const d = el('div');
			d.appendChild(el('b', f.label));
			d.appendChild(document.createTextNode(' ' + f.state + (f.tree ? '' :
				' (no region tree: an older shim; regions shown outermost)') + '. events: '));
			f.events.forEach((e, i) => {
				const s = el('span', (i ? ', ' : '') + e.name + ' (' + e.source +
					(e.reason ? ': ' + e.reason : '') + ')');
				if (e.source === 'unavailable')
					s.className = 'unavailable';
				d.appendChild(s);
			});
			if (!f.events.length)
				d.appendChild(document.createTextNode('none (wall time only)'));
			box.appendChild(d);
		}
	}

	$('title').textContent = D.title;
	files();
	controls();
	tree = build(views[0]);
	draw();
	window.pmcshimReadyMs = performance.now();
	document.body.dataset.ready = '1';
})();
