// The HTML report in Chromium, driven by puppeteer-core (tests/html/run.sh
// installs it). node check.js CHROMIUM TREE_PAGE BIG_PAGE BIG_NODES DOM_MAX
// RANKS_PAGE NOPMU_PAGE NOPMU_CSV SAMPLED_PAGE SOLVE_PAGE
// TREE_PAGE: treeapp's report (tests/reader/treeapp.c, 8 nodes); BIG_PAGE:
// a generated report of BIG_NODES regions, whose page must hold at most
// DOM_MAX elements once open (its time is printed, not asserted); RANKS_PAGE: two
// generated MPI ranks; NOPMU_PAGE: treeapp with instructions and cycles
// (not counted without a PMU), NOPMU_CSV its --format csv; SAMPLED_PAGE:
// gen_report --samples, SOLVE_PAGE the same with --region '^solve$'.
// Prints "ok NAME", "FAIL NAME: why" or "SKIP NAME (why)" per check.
'use strict';
const puppeteer = require('puppeteer-core');
const [chromium, treePage, bigPage, bigNodes, domMax, ranksPage, nopmuPage, nopmuCsv, sampledPage,
       solvePage] = process.argv.slice(2);
const fs = require('fs');

const say = (ok, name, why) => console.log(ok ? `ok   ${name}` : `FAIL ${name}: ${why}`);

async function open(browser, file) {
	const page = await browser.newPage();
	const errors = [];
	page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
	page.on('pageerror', (e) => errors.push(String(e)));
	page.on('request', (r) => !r.url().startsWith('file:') && errors.push('request ' + r.url()));
	await page.setViewport({ width: 1000, height: 800 });
	const t0 = Date.now();
	await page.goto('file://' + file);
	await page.waitForFunction(() => document.body.dataset.ready === '1', { timeout: 60000 });
	return { page, errors, ms: Date.now() - t0 };
}

const nodeCount = (page) => page.evaluate(() => [Number(document.getElementById('flame').dataset.nodes),
	document.querySelectorAll('#flame .node').length]);

async function column(page, key) {
	return page.evaluate((key) => {
		const i = [...document.querySelectorAll('#regions th')].findIndex((th) => th.dataset.key === key);
		return [...document.querySelectorAll('#regions tr')].slice(1).map((tr) => tr.children[i].dataset.v);
	}, key);
}

const sorted = (a, dir, num) => a.every((x, i) => !i ||
	dir * (num ? Number(x) - Number(a[i - 1]) : x.localeCompare(a[i - 1])) >= 0);

async function treeChecks(browser) {
	const { page, errors } = await open(browser, treePage);
	const [n, drawn] = await nodeCount(page);
	say(n === 8 && drawn === 8, 'html-node-count', `${n} nodes, ${drawn} drawn, want 8`);

	const files = await page.$eval('#files', (e) => e.textContent);
	say(/task-clock \((read|rdpmc)\)/.test(files), 'html-events-provenance', files);

	// A click zooms: the node takes the whole width, what is outside it goes.
	const id = await page.evaluate(() => [...document.querySelectorAll('#flame .node')]
		.find((d) => d.textContent === 'solve').dataset.id);
	await page.click(`#flame .node[data-id="${id}"]`);
	const z = await page.evaluate((id) => {
		const f = document.getElementById('flame'), d = f.querySelector(`.node[data-id="${id}"]`);
		return { zoom: f.dataset.zoom, width: d.getBoundingClientRect().width, full: f.clientWidth,
			 io: [...f.querySelectorAll('.node')].some((x) => x.textContent === 'io') };
	}, id);
	say(z.zoom === id && Math.abs(z.width - z.full) <= 1 && !z.io, 'html-click-zooms',
	    JSON.stringify(z));
	await page.click('#reset');
	say((await nodeCount(page))[1] === 8, 'html-zoom-out', 'not every node drawn again');

	// Sorting sorts: calls descending, again ascending, then by name.
	await page.click('#regions th[data-key="calls"]');
	const down = await column(page, 'calls');
	await page.click('#regions th[data-key="calls"]');
	const up = await column(page, 'calls');
	await page.click('#regions th[data-key="name"]');
	const names = await column(page, 'name');
	say(down.length === 5 && sorted(down, -1, true) && sorted(up, 1, true) && down[0] === '4' &&
	    sorted(names, 1, false) && names[0] === 'factor', 'html-sort',
	    `calls ${down} then ${up}, names ${names}`);

	// Views: all, the process, its thread; a thread's tree is the same here.
	const views = await page.$$eval('#view option', (o) => o.length);
	await page.select('#view', String(views - 1));
	say(views === 3 && (await nodeCount(page))[0] === 8, 'html-views', `${views} views`);
	// Any value weighs the graph: calls.
	await page.select('#weight', '-1');
	say((await nodeCount(page))[1] === 8, 'html-weight-calls', 'nodes lost');
	say(errors.length === 0, 'html-no-console-errors', errors.join('; '));
	await page.close();
}

