"""sim package: the engine and the simulator.

Its numba caches are keyed by the sources they were compiled from (``audits.jitcache``): the
locator is installed here, before any module of the package compiles anything.
"""

from audits import jitcache as _jitcache

_jitcache.install()
