/* The region tree: every site's parent (rep_thread.parent) makes the
 * sites of a thread a tree of region paths; threads and files merge by
 * path (main;solve;factor is one node wherever it ran). A file without a
 * tree (an older shim) gives each of its rows as an outermost region.
 * The text (--tree), folded paths, speedscope and the HTML page draw it. */
#ifndef PMCSHIM_REPORT_TREE_H
#define PMCSHIM_REPORT_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "reader/data/report_model.h"

#define NO_NODE UINT32_MAX

struct tnode {
	uint32_t parent, region;	/* model region; the root (node 0): NO_NODE */
	uint32_t child, next;		/* first child, next sibling, heaviest first */
	uint32_t depth;			/* the root 0, outermost regions 1 */
	enum { T_IN, T_CONTEXT, T_OUT } in; /* --region (select_paths) */
	uint64_t calls;
};

struct tkey;

struct tree {
	const struct model *m;
	size_t n, cap, nv;		/* nv: 1 + m->nev values per node */
	size_t nshown;			/* nodes not T_OUT */
	struct tnode *node;
	struct sum *s;			/* [node * nv + 1 + e]: e -1 wall, else event */
	struct tkey *hash;		/* (parent, region) -> node */
};

/* The tree of every row (file and thread SIZE_MAX), of one file's, or of
 * one model thread's; children sorted by the model's weight. */
struct tree *tree_build(const struct model *m, size_t file, size_t thread);
void tree_free(struct tree *t);

/* Node k's sum of value e (-1: wall time), and its inclusive value: its
 * rows' derived incl (report_incl.h), so a node is its exclusive value
 * plus its children's inclusive ones, recursive or not. */
const struct sum *tree_sum(const struct tree *t, uint32_t k, int e);
uint64_t tree_incl(const struct tree *t, uint32_t k, int e);
/* The inclusive weight of all outermost regions, --region or not; false
 * when none has a value. */
bool tree_total(const struct tree *t, int e, uint64_t *v);

/* Every file holds a tree (else paths are one region deep). */
bool model_has_tree(const struct model *m);

/* --tree: indented, inclusive, exclusive and incl share of the weight per
 * node; children below --min-share collapsed into one line. */
void render_tree(FILE *out, struct model *m);
/* --format folded: "main;solve;factor 1234", exclusive weight. */
void render_tree_folded(FILE *out, struct model *m);
/* --format speedscope: the speedscope viewer's file format, one sampled
 * profile per scope, each node a sample of its exclusive weight. */
void render_speedscope(FILE *out, struct model *m);
/* --format html: one self-contained page (report_html.c). */
void render_html(FILE *out, struct model *m);

#endif
