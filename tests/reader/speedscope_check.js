// Checks a file against the structure of the speedscope file format
// (https://www.speedscope.app/file-format-schema.json): the fields its
// sampled profiles must have, with the types and bounds the schema gives.
// node speedscope_check.js FILE: prints "ok" or the first problem, exit 1.
// With --stacks PREFIX after FILE, then each profile whose name starts
// with PREFIX, "# NAME", and its stacks, "frame;frame WEIGHT", one a line.
'use strict';
const fs = require('fs');

function check(doc) {
	const units = ['none', 'nanoseconds', 'microseconds', 'milliseconds', 'seconds', 'bytes'];
	if (doc.$schema !== 'https://www.speedscope.app/file-format-schema.json')
		return '$schema is not the speedscope file format';
	if (!doc.shared || !Array.isArray(doc.shared.frames))
		return 'no shared.frames array';
	for (const [i, f] of doc.shared.frames.entries())
		if (typeof f.name !== 'string')
			return `frame ${i} has no name`;
	if (!Array.isArray(doc.profiles) || !doc.profiles.length)
		return 'no profiles';
	if ('activeProfileIndex' in doc && !(doc.activeProfileIndex < doc.profiles.length))
		return 'activeProfileIndex out of range';
	for (const [i, p] of doc.profiles.entries()) {
		if (p.type !== 'sampled')
			return `profile ${i}: type ${p.type}, not sampled`;
		if (typeof p.name !== 'string' || !units.includes(p.unit))
			return `profile ${i}: name or unit`;
		if (typeof p.startValue !== 'number' || typeof p.endValue !== 'number')
			return `profile ${i}: startValue or endValue not a number`;
		if (!Array.isArray(p.samples) || !Array.isArray(p.weights) ||
		    p.samples.length !== p.weights.length)
			return `profile ${i}: samples and weights differ in length`;
		let sum = 0;
		for (const [j, s] of p.samples.entries()) {
			if (!Array.isArray(s) || !s.length)
				return `profile ${i}: sample ${j} is not a stack`;
			for (const k of s)
				if (!Number.isInteger(k) || k < 0 || k >= doc.shared.frames.length)
					return `profile ${i}: sample ${j} names frame ${k}`;
			if (typeof p.weights[j] !== 'number' || p.weights[j] < 0)
				return `profile ${i}: weight ${j}`;
			sum += p.weights[j];
		}
		if (p.endValue - p.startValue !== sum)
			return `profile ${i}: endValue - startValue ${p.endValue - p.startValue}, weights sum to ${sum}`;
	}
	return null;
}

const doc = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const why = check(doc);
console.log(why ? why : 'ok');
if (!why && process.argv[3] === '--stacks')
	for (const p of doc.profiles.filter((x) => x.name.startsWith(process.argv[4]))) {
		console.log('# ' + p.name);
		p.samples.forEach((s, j) => console.log(s.map((k) => doc.shared.frames[k].name).join(';') +
							' ' + p.weights[j]));
	}
process.exit(why ? 1 : 0);
