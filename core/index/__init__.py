"""The index pipeline: transcript files become searchable points.

discover (which files) -> sources (parse, core/sources/) -> model (pair into
turns) -> points (one per session, turn, message chunk and keyword part) ->
publish (phase 1: payload and BM25, crash-safe per session) -> dense_phase
(phase 2: dense vectors in place, newest first). manifest records what was
read; vector_cache keeps every embedded text by content; health finds what the
store lost; model_switch gives an index another dense model. See
docs/ARCHITECTURE.md.
"""
