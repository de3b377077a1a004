"""Run by the install test with the installed module only (PYTHONPATH from
pkg-config's pythondir)."""
import pmcshim

for _ in range(5):
    with pmcshim.region("installed_py"):
        pass
print("app.py: %s" % ("under pmcshim" if pmcshim.active() else "alone"))
