"""Ranking: BM25 and embeddings fused, for docs and for code."""
