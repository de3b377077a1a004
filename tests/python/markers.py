"""Python markers under the shim (tests/python/run.sh): known numbers of
each region, on 4 threads, through a decorator (recursive too), a with
block left by an exception, and begin/end. Prints one line, the same with
or without the shim but for the last word."""
import threading

import pmcshim

THREADS, PER_THREAD = 4, 250


@pmcshim.region("py_deco")
def deco(x):
    return x + 1


@pmcshim.region("py_fib")
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def work():
    r = pmcshim.region("py_with")   # one object, used on every thread
    for i in range(PER_THREAD):
        with r:
            deco(i)


def main():
    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    n = fib(10)                     # 177 calls
    for _ in range(5):
        try:
            with pmcshim.region("py_raise"):
                raise ValueError("left by an exception")
        except ValueError:
            pass
    for _ in range(7):
        pmcshim.begin("py_be")
        pmcshim.end("py_be")
    try:
        pmcshim.region(3)
        bad = "accepted"
    except TypeError:
        bad = "refused"
    print("markers: fib(10)=%d, a number as a name %s, under pmcshim: %s"
          % (n, bad, pmcshim.active()))


main()
