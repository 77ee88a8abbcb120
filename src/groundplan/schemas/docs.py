"""docs/formats.md, generated from the JSON Schemas (``groundplan formats --markdown``): each
format field by field, with the checks loading makes beyond the schema and a full example."""

from __future__ import annotations

import json
from typing import Any

import yaml

from groundplan.schemas import load_schema

ORDER = ("scene", "skillset", "oam", "oam_json", "episode")
FILE_KIND = {"scene": "a scene (`--scene FILE.yaml`)", "skillset": "a skill set (`--skills FILE.yaml`)",
             "oam": "an object-affordance map (`--oam FILE.yaml`)",
             "oam_json": "an object-affordance map (`--oam FILE.json`)",
             "episode": "an unverified run (`groundplan run --scene examples/scenes/kitchen.yaml \"bring me a coke\" "
                        "--llm none --json`, trace left out)"}
#: formats written as JSON (the others are YAML)
JSON_FORMATS = ("oam_json", "episode")

#: after the episode record's fields: how its status, success, error and exit code follow the
#: verdict (groundplan.core.verdict.record_fields; tests/test_episode_record.py checks this table
#: against the code)
EPISODE_MAPPING = """
**Status, success and error follow the verdict.** Each verdict gives one `status` (the
method's own word where the verdict allows several), one `success` and one `error`, and
`groundplan run` exits with one code:

| verdict | `verdict_kind` | `status` | `success` | `error` | `reason` | exit code |
|---|---|---|---|---|---|---|
| `success` | `success` | `success` | `true` | `null` | `null` | 0 |
| `goal holds (unverified)` | `goal holds (unverified)` | `unverified` | `false` | `null` | `null` | 0 |
| `failure` | `failure` | `failure` (`invalid`: a malformed dataset row) | `false` | `null` | why | 1 |
| `no plan` | `no plan` | `no_plan`, `unsolvable`, `timeout` | `false` | `null` | why | 1 |
| `error: <reason>` | `error` | `error`, `crash` | `false` | the reason | the reason | 3 |
| `error: refused: <why>` | `error` | `unsupported` | `false` | `refused: <why>` | `refused: <why>` | 2 |
| `abstained: <reason>` | `abstained` | `abstained` | `false` | `null` | the reason, with the nearest alternative | 4 |
| `unsafe: <reason>` | `unsafe` | `unsafe` | `false` | `null` | the safety check's reason | 5 |

- `success` is true only when a check goal held after execution. An unverified run (no
  `--check`, the method's own goal held) is not a failure: status `unverified`, exit 0, but
  `success` false, since nothing the user wrote was checked (`metrics.checked` false,
  `metrics.own_goal_held` true). A script that accepts unverified runs reads `verdict_kind`
  or `status`; one that counts checked successes reads `success`.
- `error` is null unless the run broke; why a run failed, found no plan, abstained or was
  stopped as unsafe is in `reason`. An abstention is an answer (the scene cannot meet the
  request), not an error.
- Bad input (a missing scene file, a misspelt method, a check goal naming an unknown object)
  is exit 2 and one line on stderr, with no record: no episode ran. A refusal and an endpoint
  error are records too (`--json`, `--record`), beside their one line on stderr.
- Records written before `reason` and `verdict_kind` existed had status `failure` and error
  `goal not reached` for an unverified run; their `verdict` was already right, and
  `Episode.from_json` reads them with the same verdict.
- Benchmark result stores (`results.sqlite`) keep the method's own status and its reason in
  the `error` column; every report and `groundplan serve` derive the verdict from them by the
  same rule.
"""

HEADER = """# File formats

<!-- Generated from src/groundplan/schemas/*.schema.json by `groundplan formats --markdown >
docs/formats.md`; do not edit by hand (a test checks this file matches the schemas). -->

groundplan reads three kinds of files a user writes: **scenes**, **skill sets** and
**object-affordance maps** (OAMs). Their one source of truth is the JSON Schemas shipped with the
package (`groundplan formats --schema scene` prints one); this page is generated from them. It
also describes the one file groundplan writes for scripts to read: the **episode record**
(`groundplan run --json`, `--record`; `groundplan formats --schema episode`).

Loading checks everything groundplan can check before Fast Downward sees a task. A mistake is
reported as exit code 2 and one line `file:line: message`, with a did-you-mean where a name is
close to a known one:

```text
error: mine.yaml:19: unknown section 'capabilites' (did you mean capabilities?) (expected one of ...)
error: scene.yaml:14: fact (on watering_can0 sink0): sink0 is a sink with affordances [contain, heat-resistance, liquid-contain]; 'on' needs a support as argument 2 (or give sink that affordance in an --oam file)
```

`tests/data/malformed/formats/` holds one file per mistake (`tests/test_malformed_formats.py`).
Goals get the same treatment: `goal: unknown object 'appel0' (did you mean apple0?)`, and the
feedback an LLM gets for self-correction carries the suggestion too.

**Affordances: three ways.** A class's affordances come from the default map shipped with
groundplan, from `--oam` files that extend it, or, for a class no map names, from inference.
[affordances.md](affordances.md) shows all three in a worked example.

Contents: {toc}
"""


