// The system report's page (report_html_system.c) in Chromium, driven by
// puppeteer-core (tests/html/run.sh). node system.js CHROMIUM PAGE JSON
// PAGE: --format html of a system report whose CPU 1 was offline from
// the start; JSON: --format json of the same report with the same --top.
// Each CPU and each process of the JSON is a line with a point per
// interval, its values the JSON's for the event chosen; CPU 1 is shaded
// offline to the end. Prints "ok NAME" or "FAIL NAME: why" per check.
'use strict';
const fs = require('fs');
const puppeteer = require('puppeteer-core');
const [chromium, pageFile, jsonFile] = process.argv.slice(2);
const data = JSON.parse(fs.readFileSync(jsonFile, 'utf8'));
const say = (ok, name, why) => console.log(ok ? `ok   ${name}` : `FAIL ${name}: ${why}`);

// What the page should draw for entity x and event ev: points and sum.
function want(x, ev) {
	const v = x.intervals.map((i) => ev === 'busy' ? (i.busy_ns === null ? null :
		i.busy_ns / 1e9 / (data.intervals[i.interval].end_s - data.intervals[i.interval].start_s) * 100) :
		i.values[ev]).filter((v) => v !== null);
	return { n: v.length, sum: v.reduce((a, b) => a + b, 0) };
}

async function lines(page) {
	return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('polyline')]
		.map((l) => [l.dataset.series, { n: Number(l.dataset.n), sum: Number(l.dataset.sum),
			points: l.getAttribute('points').split(' ').filter((p) => p).length }])));
}

function compare(got, ev) {
	const bad = [];
	const series = data.cpus.map((x) => ['cpu' + x.cpu, x]).concat(data.processes.map((x) => ['pid' + x.pid, x]));
	for (const [id, x] of series) {
		const w = want(x, ev), g = got[id];
		if (!g || g.n !== w.n || g.points !== w.n || Math.abs(g.sum - w.sum) > 1e-6 * Math.max(1, w.sum))
			bad.push(`${id}: ${JSON.stringify(g)} want ${JSON.stringify(w)}`);
	}
	if (Object.keys(got).length !== series.length)
		bad.push(`${Object.keys(got).length} lines, want ${series.length}`);
	return bad;
}

(async () => {
	const browser = await puppeteer.launch({ executablePath: chromium, headless: true,
		args: ['--no-sandbox', '--disable-gpu'] });
	try {
		const page = await browser.newPage();
		const errors = [];
		page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
		page.on('pageerror', (e) => errors.push(String(e)));
		page.on('request', (r) => !r.url().startsWith('file:') && errors.push('request ' + r.url()));
		await page.goto('file://' + pageFile);
		await page.waitForFunction(() => document.body.dataset.ready === '1', { timeout: 60000 });
		const options = await page.$$eval('#event option', (o) => o.map((x) => x.value));
		say(JSON.stringify(options) === JSON.stringify(['busy', 'cpu-clock', 'page-faults']),
		    'html-system-events', JSON.stringify(options));
		let bad = compare(await lines(page), 'busy');
		say(!bad.length && data.processes.length >= 3, 'html-system-lines-busy', bad.slice(0, 3).join('; ') ||
		    `${data.processes.length} processes`);
		await page.select('#event', 'page-faults');
		bad = compare(await lines(page), 'page-faults');
		say(!bad.length, 'html-system-lines-page-faults', bad.slice(0, 3).join('; '));
		const shade = await page.evaluate(() => [...document.querySelectorAll('rect.offline')]
			.map((r) => [r.dataset.series, Number(r.getAttribute('x')), Number(r.getAttribute('width'))]));
		say(shade.length === 1 && shade[0][0] === 'cpu1' && shade[0][2] > 700, 'html-system-offline-shaded',
		    JSON.stringify(shade));
		say(!errors.length, 'html-system-no-errors', errors.join('; '));
	} finally {
		await browser.close();
	}
})().catch((e) => { console.log(`FAIL html-system-driver: ${e}`); process.exit(1); });
