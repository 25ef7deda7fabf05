"""Web search providers outside the PHI boundary (the WebSearchProvider port)."""
