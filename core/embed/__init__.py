"""Embedding models: the dense models (bundled MiniLM, multilingual e5 or a
fastembed name), the sparse BM25 encoder, and the choice between the dense
models for a history (choice.py). Everything runs offline from installed
packages."""
