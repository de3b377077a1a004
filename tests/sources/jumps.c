/* Functions left without their exit hook, built with
 * -finstrument-functions. run() calls jump_out() 2,100 times, each of
 * which calls inner(), which longjmps back to run(): neither ever returns.
 * Then dive() recurses 5,000 deep and longjmps out of the deepest call.
 * Then run() calls other() 3,100 times, which return. Every function
 * entered is counted once per call: jump_out=2100 inner=2100
 * dive=5001 other=3100, and other() directly under run() (nothing the
 * longjmps left is still open around it). The output does not depend on
 * the shim. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

static jmp_buf back;
static volatile int sink, jump = 1;

__attribute__((noinline)) static void inner(int i)
{
	sink += i;
	longjmp(back, 1);
}

__attribute__((noinline)) static void jump_out(int i)
{
	inner(i);
	sink -= i;	/* never reached */
}

__attribute__((noinline)) static void dive(int n)
{
	if (n == 0) {
		if (jump)
			longjmp(back, 2);
		return;
	}
	dive(n - 1);
	sink += n;	/* never reached: no tail call */
}

__attribute__((noinline)) static void other(int i)
{
	for (int k = 0; k < 100; k++)
		sink += i ^ k;
}

__attribute__((noinline)) static int run(void)
{
	volatile int jumps = 0;

	for (volatile int i = 0; i < 2100; i++)
		if (setjmp(back) == 0)
			jump_out(i);
		else
			jumps++;
	if (setjmp(back) == 0)
		dive(5000);
	else
		jumps++;
	for (int i = 0; i < 3100; i++)
		other(i);
	return jumps;
}

/* `jumps deeper`: returning after a longjmp, and a dive past the calls
 * the shim keeps. 100 times, f() sets the jump buffer and calls g(), g()
 * calls h(), h() longjmps back into f(), which returns at once: f's own
 * exit is seen, g's and h's are not (200 calls closed, in g and h, none in
 * f). Then dive() recurses 20,000 deep, deeper than the 16,384 calls the
 * shim keeps open, and longjmps out of the deepest; then other() is called
 * 1,000 times, each counted, none taken for a call inside the dive. */
__attribute__((noinline)) static void h(void)
{
	longjmp(back, 1);
}

__attribute__((noinline)) static void g(void)
{
	h();
	sink++;		/* never reached */
}

__attribute__((noinline)) static void f(void)
{
	if (setjmp(back))
		return;
	g();
}

static int deeper(void)
{
	for (int i = 0; i < 100; i++)
		f();
	if (setjmp(back) == 0)
		dive(20000);
	for (int i = 0; i < 1000; i++)
		other(i);
	printf("deeper\n");
	return 0;
}

int main(int argc, char **argv)
{
	int jumps;

	if (argc > 1 && !strcmp(argv[1], "deeper"))
		return deeper();
	jumps = run();
	printf("jumps %d\n", jumps);
	return jumps == 2101 ? 0 : 1;
}
