"""papersite: paper listings in, a searchable static site out.

The stages and their order are written once, in ``pipeline.py``; the folders
follow them: ``ingest`` (listings -> paper pages), ``enrich`` (topics,
keywords), ``pages`` (the paper page: model, reader, check, store), ``site``
(paper pages -> the built site). ``cli`` only parses arguments.
"""

__version__ = "0.1.0"
