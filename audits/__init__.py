"""audits package."""
