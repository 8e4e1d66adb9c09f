"""HTML for notebooks: tables and an SVG plot of samples, with no plotting library needed."""

from __future__ import annotations

import html
import math

_STYLE = "border-collapse:collapse;font-family:monospace;font-size:12px"
_CELL = "border:1px solid #ccc;padding:2px 6px;text-align:left"
MAX_ROWS = 400  # an instruction listing longer than this is cut (the rest is in .instructions)


def _cell(v) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return "%.4g" % v
    return html.escape(str(v))


def table(caption: str, header, rows, note: str = "") -> str:
    out = [f'<table style="{_STYLE}"><caption style="text-align:left;font-weight:bold">{html.escape(caption)}</caption>']
    out.append("<tr>" + "".join(f'<th style="{_CELL}">{html.escape(str(h))}</th>' for h in header) + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f'<td style="{_CELL}">{_cell(v)}</td>' for v in r) + "</tr>")
    out.append("</table>")
    if note:
        out.append(f"<p>{html.escape(note)}</p>")
    return "".join(out)


def instructions(kernel) -> str:
    rows = []
    for i in kernel.instructions[:MAX_ROWS]:
        c = i.control
        loc = f"{i.source.file.rsplit('/', 1)[-1]}:{i.source.line}" if i.source else None
        rows.append(["%04x" % i.address, i.text, c.text if c else None, c.stall if c else None,
                     ("Y" if c.yield_hint else "") if c else None, i.live_gpr, loc])
    more = len(kernel.instructions) - MAX_ROWS
    note = f"{more} more instructions not shown" if more > 0 else ""
    return table(f"{kernel.name}: {len(kernel.instructions)} SASS instructions, {kernel.resources.registers} registers",
                 ["address", "instruction", "control", "stall", "yield", "live", "source"], rows, note)


def samples_svg(launches, width: int = 480, height: int = 160) -> str:
    """Each launch's samples in order (a strip per launch), with its median as a line."""
    series = [(l.kernel or "launch", l.samples_ms) for l in launches if len(l.samples_ms)]
    if not series:
        return ""
    lo = min(float(s.min()) for _, s in series)
    hi = max(float(s.max()) for _, s in series)
    if not math.isfinite(lo) or not math.isfinite(hi):
        return ""
    if hi <= lo:
        hi = lo * 1.01 + 1e-9
    pad = 30
    colours = ["#1f77b4", "#ff7f0e"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'style="font-family:sans-serif;font-size:10px">',
             f'<rect x="{pad}" y="5" width="{width - pad - 5}" height="{height - 25}" fill="none" stroke="#999"/>']
    y = lambda v: 5 + (height - 25) * (1 - (v - lo) / (hi - lo))
    for n, (name, s) in enumerate(series):
        col = colours[n % len(colours)]
        step = (width - pad - 10) / max(1, len(s) - 1)
        pts = " ".join("%.1f,%.1f" % (pad + 2 + k * step, y(float(v))) for k, v in enumerate(s))
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{col}" stroke-width="1" opacity="0.7"/>')
        med = float(sorted(s)[len(s) // 2])
        parts.append(f'<line x1="{pad}" x2="{width - 5}" y1="{y(med):.1f}" y2="{y(med):.1f}" stroke="{col}" '
                     f'stroke-dasharray="4,2"/>')
        parts.append(f'<text x="{pad + 4}" y="{height - 6 - 11 * n}" fill="{col}">'
                     f'{html.escape(name)}: median {med:.4g} ms</text>')
    parts.append(f'<text x="2" y="12">{hi:.3g}</text><text x="2" y="{height - 22}">{lo:.3g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def measurement(m) -> str:
    rows = []
    for l in m.launches:
        g = l.guards
        median = l.stats.get("median_ms") if g.time_valid else "refused"
        ci = l.stats.get("ci95_ms", [None, None])
        rows.append([l.kernel, l.mode, g.l2, l.duration_clock, len(l.samples_ms), median,
                     "%.4g – %.4g" % tuple(ci) if g.time_valid and None not in ci else "–",
                     "yes" if g.outputs_fully_written else ("no" if g.outputs_checked else "not checked")])
    out = table("Measurement on " + str(m.device.get("name", "?")),
                ["kernel", "mode", "L2", "clock", "samples", "median ms", "95 % CI", "outputs written"], rows)
    for l in m.launches:
        if not l.guards.time_valid:
            out += f"<p><b>{html.escape(l.kernel)}</b>: {html.escape(l.guards.refusal)}</p>"
    if m.ratio:
        r = m.ratio
        out += "<p>B/A = %.4g (95 %% CI %.4g – %.4g): %s; outputs agree: %s</p>" % (
            r.get("b_over_a", float("nan")), r["ci95"][0], r["ci95"][1], html.escape(r.get("verdict", "")),
            m.outputs_agree)
    return out + samples_svg(m.launches)
