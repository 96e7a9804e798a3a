"""papersite: paper listings in, a searchable static site out.

The pipeline, one module per stage:
listing (read listings) -> merge (one record per paper) -> enrich (topics,
keywords) -> importer (write paper pages, three-way merge with human edits)
-> site (index pages, search index, MkDocs build). ``cli`` writes the order
of the stages down; ``record`` is the paper record all stages pass around.
"""

__version__ = "0.1.0"
