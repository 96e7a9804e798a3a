"""The import report: what an import read, wrote, merged and could not decide.

Printed as a summary by ``papersite import`` and written whole as JSON by
``papersite import --report FILE``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from generator.ingest.authors import OrderVerdict
from generator.problems import one_line


@dataclass
class ImportReport:
    sources: list[dict[str, Any]] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # new pages (slugs)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    departed: list[str] = field(default_factory=list)  # pages whose paper left the listings
    deleted: list[str] = field(default_factory=list)  # pages a maintainer removed: not re-created
    merges: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    references: dict[str, Any] = field(default_factory=dict)  # reference matches and candidates, by slug
    author_orders: list[OrderVerdict] = field(default_factory=list)  # each listing's and reference's author order
    order_unknown: set[str] = field(default_factory=set)  # slugs whose pages say the author order is not known
    settled_file: str = ""  # where candidates are settled (papersite.yml settled_matches)
    papers: int = 0
    seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)  # for benchmarks; not in the JSON

    def to_json(self) -> dict[str, Any]:
        return {
            "sources": self.sources,
            "papers": {
                "total": self.papers,
                "written": len(self.written),
                "updated": len(self.updated),
                "unchanged": len(self.unchanged),
                "written_slugs": sorted(self.written),
                "updated_slugs": sorted(self.updated),
                "departed_slugs": sorted(self.departed),
                "deleted_by_maintainer": sorted(self.deleted),
            },
            "merges": self.merges,
            "conflicts": self.conflicts,
            "references": self.references,
            "author_order": [verdict.to_json() for verdict in self.author_orders],
            "warnings": self.warnings,
        }

    def summary(self) -> str:
        lines = [
            f"{self.papers} papers from {sum(s['entries'] for s in self.sources)} entries in "
            f"{len(self.sources)} listing(s): {len(self.written)} new, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged; {len(self.merges)} merged, {len(self.conflicts)} conflict(s), "
            f"{len(self.departed)} left the listings ({self.seconds:.1f}s)"
        ]
        if self.references.get("files"):
            matched, candidates = self.references["matched"], self.references["candidates"]
            per_file = ", ".join(
                f"{sum(1 for m in matched if m['reference'] == f['file'])} in {f['file']}" for f in self.references["files"]
            )
            completed = {m["slug"] for m in matched if m["fields"]}
            lines.append(
                f"references: {len({m['slug'] for m in matched})} of {self.papers} papers matched ({per_file}), "
                f"{len(completed)} completed; {len({c['slug'] for c in candidates})} with candidates to confirm "
                f"by hand (see --report; settle them in {self.settled_file or 'the settled_matches file'})"
                + (f"; {len(self.references.get('rejected_by_maintainer', []))} pairing(s) rejected by a maintainer"
                   if self.references.get("rejected_by_maintainer") else "")
            )
        lines += [
            f"author order: {verdict.describe()}" for verdict in self.author_orders if verdict.lists or verdict.declared != "detect"
        ]
        unsure = len(self.order_unknown)
        if unsure:
            lines.append(
                f"author order: {unsure} paper(s) have authors known only from a source that does not keep the papers' order; "
                "their pages say so (a maintainer who puts them in the paper's order removes 'author_order')"
            )
        lines += [
            f"conflict: {c['slug']}: field '{c['field']}' changed in the listing and by hand; kept the page's value"
            for c in self.conflicts
        ]
        lines += [one_line(f"warning: {w}") for w in self.warnings]
        return "\n".join(lines)
