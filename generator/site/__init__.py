"""The site stage: paper records in, a staged docs dir and a built site out.

Order of the stages (see ``build.py``): catalog (authors, keywords, topics) ->
related papers -> paper pages -> index pages -> stats -> search index ->
staged docs dir -> engine (MkDocs, or Zensical later) -> ``site/``.
"""
