/* Recursion left by longjmp, as an interpreter's error path leaves it
 * (Lua's luaD_throw): rec opens itself four deep, the innermost runs leaf
 * to its end and jumps back to main, so no rec ever ends. The shim keeps
 * leaf's call and drops the rec activations when main ends: the reader's
 * trees and stacks must still add up (tests/reader/views.sh). */
#include <setjmp.h>

#include <pmcshim.h>

static volatile long sink;
static jmp_buf back;

static void jump(void)
{
	longjmp(back, 1);
}

/* (called through a pointer: GCC would call rec an endless recursion) */
static void (*volatile jump_out)(void) = jump;

static void work(int n)
{
	for (long i = 0; i < n * 200000L; i++)
		sink += i;
}

static void rec(int depth)
{
	PMCSHIM_BEGIN("rec");
	work(1);
	if (depth) {
		rec(depth - 1);
	} else {
		PMCSHIM_BEGIN("leaf");
		work(4);
		PMCSHIM_END("leaf");
		jump_out();
	}
	PMCSHIM_END("rec");
}

int main(void)
{
	PMCSHIM_BEGIN("main");
	if (!setjmp(back))
		rec(3);
	PMCSHIM_BEGIN("tail");
	work(1);
	PMCSHIM_END("tail");
	PMCSHIM_END("main");
	return 0;
}
