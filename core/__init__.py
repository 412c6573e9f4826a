"""convo-tui's engine: transcripts in, sessions, turns and search hits out.

Nothing under core/ imports Textual or Rich; the app and the CLI are faces.
"""
