"""The archive: every transcript file read, kept compressed and deduplicated,
so a session outlives its file (core/archive/store.py explains the storage,
files.py how the indexer reads through it)."""
