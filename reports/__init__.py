"""reports package."""

# the files ``holdem report`` writes into a run folder
REPORT_FILES = {"html": "report.html", "certificate": "certificate.json", "summary": "summary.md"}
# the Ed25519 signature of certificate.json (``holdem report --sign-key``): 64 raw bytes
SIGNATURE_FILE = "certificate.sig"
