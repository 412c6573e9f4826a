"""The search pipeline: a query becomes ranked cards.

query (filters and words) -> pipeline (per level: a dense and a BM25 search,
or fuzzy) -> fusion (one relevance from 0 to 1) -> merge (turns and messages
into cards, dedupe, page) -> hits (the cards). snippets and highlight pick and
mark the words a card shows. See docs/ARCHITECTURE.md.
"""
