"""Scan parts and shards: how a ruleset's work is cut into items (`scan_items`), and which
items belong to the shard `--shard K/N` (`in_shard`, a hash of the names)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from checker.ir import Ruleset, System
from checker.options import Options

if TYPE_CHECKING:
    from checker.engines.base import ProofStore
    from checker.engines.decision import Scan


SCANS = ("conflicts", "order", "ordering")     # the decision-point scans of a ruleset


def scan_items() -> list[str]:
    """The units of work of the conflict, order and ordering-rule scans (each in `SCAN_PARTS`
    independent parts, `checker.engines.decision.scan_part`) and of the restatement scan
    (`checker.engines.restate`, one part)."""
    from checker.engines.decision import SCAN_PARTS
    return [f"scan:{kind}#{k}" for kind in SCANS for k in range(SCAN_PARTS)] + \
        ["scan:restate#0"]


def run_scan(ruleset: Ruleset, item: str, options: Options,
             proofs: ProofStore | None = None) -> Scan:
    """One part of a scan (`scan_items`); its reachability proofs kept in `proofs`."""
    from checker.engines import conflicts, order, ordering, restate
    kind, _, k = item.removeprefix("scan:").partition("#")
    scan = {"conflicts": conflicts.scan_conflicts, "order": order.scan_order,
            "ordering": ordering.scan_ordering, "restate": restate.scan_restatements}[kind]
    return scan(ruleset, options, int(k), proofs)


def joined(parts: dict[str, Scan]) -> list[Scan]:
    """Each scan (`SCANS`, then the restatement scan) merged from its parts in part order
    (only the parts given: a shard may hold some)."""
    from checker.engines.decision import merge_scans
    items = scan_items()
    return [merge_scans(parts[i] for i in items if i.startswith(f"scan:{kind}#") and i in parts)
            for kind in (*SCANS, "restate")]


def in_shard(ruleset_id: str, item: str, options: Options) -> bool:
    """Does `item` (a property id, or one of `scan_items()`) of the ruleset belong to the shard
    `options.shard` = (K, N)? A hash of the names, so every machine of a CI matrix
    splits the work the same way, whatever the order of the spec."""
    k, n = options.shard
    if n == 1:
        return True
    import hashlib
    h = hashlib.sha256(f"{ruleset_id}\0{item}".encode()).digest()
    return int.from_bytes(h[:8], "big") % n == k - 1


def shard_system(ruleset: Ruleset, options: Options) -> System:
    """The ruleset's system with only the properties of this shard."""
    system = ruleset.system
    if options.shard[1] == 1:
        return system
    return replace(system, properties=tuple(p for p in system.properties
                                            if in_shard(ruleset.id, p.id, options)))


def shard_share(rulesets: list[Ruleset], options: Options) -> tuple[int, int, int, int]:
    """(properties in the shard, properties, scans in the shard, scans)."""
    props = [(r.id, p.id) for r in rulesets for p in r.system.properties]
    scans = [(r.id, s) for r in rulesets for s in scan_items()]
    return (sum(in_shard(r, i, options) for r, i in props), len(props),
            sum(in_shard(r, s, options) for r, s in scans), len(scans))
