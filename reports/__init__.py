"""reports package: the certificate and the report pages of a run folder. The names of the
files it writes there are the run folder's (``audits.runfolder.names``: ``REPORT_FILES``,
``SIGNATURE_FILE``)."""
