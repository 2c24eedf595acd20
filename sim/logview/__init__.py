"""Views of logged hands (the log itself is ``sim.schema``, its digests ``sim.digest``): the
four tidy tables of ``holdem export`` (``logtables``), a logged row rebuilt as a live hand and
played again (``row_replay``), and a hand as a readable history (``hand_text``)."""