async function bigChecks(browser) {
	const { page, errors, ms } = await open(browser, bigPage);
	const [n] = await nodeCount(page);
	const dom = await page.evaluate(() => document.getElementsByTagName('*').length);
	say(n === Number(bigNodes), 'html-big-node-count', `${n}, want ${bigNodes}`);
	say(errors.length === 0, 'html-big-no-console-errors', errors.join('; '));
	// What keeps a big page quick, as a count a loaded machine cannot miss:
	// it draws what shows (the flame graph's visible nodes, the table's first
	// rows), not every region (6,336 elements for 100,000 regions). Its
	// time, which a loaded machine moves, is said, not asserted (the
	// issue's target: 2 s; 3.5 s here with a test run beside it).
	say(dom <= Number(domMax), `html-big-bounded-page: ${bigNodes} regions, ${dom} elements ` +
	    `(fails above ${domMax})`, `${dom} elements`);
	console.log(`     html-big-opens: ${bigNodes} regions in ${ms} ms (target 2000 ms; not asserted)`);
	await page.close();
}

// Two ranks: a view per rank and per thread, the rank named; no tree, said.
async function rankChecks(browser) {
	const { page, errors } = await open(browser, ranksPage);
	const views = await page.$$eval('#view option', (o) => o.map((x) => x.textContent));
	const files = await page.$eval('#files', (e) => e.textContent);
	say(views.length === 1 + 2 + 8 && views[2].includes('rank 1 of 2'), 'html-rank-views',
	    views.join(' | '));
	say(/no region tree/.test(files) && /unavailable/.test(files), 'html-older-file-noted', files);
	await page.select('#view', '2');
	const [n] = await nodeCount(page);
	say(n > 0, 'html-rank-view-nodes', `${n} nodes`);
	// A metric colours the graph: IPC (instructions and cycles are there).
	const colours = () => page.$$eval('#flame .node', (d) => d.map((x) => x.style.background).join());
	const byName = await colours();
	await page.select('#color', 'ipc');
	const byIpc = await colours();
	const tip = await page.$eval('#flame .node', (d) => d.title);
	say(byIpc !== byName && /IPC [0-9.]+/.test(tip), 'html-ipc-colour', `tip ${tip}`);
	say(errors.length === 0, 'html-ranks-no-console-errors', errors.join('; '));

	// The spread across the ranks: each region in both, min <= mean <= max,
	// max/mean from them, the rank of the max named.
	const spread = await rows(page, 'ranks');
	say(spread.length > 0 && spread.every((r) => r.have === '2' && Number(r.min) <= Number(r.mean) &&
		Number(r.mean) <= Number(r.max) && /^rank [01]$/.test(r.at) &&
		Math.abs(Number(r.imbalance) - Number(r.max) / Number(r.mean)) < 1e-9),
	    'html-ranks-imbalance', JSON.stringify(spread.slice(0, 3)));
	// One line per kind of error, not one per rank.
	const errs = await page.$$eval('#errors div', (d) => d.map((x) => x.textContent));
	const listed = await page.$eval('#files', (e) => e.textContent);
	say(errs.length === 1 && /^task-clock \(unavailable\): ENOENT.*\(in 2 of 2 processes\)$/.test(errs[0]) &&
	    !/ENOENT/.test(listed), 'html-errors-once', `${errs.join(' | ')}; files: ${listed}`);
	await noNaN(page, 'html-ranks-no-nan');
	await page.close();
}

// Table id's rows as objects: column key -> the cell's data-v.
const rows = (page, id) => page.evaluate((id) => {
	const th = [...document.querySelectorAll(`#${id} th`)].map((x) => x.dataset.key);
	return [...document.querySelectorAll(`#${id} tr`)].slice(1).map((tr) =>
		Object.fromEntries(th.map((k, i) => [k, tr.children[i].dataset.v])));
}, id);

// No tooltip, cell or line of the page says NaN or undefined.
async function noNaN(page, name) {
	const bad = await page.evaluate(() => {
		const texts = [...document.querySelectorAll('.node')].map((d) => d.title)
			.concat([...document.querySelectorAll('td, #files div, #count, #scount')]
				.map((d) => d.textContent));
		return texts.filter((x) => /NaN|undefined/.test(x));
	});
	say(bad.length === 0, name, bad.slice(0, 3).join(' | '));
}

// The run's totals, as the text table prints them.
async function totalsChecks(browser) {
	const { page } = await open(browser, treePage);
	const t = await page.$eval('#totals', (e) => e.textContent);
	say(/^## totals: treeapp \(pid [0-9]+, exited\), 1 thread/.test(t) && /task-clock/.test(t) &&
	    /seconds wall/.test(t), 'html-totals', t.slice(0, 200));
	const spread = await page.$eval('#spread', (e) => e.textContent);
	say(/one process/.test(spread), 'html-spread-one-process', spread);
	await page.close();
}

