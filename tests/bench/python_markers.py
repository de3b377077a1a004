"""Cost of a pair of Python markers (make bench-python): ns per pair of
each form, and its ratio to a baseline measured in the same process (an
empty context manager; a call of an undecorated function). Rounds
interleave the forms; each keeps its best round."""
import sys
import time

import pmcshim

N, ROUNDS = 100000, 15


class Empty(object):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def plain():
    pass


@pmcshim.region("py_bench_deco")
def marked():
    pass


def with_empty(n):
    e = Empty()
    for _ in range(n):
        with e:
            pass


def with_region(n):
    r = pmcshim.region("py_bench_with")
    for _ in range(n):
        with r:
            pass


def call_plain(n):
    for _ in range(n):
        plain()


def call_marked(n):
    for _ in range(n):
        marked()


def begin_end(n):
    begin, end = pmcshim.begin, pmcshim.end
    for _ in range(n):
        begin("py_bench_be")
        end("py_bench_be")


def loop(n):
    for _ in range(n):
        pass


FORMS = [("empty loop", loop), ("with Empty() (baseline)", with_empty),
         ("with pmcshim.region", with_region), ("plain call (baseline)", call_plain),
         ("@pmcshim.region call", call_marked), ("begin(name); end(name)", begin_end)]


def main():
    best = {}
    for _ in range(ROUNDS):
        for name, fn in FORMS:
            t = time.perf_counter_ns()
            fn(N)
            ns = (time.perf_counter_ns() - t) / N
            best[name] = min(best.get(name, ns), ns)
    base = {"with pmcshim.region": "with Empty() (baseline)",
            "@pmcshim.region call": "plain call (baseline)",
            "begin(name); end(name)": "with Empty() (baseline)"}
    print("python %s, %s the shim (best of %d rounds of %d):"
          % (sys.version.split()[0], "under" if pmcshim.active() else "without", ROUNDS, N))
    for name, _ in FORMS:
        extra = ""
        if name in base:
            extra = "  %.2fx %s, %+.0f ns" % (best[name] / best[base[name]], base[name].split(" (")[0],
                                              best[name] - best[base[name]])
        print("  %-26s %7.1f ns%s" % (name, best[name], extra))


main()
