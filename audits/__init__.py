"""audits package.

Its numba caches are keyed by the sources they were compiled from (``audits.jitcache``): the
locator is installed here, before any audit module compiles anything.
"""

from audits import jitcache as _jitcache

_jitcache.install()