// Without a PMU: the columns match the text table's (--format csv), the
// tooltips and cells say n/a or nothing where there is no value.
async function nopmuChecks(browser) {
	const { page, errors } = await open(browser, nopmuPage);
	const lines = fs.readFileSync(nopmuCsv, 'utf8').trim().split('\n').map((l) => l.split(','));
	const col = (name) => lines[0].indexOf(name);
	const want = Object.fromEntries(lines.slice(1).map((r) => [r[0], {
		calls: r[col('calls')], wall: r[col('wall_incl_ns')], incl: r[col('task-clock_incl')],
		mean: r[col('task-clock_mean')], min: r[col('task-clock_min')], max: r[col('task-clock_max')] }]));
	const keys = await page.$$eval('#regions th', (t) => t.map((x) => x.dataset.key));
	const got = await rows(page, 'regions');
	const bad = got.filter((r) => !want[r.name] || ['calls', 'wall', 'incl', 'min', 'max'].some((k) =>
		Number(r[k]) !== Number(want[r.name][k])) ||
		Math.abs(Number(r.mean) - Number(want[r.name].mean)) > 0.5);
	say(['wall', 'mean', 'min', 'max'].every((k) => keys.includes(k)) && got.length === 5 &&
	    !bad.length, 'html-columns-as-text', `columns ${keys}; differ: ${JSON.stringify(bad)} ` +
	    `from ${JSON.stringify(want)}`);
	// min and max calibrated as the mean is (main: one call around eight)
	const off = got.filter((r) => !(Number(r.min) <= Number(r.mean) && Number(r.mean) <= Number(r.max)));
	say(got.length && !off.length, 'html-min-mean-max', JSON.stringify(off));
	await noNaN(page, 'html-nopmu-no-nan');
	await page.select('#color', 'ipc');
	await noNaN(page, 'html-nopmu-ipc-colour-no-nan');
	say(errors.length === 0, 'html-nopmu-no-console-errors', errors.join('; '));
	await page.close();
}

// Sampled stacks: 400 in all, 300 taken in solve ([app+0x2000] calling
// [app+0x1234]), 100 in no region; per region by the select, and with
// --region the page holds solve's alone.
async function sampledChecks(browser) {
	const { page, errors } = await open(browser, sampledPage);
	const state = () => page.evaluate(() => {
		const f = document.getElementById('sflame');
		return { samples: f.dataset.samples, nodes: [...f.querySelectorAll('.node')]
			.map((d) => d.textContent + '@' + d.style.top).sort().join(' ') };
	});
	const all = await state();
	say(all.samples === '400' && all.nodes === '[app+0x1234]@18px [app+0x2000]@0px [libwork.so+0x40]@0px',
	    'html-sampled-flame', JSON.stringify(all));
	const regions = await page.$$eval('#sregion option', (o) => o.map((x) => x.textContent + '=' + x.value));
	const pick = (name) => (regions.find((r) => r.startsWith(name + '=')) || '=x').split('=')[1];
	await page.select('#sregion', pick('solve'));
	const solve = await state();
	await page.select('#sregion', pick('(no region)'));
	const none = await state();
	say(solve.samples === '300' && solve.nodes === '[app+0x1234]@18px [app+0x2000]@0px' &&
	    none.samples === '100' && none.nodes === '[libwork.so+0x40]@0px', 'html-sampled-per-region',
	    `${regions}: solve ${JSON.stringify(solve)}, none ${JSON.stringify(none)}`);
	// A click on solve's row in the region table opens its samples.
	await page.evaluate(() => [...document.querySelectorAll('#regions tr')]
		.find((tr) => tr.children[0].textContent === 'solve').click());
	const clicked = await state();
	say(clicked.samples === '300', 'html-sampled-row-click', JSON.stringify(clicked));
	await page.select('#sregion', pick('(no region)'));
	const tipText = await page.$eval('#sflame .node', (d) => d.title);
	say(/100 samples/.test(tipText), 'html-sampled-tooltip', tipText);
	await noNaN(page, 'html-sampled-no-nan');
	say(errors.length === 0, 'html-sampled-no-console-errors', errors.join('; '));
	await page.close();

	const p2 = await open(browser, solvePage);
	const only = await p2.page.evaluate(() => ({ samples: document.getElementById('sflame').dataset.samples,
		regions: [...document.querySelectorAll('#sregion option')].map((o) => o.textContent).join() }));
	say(only.samples === '300' && only.regions === 'all regions,solve', 'html-sampled-region-option',
	    JSON.stringify(only));
	await p2.page.close();
}

(async () => {
	const browser = await puppeteer.launch({ executablePath: chromium, headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
	// A group that throws fails as itself; the next ones still run.
	for (const group of [treeChecks, bigChecks, rankChecks, totalsChecks, nopmuChecks, sampledChecks]) {
		try {
			await group(browser);
		} catch (e) {
			say(false, 'html-browser-' + group.name, String(e).split('\n')[0]);
		}
	}
	await browser.close();
})();
