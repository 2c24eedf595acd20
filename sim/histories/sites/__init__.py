"""Stage ``sites``: a site's own text export -> the hands of a ``PhhFile``, as ``read`` gives
them for PHH.

``text.detect_format`` names the site from the CONTENT (never the file name);
``text.read_history``/``read_history_bytes`` split the file into hands, screen every line of a
hand (``lines.screen``: a fact line or a harmless table event, else the hand is skipped as
"unrecognised line"), parse it with PokerKit's parser of that site (its text stages only) and
validate it as a PHH hand; each site's outcome lines (winnings, total pot, rake) are read from
the text. A hand that cannot be read is a named ``PhhSkip``; the rest of the file is read.

Reference only: there is no compiled twin; ``files`` gives every site's text to this stage.
"""
