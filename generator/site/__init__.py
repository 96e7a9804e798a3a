"""The site: paper pages in, a staged docs dir and a built site out.

The order of its stages is ``pipeline.SITE_STAGES`` (check -> stage -> engine
-> post-build), run by ``build.py``; ``render/`` writes each page kind.
"""