def _anchor(title: str) -> str:
    return "".join(c for c in title.lower().replace(" ", "-") if c.isalnum() or c == "-")


def _type(s: dict) -> str:
    if "const" in s:
        return f"`{json.dumps(s['const'])}`"
    if "enum" in s:
        return " / ".join(f"`{x}`" for x in s["enum"])
    if "oneOf" in s:
        return " or ".join(_type(x) for x in s["oneOf"])
    if "$ref" in s:
        return "entries (below)"
    t = s.get("type")
    ts = t if isinstance(t, list) else [t]
    out = []
    for x in ts:
        if x == "array":
            items = s.get("items")
            inner = _type(items) if items else ""
            out.append(f"list of ({inner})" if items and "oneOf" in items else (f"list of {inner}" if items else "list"))
        elif x == "object":
            if s.get("properties"):
                out.append("mapping (fields below)")
            elif isinstance(s.get("additionalProperties"), dict):
                out.append(f"mapping name → {_type(s['additionalProperties'])}")
            else:
                out.append("mapping")
        elif x == "null":
            out.append("empty")
        elif x is not None:
            out.append(x)
    return " or ".join(out) or "any"


def _example(v: Any) -> str:
    text = yaml.safe_dump(v, default_flow_style=True, sort_keys=False, width=10_000).strip()
    if text.endswith("\n..."):
        text = text[:-4].strip()
    return f"`{text.replace('|', '&#124;')}`"


def _object_schema(s: dict) -> dict | None:
    """The object schema a field's value or items hold, if any (for a sub-table)."""
    for cand in (s, s.get("items") or {}, s.get("additionalProperties") if isinstance(s.get("additionalProperties"), dict) else {}):
        if cand.get("properties"):
            return cand
        for alt in cand.get("oneOf", []):
            if alt.get("properties"):
                return alt
    return None


def _table(schema: dict, prefix: str, out: list[str], subs: list[tuple[str, dict]]) -> None:
    req = set(schema.get("required", []))
    out.append("| field | type | required | meaning | example |")
    out.append("|---|---|---|---|---|")
    for name, s in schema.get("properties", {}).items():
        ex = _example(s["examples"][0]) if s.get("examples") else ""
        desc = s.get("description", "").replace("|", "&#124;").replace("\n", " ")
        out.append(f"| `{name}` | {_type(s)} | {'yes' if name in req else ''} | {desc} | {ex} |")
        sub = _object_schema(s)
        if sub is not None:
            what = "each entry of" if (s.get("items") or isinstance(s.get("additionalProperties"), dict)) else ""
            subs.append((f"{what} `{prefix}{name}`".strip(), sub))


def _section(name: str) -> list[str]:
    s = load_schema(name)
    out = [f"## {s['title']}", "", s["description"], ""]
    root = s
    if "oneOf" in s:  # oam_json: an object with oams, or the bare list
        root = s["oneOf"][0]
    if root.get("properties"):
        subs: list[tuple[str, dict]] = []
        _table(root, "", out, subs)
        while subs:
            title, sub = subs.pop(0)
            out += ["", f"Fields of {title}:", ""]
            more: list[tuple[str, dict]] = []
            _table(sub, title.split("`")[1] + ".", out, more)
            subs = more + subs
        defs = s.get("$defs", {})
        for dname, d in defs.items():
            sub = _object_schema(d)
            if sub is not None:
                out += ["", f"Fields of each entry of `{dname}`:", ""]
                nested: list[tuple[str, dict]] = []
                _table(sub, f"{dname}.", out, nested)
    else:  # a mapping class -> list
        value = s.get("additionalProperties", {})
        out += [f"Each key is an object class; its value ({_type(value)}) is {value.get('description', '')}.", ""]
    checks = s.get("x-checks", [])
    if checks:
        out += ["", "Loading also checks:", ""] + [f"- {c}" for c in checks]
    if name == "episode":
        out += EPISODE_MAPPING.rstrip("\n").split("\n")
    for ex in s.get("examples", []):
        fmt = "json" if name in JSON_FORMATS else "yaml"
        text = json.dumps(ex, indent=2) if fmt == "json" else yaml.safe_dump(ex, sort_keys=False, width=100,
                                                                              default_flow_style=None)
        out += ["", f"Example, {FILE_KIND[name]}:", "", f"```{fmt}", text.rstrip(), "```"]
    return out + [""]


def render_markdown() -> str:
    titles = [load_schema(n)["title"] for n in ORDER]
    toc = ", ".join(f"[{t}](#{_anchor(t)})" for t in titles)
    lines = [HEADER.replace("{toc}", toc)]
    for n in ORDER:
        lines += _section(n)
    return "\n".join(lines).rstrip() + "\n"


__all__ = ["render_markdown"]
