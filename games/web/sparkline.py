"""A rating history drawn as a small SVG line, on the server. Pure: no Django.

The picture is an `<svg role="img">` named by its `<title>` and described by
its `<desc>` (aria-labelledby both), so a screen reader says what it shows;
the words come from the caller, already translated, and are escaped here.

>>> print(sparkline([1500, 1510, 1490], title="Puntuación", desc="De 1500 a 1490", width=100,
...                 height=30, pad=0, ident="r"))  # doctest: +NORMALIZE_WHITESPACE
<svg xmlns="http://www.w3.org/2000/svg" class="sparkline" role="img" width="100" height="30"
 viewBox="0 0 100 30" aria-labelledby="r-title r-desc"><title id="r-title">Puntuación</title><desc
 id="r-desc">De 1500 a 1490</desc><polyline fill="none" stroke="currentColor" stroke-width="2"
 stroke-linejoin="round" points="0,15 50,0 100,30"/></svg>
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape


def points(
    values: Sequence[float], *, width: float, height: float, pad: float
) -> list[tuple[float, float]]:
    """Where each value goes: left to right, the highest at the top.

    One value is a point in the middle; equal values a flat line in the middle.

    >>> points([1, 2, 3], width=10, height=10, pad=0)
    [(0.0, 10.0), (5.0, 5.0), (10.0, 0.0)]
    >>> points([7, 7], width=10, height=10, pad=1)
    [(1.0, 5.0), (9.0, 5.0)]
    """
    if not values:
        return []
    low, high = min(values), max(values)
    inner_w, inner_h = width - 2 * pad, height - 2 * pad
    step = inner_w / (len(values) - 1) if len(values) > 1 else 0.0
    spread = high - low
    out = []
    for i, value in enumerate(values):
        x = pad + (i * step if len(values) > 1 else inner_w / 2)
        y = pad + (inner_h * (high - value) / spread if spread else inner_h / 2)
        out.append((round(x, 1), round(y, 1)))
    return out


def _number(value: float) -> str:
    return f"{value:g}"


def sparkline(
    values: Sequence[float],
    *,
    title: str,
    desc: str,
    width: int = 240,
    height: int = 48,
    pad: int = 3,
    ident: str = "rating",
) -> str:
    """The SVG markup (escaped, ready to embed) of the line through `values`."""
    ids = f"{escape(ident)}-title {escape(ident)}-desc"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sparkline" role="img" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'aria-labelledby="{ids}">',
        f'<title id="{escape(ident)}-title">{escape(title)}</title>',
        f'<desc id="{escape(ident)}-desc">{escape(desc)}</desc>',
    ]
    where = points(values, width=width, height=height, pad=pad)
    if len(where) == 1:
        x, y = where[0]
        parts.append(f'<circle cx="{_number(x)}" cy="{_number(y)}" r="2" fill="currentColor"/>')
    elif where:
        line = " ".join(f"{_number(x)},{_number(y)}" for x, y in where)
        parts.append(
            '<polyline fill="none" stroke="currentColor" stroke-width="2" '
            f'stroke-linejoin="round" points="{line}"/>'
        )
    parts.append("</svg>")
    return "".join(parts)
