"""reports package."""

# the files ``holdem report`` writes into a run folder
REPORT_FILES = {"html": "report.html", "certificate": "certificate.json", "summary": "summary.md"}
