// The HTML report in Chromium, driven by puppeteer-core (tests/html/run.sh
// installs it). node check.js CHROMIUM TREE_PAGE BIG_PAGE BIG_NODES LIMIT_MS
// TREE_PAGE: treeapp's report (tests/reader/treeapp.c, 8 nodes); BIG_PAGE:
// a generated report of BIG_NODES regions, timed. Prints "ok NAME",
// "FAIL NAME: why" or "SKIP NAME (why)" per check.
'use strict';
const puppeteer = require('puppeteer-core');
const [chromium, treePage, bigPage, bigNodes, limitMs, ranksPage] = process.argv.slice(2);

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
	say(n === Number(bigNodes), 'html-big-node-count', `${n}, want ${bigNodes}`);
	say(errors.length === 0, 'html-big-no-console-errors', errors.join('; '));
	// The target is 2 s; the bound is generous for loaded machines.
	say(ms <= Number(limitMs), `html-big-opens: ${bigNodes} regions in ${ms} ms (target 2000 ms, ` +
	    `fails above ${limitMs} ms)`, `${ms} ms`);
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
	await page.close();
}

(async () => {
	const browser = await puppeteer.launch({ executablePath: chromium, headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
	try {
		await treeChecks(browser);
		await bigChecks(browser);
		await rankChecks(browser);
	} catch (e) {
		say(false, 'html-browser', String(e).split('\n')[0]);
	}
	await browser.close();
})();
