// The system report's page (report_html_system.c): for the event chosen,
// each CPU's and each top process's value per interval, drawn over the
// run's time as SVG lines; a CPU's offline spans shaded. The data is the
// report's --format json document.
'use strict';
const data = JSON.parse(document.getElementById('pmcshim-system-data').textContent);
const NS = 'http://www.w3.org/2000/svg';
const W = 900, H = 260, L = 80, B = 24, T = 8;
const colours = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
	'#7f7f7f', '#bcbd22', '#17becf'];

function el(name, attrs, parent) {
	const e = document.createElementNS(NS, name);
	for (const k in attrs) e.setAttribute(k, attrs[k]);
	if (parent) parent.appendChild(e);
	return e;
}

// The value of event ev in entity x's interval record i ("busy" is the
// CPU's busy time or the process's CPU time, as a share of the interval).
function value(x, i, ev) {
	if (ev === 'busy') {
		const iv = data.intervals[i.interval];
		return i.busy_ns === null ? null : i.busy_ns / 1e9 / (iv.end_s - iv.start_s) * 100;
	}
	return i.values[ev];
}

// One chart: a line per series, x the interval's end (s into the run).
function chart(box, series, ev) {
	box.textContent = '';
	const end = data.intervals.length ? data.intervals[data.intervals.length - 1].end_s : 1;
	let max = 0;
	for (const s of series)
		for (const i of s.x.intervals) max = Math.max(max, value(s.x, i, ev) || 0);
	max = max || 1;
	const svg = el('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}` }, box);
	const px = (t) => L + (W - L - 8) * t / end, py = (v) => H - B - (H - B - T) * v / max;
	el('line', { x1: L, y1: H - B, x2: W - 8, y2: H - B, stroke: '#999' }, svg);
	el('line', { x1: L, y1: T, x2: L, y2: H - B, stroke: '#999' }, svg);
	const label = (x, y, text, anchor) => {
		const t = el('text', { x, y, 'font-size': 11, 'text-anchor': anchor }, svg);
		t.textContent = text;
	};
	label(L - 4, T + 10, ev === 'busy' ? max.toFixed(1) + ' %' : max.toPrecision(4), 'end');
	label(L - 4, H - B, '0', 'end');
	label(W - 8, H - 6, end.toFixed(2) + ' s', 'end');
	label(L, H - 6, '0 s', 'start');
	series.forEach((s, k) => {
		const colour = colours[k % colours.length];
		for (const o of s.x.offline || [])
			el('rect', { class: 'offline', 'data-series': s.id, x: px(o.from_s), y: T,
				     width: px(o.to_s === null ? end : o.to_s) - px(o.from_s), height: H - B - T,
				     fill: colour, 'fill-opacity': 0.12 }, svg);
		const pts = s.x.intervals.map((i) => [data.intervals[i.interval].end_s, value(s.x, i, ev)])
			.filter((p) => p[1] !== null && p[1] !== undefined);
		const line = el('polyline', { points: pts.map((p) => `${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(' '),
					      fill: 'none', stroke: colour, 'stroke-width': 1.5,
					      'data-series': s.id, 'data-n': pts.length,
					      'data-sum': pts.reduce((a, p) => a + p[1], 0) }, svg);
		el('title', {}, line).textContent = s.label;
	});
	const legend = document.createElement('div');
	legend.className = 'legend';
	series.forEach((s, k) => {
		const span = document.createElement('span');
		span.style.color = colours[k % colours.length];
		span.textContent = '\u25a0 ' + s.label;
		legend.appendChild(span);
	});
	box.appendChild(legend);
}

function draw() {
	const ev = document.getElementById('event').value;
	const cpus = data.cpus.map((x) => ({ x, id: 'cpu' + x.cpu, label: 'CPU ' + x.cpu }));
	const procs = data.processes.map((x) => ({ x, id: 'pid' + x.pid, label: `${x.command} [${x.pid}]` }));
	chart(document.getElementById('cpus'), cpus, ev);
	chart(document.getElementById('procs'), procs, ev);
	document.getElementById('cpu-section').hidden = !data.cpu_wide;
}

document.getElementById('title').textContent = `pmcshim --system on ${data.host}: ${data.file}`;
document.getElementById('summary').textContent = `${data.intervals.length} intervals of ` +
	`${data.interval_ms} ms (${data.run_s.toFixed(2)} s), ${data.state}; ` +
	`the ${data.processes.length} heaviest processes` +
	(data.own_only ? '; not privileged: the user\'s own processes only' : '');
const select = document.getElementById('event');
for (const name of ['busy'].concat(data.events.filter((e) => !e.reason).map((e) => e.name))) {
	const o = document.createElement('option');
	o.value = o.textContent = name;
	select.appendChild(o);
}
select.addEventListener('change', draw);
draw();
document.body.dataset.ready = '1';
