"""The core every measure family builds on (placeholder; documented below)."""
